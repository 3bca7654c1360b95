"""The systemd unit and the udev rule of deploy/ parse, and agree with configs/pi.toml and the guide.

`systemd-analyze verify` checks the unit when systemd is installed (every
unknown key or bad value is a warning on stderr, so stderr must stay empty);
the required keys are checked in any case. udev has no offline checker before
systemd 254, so the rule file is parsed here: known keys and operators, quoted
values, and the ids the readers of configs/pi.toml carry.
"""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "deploy" / "table-runtime.service"
RULES = REPO / "deploy" / "99-smart-table.rules"
PI_CONFIG = REPO / "configs" / "pi.toml"
GUIDE = REPO / "docs" / "deployment.md"
INSTALLED_COMMAND = "/opt/table-runtime/venv/bin/table-runtime"

pytestmark = pytest.mark.timeout(60)


def unit_sections() -> dict[str, dict[str, list[str]]]:
    """Section -> key -> every value (systemd keys may repeat, e.g. DeviceAllow=)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for number, raw in enumerate(UNIT.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            assert line.endswith("]"), f"line {number}: {raw}"
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"line {number}: a key before any section"
        key, equals, value = line.partition("=")
        assert equals and key.strip() == key and key, f"line {number}: not Key=value: {raw}"
        current.setdefault(key, []).append(value)
    return sections


def test_unit_has_the_required_keys() -> None:
    sections = unit_sections()
    service = sections["Service"]

    def one(key: str) -> str:
        assert len(service[key]) == 1, f"{key} is set {len(service[key])} times"
        return service[key][0]

    assert one("User") == "table"
    assert set(one("SupplementaryGroups").split()) == {"dialout", "plugdev", "gpio"}
    assert one("Restart") == "always"
    assert sections["Unit"]["StartLimitIntervalSec"] == ["0"]  # never give up restarting
    assert one("ExecStart") == f"{INSTALLED_COMMAND} run --config /etc/table-runtime/table.toml"
    assert one("EnvironmentFile") == "-/etc/table-runtime/env"
    assert one("StateDirectory") == "table-runtime"
    assert one("KillSignal") == "SIGTERM"
    # Longer than the runtime's own stop (feed flush bounded at 5 s, devices closed within seconds).
    assert 10 <= int(one("TimeoutStopSec")) <= 120
    assert one("NoNewPrivileges") == "yes"
    assert one("ProtectSystem") == "strict"
    assert "PrivateDevices" not in service  # it would hide the serial port, the USB devices and the GPIO chips
    assert one("DevicePolicy") == "closed"
    allowed = {value.split()[0] for value in service["DeviceAllow"]}
    assert {"char-ttyACM", "char-ttyUSB", "char-usb_device", "char-gpiochip"} <= allowed
    assert "AF_NETLINK" in one("RestrictAddressFamilies").split()  # hot-plug events for libusb and pyserial
    assert sections["Install"]["WantedBy"] == ["multi-user.target"]


def test_unit_is_notify_with_a_watchdog_and_does_not_restart_a_refused_table() -> None:
    from table_runtime.commands.run import EXIT_REFUSED

    service = unit_sections()["Service"]
    assert service["Type"] == ["notify"]  # READY=1 from `run` (tests/deploy/test_systemd_notify.py)
    assert service["NotifyAccess"] == ["main"]
    watchdog = int(service["WatchdogSec"][0])
    assert 10 <= watchdog <= 120  # pinged every WatchdogSec/2 from the event loop
    # RestartPreventExitStatus= does not apply to ExecStartPre=: a failing check there restarts every 2 s.
    assert "ExecStartPre" not in service
    assert str(EXIT_REFUSED) in service["RestartPreventExitStatus"][0].split()
    assert service["Restart"] == ["always"]
    assert service.get("SyslogLevelPrefix", ["yes"]) == ["yes"]  # the <N> prefixes are journald's levels
    assert service.get("StandardError", ["journal"]) == ["journal"]


def test_unit_state_directory_is_the_data_dir_of_the_pi_config() -> None:
    data_dir = tomllib.loads(PI_CONFIG.read_text(encoding="utf-8"))["data_dir"]
    assert data_dir == "/var/lib/" + unit_sections()["Service"]["StateDirectory"][0]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_accepts_the_unit(tmp_path: Path) -> None:
    # The installed command does not exist here: point the copy at this environment's table-runtime.
    command = Path(sys.executable).with_name("table-runtime")
    assert command.exists(), f"{command}: the project is not installed in this environment"
    copy = tmp_path / UNIT.name
    copy.write_text(UNIT.read_text(encoding="utf-8").replace(INSTALLED_COMMAND, str(command)), encoding="utf-8")
    result = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True,
                            timeout=30, check=False, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "", result.stderr  # unknown keys and bad values are only warnings


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_would_catch_a_typo(tmp_path: Path) -> None:
    """The check above means something: a misspelt key does produce a warning."""
    command = Path(sys.executable).with_name("table-runtime")
    copy = tmp_path / UNIT.name
    text = UNIT.read_text(encoding="utf-8").replace(INSTALLED_COMMAND, str(command))
    copy.write_text(text.replace("ProtectHome=yes", "ProtectHomee=yes"), encoding="utf-8")
    result = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True,
                            timeout=30, check=False, cwd=tmp_path)
    assert "ProtectHomee" in result.stderr


# ------------------------------------------------------------------------------------------- udev

_MATCH_KEYS = re.compile(r"(ACTION|SUBSYSTEM|SUBSYSTEMS|KERNEL|KERNELS|DRIVER|DRIVERS|ATTR\{[\w.]+\}|"
                         r"ATTRS\{[\w.]+\}|ENV\{\w+\})")
_ASSIGN_KEYS = re.compile(r"(SYMLINK|GROUP|MODE|OWNER|TAG|ENV\{\w+\}|RUN\{?\w*\}?)")
_TOKEN = re.compile(r'\s*([A-Z]+(?:\{[\w.]+\})?)\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(,|$)')


def udev_rules() -> list[list[tuple[str, str, str]]]:
    """Every rule as (key, operator, value) triples; fails on anything udev would not parse."""
    rules: list[list[tuple[str, str, str]]] = []
    for number, raw in enumerate(RULES.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        tokens: list[tuple[str, str, str]] = []
        position = 0
        while position < len(line):
            match = _TOKEN.match(line, position)
            assert match is not None, f"line {number}, column {position}: cannot parse {line[position:]!r}"
            key, operator, value = match.group(1), match.group(2), match.group(3)
            if operator in ("==", "!="):
                assert _MATCH_KEYS.fullmatch(key), f"line {number}: {key} is not a match key"
            else:
                assert _ASSIGN_KEYS.fullmatch(key), f"line {number}: {key} cannot be assigned"
            tokens.append((key, operator, value))
            position = match.end()
        assert any(operator == "==" for _, operator, _ in tokens), f"line {number}: a rule that matches everything"
        rules.append(tokens)
    return rules


def rule_with(key: str, value: str) -> dict[str, str]:
    found = [rule for rule in udev_rules() if (key, "==", value) in rule]
    assert len(found) == 1, f"{len(found)} rules match {key}=={value}"
    return {f"{k}{op}": v for k, op, v in found[0]}


def test_udev_rules_parse() -> None:
    assert len(udev_rules()) == 2


def test_udev_shoe_rule_names_the_port_the_pi_config_opens() -> None:
    shoe = rule_with("SUBSYSTEM", "tty")
    assert shoe["SYMLINK+="] == "table-shoe"
    assert re.fullmatch(r"[0-9a-f]{4}", shoe["ATTRS{idVendor}=="])
    assert re.fullmatch(r"[0-9a-f]{4}", shoe["ATTRS{idProduct}=="])
    assert shoe["ATTRS{serial}=="]  # one shoe, not any serial adapter of that model
    assert shoe["GROUP="] == "dialout"
    assert shoe["MODE="] == "0660"
    url = tomllib.loads(PI_CONFIG.read_text(encoding="utf-8"))["devices"]["shoe"]
    assert url.startswith("serial:///dev/table-shoe")


def test_udev_reader_rule_covers_every_reader_of_the_pi_config() -> None:
    readers = tomllib.loads(PI_CONFIG.read_text(encoding="utf-8"))["devices"]["chip_readers"]
    ids = {(f"{reader['vendor_id']:04x}", f"{reader['product_id']:04x}") for reader in readers}
    rules = [dict(((k + op), v) for k, op, v in rule) for rule in udev_rules()]
    usb = [rule for rule in rules if rule.get("SUBSYSTEM==") == "usb"]
    for vendor, product in ids:
        matching = [rule for rule in usb if rule.get("ATTR{idVendor}==") == vendor
                    and rule.get("ATTR{idProduct}==") == product]
        assert matching, f"no udev rule for the readers {vendor}:{product} of {PI_CONFIG.name}"
        for rule in matching:
            assert rule["GROUP="] == "plugdev"
            assert rule["MODE="] == "0660"
            assert rule["ENV{DEVTYPE}=="] == "usb_device"  # the device node, not each interface


def test_the_guide_installs_what_the_unit_and_rules_expect() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    service = unit_sections()["Service"]
    for needed in ("python3-venv", "python3-lgpio", "libusb-1.0-0", "usermod -aG dialout,plugdev,gpio table",
                   "/etc/udev/rules.d/", "/etc/table-runtime/env", "TABLE_MQTT_PASSWORD", "TABLE_SUPERVISOR_PIN",
                   "TABLE_PIT_TOKEN", "chips --db", "systemctl enable --now table-runtime",
                   "journalctl -u table-runtime", "http://127.0.0.1:8080", INSTALLED_COMMAND.rsplit("/", 2)[0]):
        assert needed in guide, needed
    assert service["EnvironmentFile"][0].lstrip("-") in guide
    parser = configparser.ConfigParser()  # the guide's wayfire.ini snippet is valid INI
    snippet = re.search(r"```ini\n(.*?)```", guide, re.S)
    assert snippet is not None
    parser.read_string(snippet.group(1))
    assert "http://127.0.0.1:8080" in parser["autostart"]["table"]


def test_the_guide_walks_a_pi_5_through_watchdog_journald_metrics_and_kiosk() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    pi = tomllib.loads(PI_CONFIG.read_text(encoding="utf-8"))
    service = unit_sections()["Service"]
    assert f"WatchdogSec={service['WatchdogSec'][0]}" in guide and "Type=notify" in guide
    assert "RestartPreventExitStatus=2" in guide and "status=2" in guide
    assert "journalctl -u table-runtime -b -p warning" in guide and "SyslogLevelPrefix=yes" in guide
    assert f"http://127.0.0.1:{pi['metrics']['port']}/metrics" in guide
    for metric in ("table_device_online", "table_alarms_open", "table_feed_backlog_rows", "table_broker_connected",
                   "table_journal_commit_seconds", "table_reconnects_total", "table_clock_synchronised"):
        assert metric in guide, metric
    assert f'gpio_chip = "{pi["devices"]["gpio_chip"]}"' in guide
    assert "sync_wait_seconds" in guide and "docs/journal.md" in guide
    for kiosk in ("do_blanking 1", "HideCursor", "wlr-randr", "mapToOutput"):
        assert kiosk in guide, kiosk
