"""Which device is simulated and which is the real one: the bench's `--devices FILE` (docs/bench.md).

The file is TOML; every key is optional and defaults to ``"sim"``::

    shoe = "serial:///dev/ttyUSB0"      # a real shoe; chips, panel and broker stay simulated
    chips = "usb://1209:7AB1?serial=R1"  # a real chip reader (or "feig:///dev/serial/by-id/...", a FEIG reader) ...
    chips_registry = "/etc/table/chips.csv"  # ... its casino's registry export (CSV)
    casino_id = 7
    antennas = { 1 = "box1", 2 = "box1.behind", 3 = "box1.insurance" }
    panel = "gpio"                      # the real buttons (gpiozero's default pin factory)
    table_config = "/etc/table/table.toml"  # pins, pin factory, antennas and registry from the table's config
    broker = "mqtt://10.0.0.5:1883"     # a real broker (broker_down/up become operator prompts)
    operator_timeout = 300               # seconds the bench waits for a person to act

A real device is driven by a person: the bench prints what to do ("draw 2
cards", "place 10.00 EUR on box1", "press DEAL") and waits until the runtime
has seen it, exactly as it waits for a simulated device.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_runtime.config import PanelPins, load_config
from table_runtime.errors import ConfigError
from table_runtime.text_files import InputFileError, read_text

DEVICE_KEYS = ("shoe", "chips", "panel", "broker")
KNOWN_KEYS = (*DEVICE_KEYS, "chips_registry", "casino_id", "antennas", "operator_timeout", "table_config")


class DevicesFileError(ConfigError):
    """A bad `--devices` file; `key` names the entry."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceChoice:
    """For each device: ``sim`` or the URL of the real one."""

    shoe: str = "sim"
    chips: str = "sim"
    panel: str = "sim"
    broker: str = "sim"
    chips_registry: Path | None = None
    casino_id: int = 7
    antennas: Mapping[int, str] = field(default_factory=dict)
    operator_timeout: float = 300.0
    pins: PanelPins | None = None  # the real panel's pins (None: the demo's, on mock pins)
    pin_factory: str | None = None  # gpiozero pin factory name for the real panel (None: gpiozero's default)

    def real(self, device: str) -> bool:
        return str(getattr(self, device)) != "sim"

    @property
    def all_simulated(self) -> bool:
        return not any(self.real(device) for device in DEVICE_KEYS)


SIMULATED = DeviceChoice()


def devices_from_mapping(raw: Mapping[str, Any]) -> DeviceChoice:
    unknown = sorted(set(raw) - set(KNOWN_KEYS))
    if unknown:
        raise DevicesFileError(unknown[0], f"unknown key; known: {', '.join(KNOWN_KEYS)}")
    values: dict[str, Any] = {}
    if "table_config" in raw:
        raw = {**_from_table_config(raw["table_config"]), **raw}
        values["pins"] = raw.pop("pins")
        values["pin_factory"] = raw.pop("pin_factory")
        raw.pop("table_config")
    prefixes = {"shoe": ("serial://", "/dev/"), "chips": ("usb://", "feig://", "feig+tcp://", "feig+usb://"),
                "panel": ("gpio",), "broker": ("mqtt://", "mqtts://")}
    for key in DEVICE_KEYS:
        value = raw.get(key, "sim")
        if not isinstance(value, str) or not (value == "sim" or value.startswith(prefixes[key])):
            raise DevicesFileError(key, f"{value!r}: 'sim' or {' / '.join(p + '...' for p in prefixes[key])}")
        values[key] = value
    if values["chips"] != "sim":
        registry = raw.get("chips_registry")
        if not isinstance(registry, str) or not Path(registry).is_file():
            raise DevicesFileError("chips_registry", "a real chip reader needs the casino's registry CSV (a file)")
        values["chips_registry"] = Path(registry)
        antennas = raw.get("antennas")
        if not isinstance(antennas, Mapping) or not antennas:
            raise DevicesFileError("antennas", "a real chip reader needs its antenna -> zone map, e.g. {1 = 'box1'}")
        try:
            values["antennas"] = {int(antenna): str(zone) for antenna, zone in antennas.items()}
        except ValueError as error:
            raise DevicesFileError("antennas", f"antenna numbers are whole numbers: {error}") from error
    casino = raw.get("casino_id", 7)
    if isinstance(casino, bool) or not isinstance(casino, int) or casino < 0:
        raise DevicesFileError("casino_id", f"{casino!r}: a whole number")
    values["casino_id"] = casino
    timeout = raw.get("operator_timeout", 300.0)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise DevicesFileError("operator_timeout", "seconds, positive")
    values["operator_timeout"] = float(timeout)
    return DeviceChoice(**values)


def _from_table_config(path: Any) -> dict[str, Any]:
    """Defaults from the table's own configuration file (table_runtime.config): pins, antennas, registry."""
    if not isinstance(path, str):
        raise DevicesFileError("table_config", "the path of the table's TOML configuration")
    try:
        config = load_config(path)
    except ConfigError as error:
        raise DevicesFileError("table_config", f"{path}: {error}") from error
    defaults: dict[str, Any] = {"pins": config.pins, "pin_factory": config.devices.panel_pin_factory}
    if config.devices.chip_registry is not None:
        defaults["chips_registry"] = str(config.devices.chip_registry)
    if config.devices.chip_readers:
        defaults["antennas"] = dict(config.devices.chip_readers[0].antennas)
    return defaults


def load_devices(spec: str) -> DeviceChoice:
    """``sim`` (everything simulated) or the path of a devices TOML file."""
    if spec == "sim":
        return SIMULATED
    path = Path(spec)
    try:
        document = tomllib.loads(read_text(path))
    except InputFileError as error:
        raise DevicesFileError("--devices", str(error)) from error
    except tomllib.TOMLDecodeError as error:
        raise DevicesFileError("--devices", f"{spec}: not valid TOML: {error}") from error
    if not document:
        raise DevicesFileError("--devices", f"{spec}: empty: name the real devices (docs/bench.md), or --devices sim")
    try:
        return devices_from_mapping(document.get("devices", document))
    except DevicesFileError as error:
        raise DevicesFileError(f"{spec}: {error.key}", error.message) from error


class Operator:
    """The person at a bench with real devices: told what to do, on stderr."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.asked: list[str] = []

    def ask(self, text: str) -> None:
        self.asked.append(text)
        print(f">>> OPERATOR: {text}", file=self.stream, flush=True)
