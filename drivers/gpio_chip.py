"""Which GPIO chip holds the 40-pin header's lines, and opening the dealer panel's pin factory to prove it works.

On a Raspberry Pi 5 the header's lines belong to the RP1 chip, labelled
``pinctrl-rp1``. Kernels before 6.6.45 number it ``/dev/gpiochip4``; later ones
``/dev/gpiochip0`` (with ``gpiochip4`` a link to it, raspberrypi/linux#6144).
`devices.gpio_chip` names the chip by number or, robust to that renumbering,
by label; `resolve_chip` finds the number by asking each ``/dev/gpiochipN``
for its label (the ``GPIO_GET_CHIPINFO_IOCTL`` of linux/gpio.h, what
``gpiodetect`` prints), with no GPIO library.

`open_pin_factory` builds the configured gpiozero factory on that chip and
closes it again: `check-config` on the Pi fails with one line when the library
is missing, the chip does not exist or the user may not open it.
"""

from __future__ import annotations

import fcntl
import os
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drivers.dealer_panel import PanelDeviceError, pin_factory_for

# struct gpiochip_info { char name[32]; char label[32]; __u32 lines; }  (linux/gpio.h)
_CHIPINFO = struct.Struct("32s32sI")
GPIO_GET_CHIPINFO_IOCTL = (2 << 30) | (_CHIPINFO.size << 16) | (0xB4 << 8) | 0x01  # _IOR(0xB4, 0x01, ...)
_CHIP_NAME = re.compile(r"gpiochip(\d+)")


@dataclass(frozen=True, slots=True)
class GpioChip:
    """One GPIO chip as the kernel describes it."""

    number: int  # N of /dev/gpiochipN
    name: str  # "gpiochip0"
    label: str  # "pinctrl-rp1", "pinctrl-bcm2711", ...
    lines: int


def chip_info(path: Path) -> GpioChip:
    """Ask /dev/gpiochipN who it is; OSError when it cannot be opened (absent, or no permission)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        raw = fcntl.ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, bytes(_CHIPINFO.size))
    finally:
        os.close(fd)
    name, label, lines = _CHIPINFO.unpack(raw)
    number = int(_CHIP_NAME.fullmatch(path.name).group(1))  # type: ignore[union-attr]  # listed by that pattern
    return GpioChip(number=number, name=name.split(b"\0", 1)[0].decode(errors="replace"),
                    label=label.split(b"\0", 1)[0].decode(errors="replace"), lines=int(lines))


def list_chips(dev: Path = Path("/dev")) -> list[GpioChip]:
    """Every GPIO chip this process can open, by number (symbolic links to another chip counted once)."""
    chips: dict[int, GpioChip] = {}
    for path in sorted(dev.glob("gpiochip*")):
        if not _CHIP_NAME.fullmatch(path.name) or path.is_symlink():
            continue
        try:
            chip = chip_info(path)
        except OSError:
            continue
        chips[chip.number] = chip
    return [chips[number] for number in sorted(chips)]


def resolve_chip(setting: int | str, chips: Iterable[GpioChip] | None = None, *, dev: Path = Path("/dev")) -> int:
    """The chip number for `devices.gpio_chip`; PanelDeviceError (one line) when no such chip is there."""
    if isinstance(setting, int):
        path = dev / f"gpiochip{setting}"
        if not path.exists():
            present = ", ".join(p.name for p in sorted(dev.glob("gpiochip*"))) or "none"
            raise PanelDeviceError(f"{path} does not exist (GPIO chips here: {present})")
        return setting
    found = list_chips(dev) if chips is None else list(chips)
    for chip in found:
        if chip.label == setting:
            return chip.number
    present = ", ".join(f"{chip.name} [{chip.label}]" for chip in found) or "none that this user can open"
    raise PanelDeviceError(f"no GPIO chip labelled {setting!r} (chips: {present})")


def open_pin_factory(name: str | None, chip: int | None = None) -> str:
    """Build the configured pin factory (on chip number `chip`) and close it; says what was opened.

    PanelDeviceError (one line) when the factory cannot be built here.
    """
    factory: Any = pin_factory_for(name, chip=chip)
    if factory is None:  # gpiozero's default, as GPIOZERO_PIN_FACTORY (or its preference order) picks it
        from gpiozero import Device

        try:
            factory = Device._default_pin_factory()
        except Exception as error:  # gpiozero raises its own BadPinFactory, or the library's error
            raise PanelDeviceError(f"no GPIO pin factory is usable here: {error}") from error
    try:
        opened = type(factory).__name__
        chip_number = getattr(factory, "chip", None)
        return opened if chip_number is None else f"{opened} on gpiochip{chip_number}"
    finally:
        factory.close()
