"""The GPIO chip setting (a number or a label) and opening the pin factory on it, as check-config does.

The chip's label comes from the kernel (GPIO_GET_CHIPINFO_IOCTL); this machine has no GPIO chip, so
the label lookup is tested on chips described by hand, and the ioctl on a real /dev/gpiochip only where
one exists. lgpio is the third-party edge we cannot run here: a stand-in module records the chip that
gpiozero's LGPIOFactory opens.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.dealer_panel import PanelDeviceError, pin_factory_for
from drivers.gpio_chip import GPIO_GET_CHIPINFO_IOCTL, GpioChip, list_chips, open_pin_factory, resolve_chip

REPO = Path(__file__).resolve().parents[2]
DEMO = (REPO / "configs" / "demo.toml").read_text(encoding="utf-8")
PI5_AFTER_6_6_45 = [GpioChip(0, "gpiochip0", "pinctrl-rp1", 54),
                    GpioChip(10, "gpiochip10", "gpio-brcmstb@107d508500", 32)]
PI5_BEFORE = [GpioChip(0, "gpiochip0", "gpio-brcmstb@107d508500", 32), GpioChip(4, "gpiochip4", "pinctrl-rp1", 54)]


def test_the_ioctl_number_is_linux_gpio_h() -> None:
    assert GPIO_GET_CHIPINFO_IOCTL == 0x8044B401  # _IOR(0xB4, 0x01, struct gpiochip_info), 68 bytes


def test_a_label_finds_the_header_chip_on_both_pi_5_numberings() -> None:
    assert resolve_chip("pinctrl-rp1", PI5_AFTER_6_6_45) == 0
    assert resolve_chip("pinctrl-rp1", PI5_BEFORE) == 4


def test_an_unknown_label_is_one_line_naming_the_chips_there() -> None:
    with pytest.raises(PanelDeviceError) as caught:
        resolve_chip("pinctrl-bcm2711", PI5_AFTER_6_6_45)
    message = str(caught.value)
    assert "\n" not in message
    assert "'pinctrl-bcm2711'" in message and "gpiochip0 [pinctrl-rp1]" in message


def test_a_chip_number_must_exist(tmp_path: Path) -> None:
    (tmp_path / "gpiochip0").touch()
    assert resolve_chip(0, dev=tmp_path) == 0
    with pytest.raises(PanelDeviceError, match=r"gpiochip4 does not exist \(GPIO chips here: gpiochip0\)"):
        resolve_chip(4, dev=tmp_path)


def test_files_that_are_not_gpio_chips_are_not_listed(tmp_path: Path) -> None:
    (tmp_path / "gpiochip0").write_bytes(b"not a character device")  # the ioctl fails: ENOTTY
    (tmp_path / "gpiochip4").symlink_to(tmp_path / "gpiochip0")
    assert list_chips(tmp_path) == []


@pytest.mark.skipif(not Path("/dev/gpiochip0").exists(), reason="no GPIO chip on this machine")
def test_the_kernel_describes_its_chips() -> None:
    chips = list_chips()
    assert chips and all(chip.name == f"gpiochip{chip.number}" and chip.lines > 0 for chip in chips)
    assert resolve_chip(chips[0].label, chips) == chips[0].number


@pytest.fixture
def lgpio_stand_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, int]]]:
    """A stand-in `lgpio` module recording gpiochip_open/close (the library only exists on a Pi)."""
    calls: list[tuple[str, int]] = []
    module = types.ModuleType("lgpio")

    def gpiochip_open(chip: int) -> int:
        calls.append(("open", chip))
        return 100 + chip

    def gpiochip_close(handle: int) -> None:
        calls.append(("close", handle))

    def constant(name: str) -> int:
        if name.isupper():
            return 0
        raise AttributeError(name)

    module.gpiochip_open = gpiochip_open  # type: ignore[attr-defined]
    module.gpiochip_close = gpiochip_close  # type: ignore[attr-defined]
    module.__getattr__ = constant  # type: ignore[method-assign]
    monkeypatch.setitem(sys.modules, "lgpio", module)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    yield calls


def test_the_lgpio_factory_opens_the_configured_chip(lgpio_stand_in: list[tuple[str, int]]) -> None:
    factory = pin_factory_for("lgpio", chip=4)
    assert factory.chip == 4
    factory.close()
    assert lgpio_stand_in == [("open", 4), ("close", 104)]
    assert open_pin_factory("lgpio", 0) == "LGPIOFactory on gpiochip0"
    assert lgpio_stand_in[-2:] == [("open", 0), ("close", 100)]  # check-config closes what it opened


def check_config(tmp_path: Path, text: str, **environ: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("TABLE_", "GPIOZERO_"))}
    return subprocess.run([sys.executable, "-m", "table_runtime", "check-config", str(path)], capture_output=True,
                          text=True, timeout=60, check=False, cwd=REPO, env={**env, **environ})


def test_check_config_opens_gpiozeros_default_factory(tmp_path: Path) -> None:
    default = DEMO.replace('panel_pin_factory = "mock"', "")
    result = check_config(tmp_path, default, GPIOZERO_PIN_FACTORY="mock")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "opened the GPIO pin factory MockFactory" in result.stdout
    result = check_config(tmp_path, default, GPIOZERO_PIN_FACTORY="no-such-factory")
    assert result.returncode == 1
    problem = result.stdout.splitlines()[1:]
    assert len(problem) == 1 and problem[0].startswith("  devices.panel_pin_factory: no GPIO pin factory is usable")


def test_check_config_refuses_a_chip_that_is_not_there_in_one_line(tmp_path: Path) -> None:
    on_chip_99 = DEMO.replace('panel_pin_factory = "mock"', 'panel_pin_factory = "lgpio"\ngpio_chip = 99')
    result = check_config(tmp_path, on_chip_99)
    assert result.returncode == 1 and result.stderr == ""
    problems = result.stdout.splitlines()[1:]
    assert len(problems) == 1, problems
    assert problems[0].startswith("  devices.gpio_chip: /dev/gpiochip99 does not exist (GPIO chips here: ")


def test_the_chip_setting_is_checked_with_its_key(tmp_path: Path) -> None:
    for setting, message in (("true", "expected a chip number or label"), ("300", "a gpiochip number is 0 to 255"),
                             ('"pinctrl rp1"', "a chip label, as `gpiodetect` shows it")):
        text = DEMO.replace('panel_pin_factory = "mock"', f'panel_pin_factory = "lgpio"\ngpio_chip = {setting}')
        result = check_config(tmp_path, text)
        assert result.returncode == 1, result.stdout
        assert result.stdout.splitlines()[1].startswith("  devices.gpio_chip: ") and message in result.stdout
    with_mock = DEMO.replace('panel_pin_factory = "mock"', 'panel_pin_factory = "mock"\ngpio_chip = 0')
    result = check_config(tmp_path, with_mock)
    assert result.returncode == 1 and "devices.gpio_chip: only the lgpio pin factory takes a chip" in result.stdout
