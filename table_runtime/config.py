"""The table's configuration: one TOML file, loaded once into one frozen, typed object.

`load_config(path)` reads the file, applies the environment overrides for
secrets and checks everything before returning a `TableConfig`; every problem
found (unknown key, wrong type, bad value, pin used twice, unknown zone, missing
box lamp...) is collected and raised together as one `ConfigInvalidError`,
each naming its dotted key (``pins.split``, ``devices.chip_readers[1].antennas.4``).

Layout (see ``configs/demo.toml`` and ``configs/pi.toml``)::

    table_id = "T01"                       # letters, digits, - and _ (used in MQTT topics)
    data_dir = "/var/lib/table-runtime"    # journal.db lives here
    [rules]     profile + overrides        # table_runtime.game.rules.rules_from_mapping
    [limits]    min_bet_cents, max_bet_cents
    [devices]   shoe (URL), panel_pin_factory, gpio_chip, chip_registry, [[devices.chip_readers]]
    [pins]      BCM numbers of buttons, box_lamps (one per box), tower lights, buzzer; timings
    [mqtt]      url (absent: no feed), prefix, username, password_file, ca_file, cert_file, key_file, client_id
    [display]   host, port, language, supervisor_pin_file, pit_token_file
    [metrics]   host, port                 # the Prometheus endpoint (absent: none; needs the `metrics` extra)
    [clock]     sync_wait_seconds          # how long start-up waits for a synchronised clock (docs/journal.md)

Relative paths are relative to the configuration file's directory. Secrets come
from the environment first, then from their files: ``TABLE_MQTT_PASSWORD``,
``TABLE_SUPERVISOR_PIN``, ``TABLE_PIT_TOKEN``.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

from table_runtime.errors import ConfigError
from table_runtime.game.commands import PANEL_BUTTONS
from table_runtime.game.rules import RuleOptions, TableLimits, rules_from_mapping
from table_runtime.journal import journal_path
from table_runtime.text_files import InputFileError, read_text

ENV_MQTT_PASSWORD = "TABLE_MQTT_PASSWORD"
ENV_SUPERVISOR_PIN = "TABLE_SUPERVISOR_PIN"
ENV_PIT_TOKEN = "TABLE_PIT_TOKEN"

BUTTONS = PANEL_BUTTONS  # the panel's buttons, named in game/commands.py
SHOE_SCHEMES = ("serial", "sim", "socket", "rfc2217", "loop")
READER_SCHEMES = ("usb", "sim")
PIN_FACTORIES = ("lgpio", "rpigpio", "pigpio", "native", "mock")
LANGUAGES = ("fr", "en")
_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
_TOPIC_PREFIX = re.compile(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*")
_BCM_PINS = range(28)  # GPIO0..GPIO27 on the 40-pin header

T = TypeVar("T")


class ConfigInvalidError(ConfigError):
    """Every problem of one configuration file; `problems` holds one ConfigError per key."""

    def __init__(self, source: Path, problems: list[ConfigError]) -> None:
        lines = "\n".join(f"  {problem}" for problem in problems)
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        super().__init__(str(source), f"{count}:\n{lines}")
        self.source = source
        self.problems = tuple(problems)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChipReaderConfig:
    """One RFID reader: where to find it and which zone each antenna watches."""

    name: str
    url: str  # usb://VVVV:PPPP[?serial=S] or sim://reader?...
    antennas: Mapping[int, str]  # antenna number -> zone name
    vendor_id: int | None = None
    product_id: int | None = None
    serial_number: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DevicesConfig:
    shoe: str  # serial:///dev/table-shoe, sim://shoe?seed=7, ...
    chip_readers: tuple[ChipReaderConfig, ...]
    panel_pin_factory: str | None = None  # None: gpiozero's default (GPIOZERO_PIN_FACTORY)
    gpio_chip: int | str | None = None  # lgpio's chip: a number (/dev/gpiochipN) or its label ("pinctrl-rp1")
    chip_registry: Path | None = None
    casino_id: int | None = None  # the casino whose chips the table accepts; None: the one the registry's chips carry


@dataclass(frozen=True, slots=True, kw_only=True)
class PanelPins:
    """BCM pin numbers and timings of the dealer panel (buttons, box lamps, tower, buzzer)."""

    deal: int
    next: int
    double: int
    split: int
    undo: int
    confirm: int
    box_lamps: tuple[int, ...]  # box 1 first
    tower_green: int
    tower_amber: int
    tower_red: int
    buzzer: int
    debounce_seconds: float = 0.05
    void_hold_seconds: float = 3.0
    buttons_pull_up: bool = True  # buttons wired to ground

    @property
    def buttons(self) -> dict[str, int]:
        """Command name (DEAL, NEXT, ...) -> pin."""
        return {name: getattr(self, name.lower()) for name in BUTTONS}


@dataclass(frozen=True, slots=True, kw_only=True)
class MqttConfig:
    url: str | None = None  # mqtt://host:1883 or mqtts://host:8883; None: no feed
    prefix: str = "casino"
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    client_id: str = ""

    @property
    def enabled(self) -> bool:
        return self.url is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class DisplayConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    language: str = "fr"
    supervisor_pin: str | None = field(default=None, repr=False)  # None: supervisor actions refused
    pit_token: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class MetricsConfig:
    """The Prometheus endpoint (table_runtime/metrics.py); `port` None: no endpoint."""

    host: str = "127.0.0.1"
    port: int | None = None

    @property
    def enabled(self) -> bool:
        return self.port is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class ClockConfig:
    """How start-up treats a clock not yet synchronised (a Pi has no real-time clock; docs/journal.md)."""

    sync_wait_seconds: float = 120.0  # 0: do not wait


@dataclass(frozen=True, slots=True, kw_only=True)
class TableConfig:
    """Everything one table runs with; built by `load_config`, passed down explicitly."""

    source: Path
    table_id: str
    rules: RuleOptions
    limits: TableLimits
    data_dir: Path
    devices: DevicesConfig
    zones: tuple[str, ...]  # every zone an antenna reads, box order
    pins: PanelPins
    mqtt: MqttConfig
    display: DisplayConfig
    metrics: MetricsConfig = MetricsConfig()
    clock: ClockConfig = ClockConfig()

    @property
    def journal_path(self) -> Path:
        return journal_path(self.data_dir)

    def replace(self, **changes: Any) -> TableConfig:
        return dataclasses.replace(self, **changes)


def zone_names(boxes: int) -> tuple[str, ...]:
    """All zone names of a table with `boxes` boxes, box order."""
    names: list[str] = []
    for box in range(1, boxes + 1):
        names += [f"box{box}", f"box{box}.behind", f"box{box}.insurance"]
    return tuple(names)


def zone_box(zone: str) -> int:
    """The box number a zone name belongs to (box3.behind -> 3)."""
    return int(zone.split(".", 1)[0].removeprefix("box"))


class _Reader:
    """Walks the TOML document, remembering which keys were read and every problem met."""

    def __init__(self, base_dir: Path, environ: Mapping[str, str]) -> None:
        self.base_dir = base_dir
        self.environ = environ
        self.problems: list[ConfigError] = []

    def problem(self, key: str, message: str) -> None:
        self.problems.append(ConfigError(key, message))

    def table(self, document: Mapping[str, Any], key: str, prefix: str, *, allowed: set[str]) -> dict[str, Any]:
        value = document.get(key, {})
        if not isinstance(value, dict):
            self.problem(_join(prefix, key), f"expected a table, not {_kind(value)}")
            return {}
        self.unknown(value, _join(prefix, key), allowed)
        return value

    def unknown(self, table: Mapping[str, Any], prefix: str, allowed: set[str]) -> None:
        for key in sorted(set(table) - allowed):
            self.problem(_join(prefix, key), f"unknown key; known: {', '.join(sorted(allowed))}")

    def value(self, table: Mapping[str, Any], key: str, prefix: str, kind: type[T], default: T) -> T:
        if key not in table:
            return default
        value = table[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            self.problem(_join(prefix, key), f"expected {_kind_name(kind)}, not {_kind(value)} {value!r}")
            return default
        return value

    def required(self, table: Mapping[str, Any], key: str, prefix: str, kind: type[T]) -> T | None:
        if key not in table:
            self.problem(_join(prefix, key), "missing")
            return None
        marker: Any = object()
        value = self.value(table, key, prefix, kind, marker)
        return None if value is marker else value

    def path(self, table: Mapping[str, Any], key: str, prefix: str, *, must_exist: bool) -> Path | None:
        text = self.value(table, key, prefix, str, "")
        if not text:
            return None
        path = self.base_dir / Path(text).expanduser()
        if must_exist and not path.is_file():
            self.problem(_join(prefix, key), f"no such file: {path}")
        return path

    def secret(self, table: Mapping[str, Any], key: str, prefix: str, env: str) -> str | None:
        """The secret from the environment, else from the file named by `key`."""
        if self.environ.get(env):
            return self.environ[env]
        path = self.path(table, key, prefix, must_exist=False)
        if path is None:
            return None
        try:
            return read_text(path).strip() or None
        except InputFileError as error:
            self.problem(_join(prefix, key), str(error))
            return None


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def _kind(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
            dict: "a table"}.get(type(value), type(value).__name__)


def _kind_name(kind: type[Any]) -> str:
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(kind, kind.__name__)


def load_config(path: str | Path, *, environ: Mapping[str, str] | None = None) -> TableConfig:
    """Read, check and freeze a configuration file; `ConfigInvalidError` lists every problem."""
    source = Path(path)
    try:
        document = tomllib.loads(read_text(source))
    except InputFileError as error:
        raise ConfigInvalidError(source, [ConfigError("file", error.where + error.message)]) from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigInvalidError(source, [ConfigError("file", f"not valid TOML: {error}")]) from error
    if not document:
        raise ConfigInvalidError(source, [ConfigError("file", "empty: no table_id, no [devices]; "
                                                              "start from configs/demo.toml or configs/pi.toml")])
    reader = _Reader(source.resolve().parent, os.environ if environ is None else environ)
    config = _build(reader, source, document)
    if reader.problems or config is None:
        raise ConfigInvalidError(source, reader.problems)
    return config


def _build(reader: _Reader, source: Path, document: dict[str, Any]) -> TableConfig | None:
    reader.unknown(document, "", {"table_id", "data_dir", "rules", "limits", "devices", "pins", "mqtt", "display",
                                  "metrics", "clock"})
    table_id = reader.required(document, "table_id", "", str)
    if table_id is not None and not _TABLE_ID.fullmatch(table_id):
        reader.problem("table_id", f"{table_id!r}: 1 to 32 letters, digits, '-' or '_' (it goes into MQTT topics)")
    data_dir_text = reader.required(document, "data_dir", "", str)
    data_dir = reader.base_dir / Path(data_dir_text).expanduser() if data_dir_text else None
    rules = _rules(reader, document)
    limits = _limits(reader, document)
    boxes = rules.boxes if rules is not None else _raw_boxes(document)
    devices, zones = _devices(reader, document, boxes)
    pins = _pins(reader, document, boxes)
    mqtt = _mqtt(reader, document, table_id or "")
    display = _display(reader, document)
    metrics = _metrics(reader, document)
    clock = _clock(reader, document)
    if (table_id is None or data_dir is None or rules is None or limits is None or devices is None
            or pins is None or reader.problems):
        return None
    return TableConfig(source=source, table_id=table_id, rules=rules, limits=limits, data_dir=data_dir,
                       devices=devices, zones=zones, pins=pins, mqtt=mqtt, display=display,
                       metrics=metrics, clock=clock)


def _rules(reader: _Reader, document: dict[str, Any]) -> RuleOptions | None:
    table = document.get("rules", {})
    if not isinstance(table, dict):
        reader.problem("rules", f"expected a table, not {_kind(table)}")
        return None
    try:
        return rules_from_mapping(table)
    except ConfigError as error:
        reader.problems.append(error)
        return None


def _raw_boxes(document: dict[str, Any]) -> int:
    """The box count to check lamps and zones against when the rules themselves are wrong."""
    table = document.get("rules")
    boxes = table.get("boxes") if isinstance(table, dict) else None
    return boxes if isinstance(boxes, int) and not isinstance(boxes, bool) and 1 <= boxes <= 7 else 7


def _limits(reader: _Reader, document: dict[str, Any]) -> TableLimits | None:
    table = reader.table(document, "limits", "", allowed={"min_bet_cents", "max_bet_cents"})
    defaults = TableLimits()
    low = reader.value(table, "min_bet_cents", "limits", int, defaults.min_bet_cents)
    high = reader.value(table, "max_bet_cents", "limits", int, defaults.max_bet_cents)
    if low <= 0:
        reader.problem("limits.min_bet_cents", f"{low}: must be more than 0 cents")
        return None
    if high < low:
        reader.problem("limits.max_bet_cents", f"{high} is below the minimum {low}")
        return None
    return TableLimits(min_bet_cents=low, max_bet_cents=high)


def _devices(reader: _Reader, document: dict[str, Any], boxes: int) -> tuple[DevicesConfig | None, tuple[str, ...]]:
    prefix = "devices"
    table = reader.table(document, "devices", "", allowed={"shoe", "chip_readers", "panel_pin_factory",
                                                             "gpio_chip", "chip_registry", "casino_id"})
    shoe = reader.required(table, "shoe", prefix, str)
    if shoe is not None:
        _check_shoe(reader, shoe)
    factory = reader.value(table, "panel_pin_factory", prefix, str, "") or None
    if factory is not None and factory not in PIN_FACTORIES:
        reader.problem("devices.panel_pin_factory", f"{factory!r} is not one of {', '.join(PIN_FACTORIES)}")
    gpio_chip = _gpio_chip(reader, table, factory)
    registry = reader.path(table, "chip_registry", prefix, must_exist=False)
    casino_id = reader.value(table, "casino_id", prefix, int, 0) if "casino_id" in table else None
    if casino_id is not None and not 0 <= casino_id <= 0xFFFF:
        reader.problem("devices.casino_id", f"{casino_id} is not a casino id of the chips' tags (0..65535)")
    raw_readers = table.get("chip_readers", [])
    if not isinstance(raw_readers, list):
        reader.problem("devices.chip_readers", "expected an array of tables ([[devices.chip_readers]])")
        raw_readers = []
    valid_zones = set(zone_names(boxes))
    readers: list[ChipReaderConfig] = []
    seen_urls: dict[str, str] = {}
    zones: set[str] = set()
    for index, raw in enumerate(raw_readers):
        key = f"devices.chip_readers[{index}]"
        chip_reader = _chip_reader(reader, key, raw, index, valid_zones, boxes)
        if chip_reader is None:
            continue
        if chip_reader.url in seen_urls:
            reader.problem(f"{key}.url", f"{chip_reader.url} is also {seen_urls[chip_reader.url]}")
        seen_urls.setdefault(chip_reader.url, key)
        zones.update(chip_reader.antennas.values())
        readers.append(chip_reader)
    for box in range(1, boxes + 1):
        if f"box{box}" not in zones:
            reader.problem("devices.chip_readers", f"no antenna reads box{box} (the seated stake of box {box})")
    ordered = tuple(name for name in zone_names(boxes) if name in zones)
    if shoe is None:
        return None, ordered
    return DevicesConfig(shoe=shoe, chip_readers=tuple(readers), panel_pin_factory=factory, gpio_chip=gpio_chip,
                         chip_registry=registry, casino_id=casino_id), ordered


def _gpio_chip(reader: _Reader, table: Mapping[str, Any], factory: str | None) -> int | str | None:
    """`devices.gpio_chip`: which /dev/gpiochip the lgpio factory opens, by number or by label."""
    if "gpio_chip" not in table:
        return None
    key = "devices.gpio_chip"
    chip = table["gpio_chip"]
    if isinstance(chip, bool) or not isinstance(chip, (int, str)):
        reader.problem(key, f"expected a chip number or label, not {_kind(chip)} {chip!r}")
        return None
    if isinstance(chip, int) and not 0 <= chip <= 255:
        reader.problem(key, f"{chip}: a gpiochip number is 0 to 255")
        return None
    if isinstance(chip, str) and not re.fullmatch(r"[\w.@,:-]{1,31}", chip):
        reader.problem(key, f"{chip!r}: a chip label, as `gpiodetect` shows it (e.g. \"pinctrl-rp1\")")
        return None
    if factory != "lgpio":
        reader.problem(key, f"only the lgpio pin factory takes a chip; set devices.panel_pin_factory = \"lgpio\" "
                            f"(it is {factory or 'unset'})")
    return chip


def _chip_reader(reader: _Reader, key: str, raw: Any, index: int, valid_zones: set[str],
                 boxes: int) -> ChipReaderConfig | None:
    if not isinstance(raw, dict):
        reader.problem(key, f"expected a table, not {_kind(raw)}")
        return None
    reader.unknown(raw, key, {"name", "url", "vendor_id", "product_id", "serial", "antennas"})
    name = reader.value(raw, "name", key, str, f"reader{index + 1}")
    url = reader.value(raw, "url", key, str, "")
    vendor_id = reader.value(raw, "vendor_id", key, int, -1)
    product_id = reader.value(raw, "product_id", key, int, -1)
    serial = reader.value(raw, "serial", key, str, "") or None
    if url and ("vendor_id" in raw or "product_id" in raw):
        reader.problem(key, "give either url or vendor_id/product_id, not both")
        return None
    if not url:
        for id_key, number in (("vendor_id", vendor_id), ("product_id", product_id)):
            if id_key not in raw:
                reader.problem(f"{key}.{id_key}", "missing (or give url)")
            elif not 0 <= number <= 0xFFFF:
                reader.problem(f"{key}.{id_key}", f"{number}: a USB id is 0 to 0xFFFF")
        if not (0 <= vendor_id <= 0xFFFF and 0 <= product_id <= 0xFFFF):
            return None
        url = f"usb://{vendor_id:04x}:{product_id:04x}" + (f"?serial={serial}" if serial else "")
    elif not _check_url(reader, f"{key}.url", url, READER_SCHEMES):
        return None
    else:
        parts = urlsplit(url)
        if parts.scheme == "usb":
            ids = _usb_ids(parts.netloc)
            if ids is None:
                reader.problem(f"{key}.url", f"{url}: a USB reader URL is usb://VVVV:PPPP[?serial=S] (hex ids)")
                return None
            vendor_id, product_id = ids
            serial = serial or parse_qs(parts.query).get("serial", [None])[0]
    antennas = _antennas(reader, f"{key}.antennas", raw.get("antennas"), valid_zones, boxes)
    return ChipReaderConfig(name=name, url=url, antennas=antennas,
                            vendor_id=vendor_id if vendor_id >= 0 else None,
                            product_id=product_id if product_id >= 0 else None, serial_number=serial)


def _usb_ids(netloc: str) -> tuple[int, int] | None:
    match = re.fullmatch(r"([0-9A-Fa-f]{1,4}):([0-9A-Fa-f]{1,4})", netloc)
    return (int(match[1], 16), int(match[2], 16)) if match else None


def _antennas(reader: _Reader, key: str, raw: Any, valid_zones: set[str], boxes: int) -> dict[int, str]:
    if raw is None:
        reader.problem(key, "missing: map antenna numbers to zones, e.g. 1 = \"box1\"")
        return {}
    if not isinstance(raw, dict):
        reader.problem(key, f"expected a table of antenna = \"zone\", not {_kind(raw)}")
        return {}
    antennas: dict[int, str] = {}
    for number_text, zone in raw.items():
        antenna_key = f"{key}.{number_text}"
        if not number_text.isdigit() or not 0 < int(number_text) <= 64:
            reader.problem(antenna_key, "antenna numbers are whole numbers from 1 to 64")
            continue
        if not isinstance(zone, str):
            reader.problem(antenna_key, f"expected a zone name, not {_kind(zone)}")
            continue
        if zone not in valid_zones:
            reader.problem(antenna_key, f"unknown zone {zone!r}: zones are boxN, boxN.behind, boxN.insurance "
                                        f"for N from 1 to {boxes}")
            continue
        antennas[int(number_text)] = zone
    return dict(sorted(antennas.items()))


def _check_shoe(reader: _Reader, url: str) -> None:
    """A device path (``/dev/table-shoe``, as the driver takes it) or a URL; the line settings are the protocol's."""
    if url.startswith("/"):
        return
    if not _check_url(reader, "devices.shoe", url, SHOE_SCHEMES):
        return
    parts = urlsplit(url)
    if parts.scheme == "serial" and parts.query not in ("", "baudrate=115200"):
        reader.problem("devices.shoe", f"{url!r}: the shoe protocol fixes the line at 115200 baud 8N1 "
                                       f"(docs/protocols/shoe.md); remove '?{parts.query}'")


def _check_url(reader: _Reader, key: str, url: str, schemes: tuple[str, ...]) -> bool:
    parts = urlsplit(url)
    if parts.scheme not in schemes:
        reader.problem(key, f"{url!r}: the scheme must be one of {', '.join(s + '://' for s in schemes)}")
        return False
    if parts.scheme == "serial" and not parts.path:
        reader.problem(key, f"{url!r}: name the port, e.g. serial:///dev/table-shoe")
        return False
    return True


def _pins(reader: _Reader, document: dict[str, Any], boxes: int) -> PanelPins | None:
    names = [name.lower() for name in BUTTONS] + ["tower_green", "tower_amber", "tower_red", "buzzer"]
    allowed = {*names, "box_lamps", "debounce_seconds", "void_hold_seconds", "buttons_pull_up"}
    table = reader.table(document, "pins", "", allowed=allowed)
    used: dict[int, str] = {}

    def take_pin(key: str, value: int | None) -> int | None:
        if value is None:
            return None
        if value not in _BCM_PINS:
            reader.problem(key, f"{value}: not a BCM GPIO number (0 to 27)")
            return None
        if value in used:
            reader.problem(key, f"BCM {value} is also {used[value]}")
            return None
        used[value] = key
        return value

    single = {name: take_pin(f"pins.{name}", reader.required(table, name, "pins", int)) for name in names}
    lamps: list[int] = []
    raw_lamps = table.get("box_lamps")
    if raw_lamps is None:
        reader.problem("pins.box_lamps", f"missing: one lamp pin per box, {boxes} of them")
    elif not isinstance(raw_lamps, list):
        reader.problem("pins.box_lamps", f"expected an array of {boxes} pins, not {_kind(raw_lamps)}")
    else:
        for index, pin in enumerate(raw_lamps):
            key = f"pins.box_lamps[{index}]"
            if isinstance(pin, bool) or not isinstance(pin, int):
                reader.problem(key, f"expected an integer, not {_kind(pin)} {pin!r}")
            elif (checked := take_pin(key, pin)) is not None:
                lamps.append(checked)
        if len(raw_lamps) < boxes:
            missing = ", ".join(f"box{box}" for box in range(len(raw_lamps) + 1, boxes + 1))
            reader.problem("pins.box_lamps", f"{len(raw_lamps)} lamps for {boxes} boxes: no lamp for {missing}")
        elif len(raw_lamps) > boxes:
            reader.problem("pins.box_lamps", f"{len(raw_lamps)} lamps for {boxes} boxes (rules.boxes)")
    debounce = reader.value(table, "debounce_seconds", "pins", float, 0.05)
    if not 0.0 < debounce <= 1.0:
        reader.problem("pins.debounce_seconds", f"{debounce}: more than 0 and at most 1 second")
    hold = reader.value(table, "void_hold_seconds", "pins", float, 3.0)
    if not 0.5 <= hold <= 30.0:
        reader.problem("pins.void_hold_seconds", f"{hold}: from 0.5 to 30 seconds")
    pull_up = reader.value(table, "buttons_pull_up", "pins", bool, True)
    values = [single[name] for name in names]
    if any(value is None for value in values) or len(lamps) != boxes:
        return None
    chosen = {name: value for name, value in single.items() if value is not None}
    return PanelPins(**chosen, box_lamps=tuple(lamps), debounce_seconds=debounce, void_hold_seconds=hold,
                     buttons_pull_up=pull_up)


def _mqtt(reader: _Reader, document: dict[str, Any], table_id: str) -> MqttConfig:
    prefix = "mqtt"
    table = reader.table(document, "mqtt", "", allowed={"url", "prefix", "username", "password_file", "ca_file",
                                                        "cert_file", "key_file", "client_id"})
    url = reader.value(table, "url", prefix, str, "") or None
    if url is not None:
        parts = urlsplit(url)
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            reader.problem("mqtt.url", f"{url!r}: mqtt://host[:port] or mqtts://host[:port]")
        else:
            try:
                parts.port  # noqa: B018 - raises on a bad port
            except ValueError as error:
                reader.problem("mqtt.url", f"{url!r}: {error}")
    topic_prefix = reader.value(table, "prefix", prefix, str, "casino")
    if not _TOPIC_PREFIX.fullmatch(topic_prefix):
        reader.problem("mqtt.prefix", f"{topic_prefix!r}: topic levels of letters, digits, '-', '_' and '/'")
    ca_file = reader.path(table, "ca_file", prefix, must_exist=True)
    cert_file = reader.path(table, "cert_file", prefix, must_exist=True)
    key_file = reader.path(table, "key_file", prefix, must_exist=True)
    if (cert_file is None) != (key_file is None):
        reader.problem("mqtt.key_file" if key_file is None else "mqtt.cert_file",
                       "a client certificate needs both cert_file and key_file")
    if url is not None and urlsplit(url).scheme == "mqtt" and (ca_file or cert_file):
        reader.problem("mqtt.url", "TLS files are set but the URL is mqtt://; use mqtts://")
    return MqttConfig(
        url=url,
        prefix=topic_prefix,
        username=reader.value(table, "username", prefix, str, "") or None,
        password=reader.secret(table, "password_file", prefix, ENV_MQTT_PASSWORD),
        ca_file=ca_file,
        cert_file=cert_file,
        key_file=key_file,
        client_id=reader.value(table, "client_id", prefix, str, "") or f"table-{table_id}",
    )


def _display(reader: _Reader, document: dict[str, Any]) -> DisplayConfig:
    prefix = "display"
    table = reader.table(document, "display", "", allowed={"host", "port", "language", "supervisor_pin_file",
                                                           "pit_token_file"})
    host = reader.value(table, "host", prefix, str, "127.0.0.1")
    port = reader.value(table, "port", prefix, int, 8080)
    if not 0 <= port <= 65535:
        reader.problem("display.port", f"{port}: a TCP port is 0 to 65535")
    language = reader.value(table, "language", prefix, str, "fr")
    if language not in LANGUAGES:
        reader.problem("display.language", f"{language!r} is not one of {', '.join(LANGUAGES)}")
    pin = reader.secret(table, "supervisor_pin_file", prefix, ENV_SUPERVISOR_PIN)
    if pin is not None and not (pin.isdigit() and 4 <= len(pin) <= 8):
        source = ENV_SUPERVISOR_PIN if reader.environ.get(ENV_SUPERVISOR_PIN) else "display.supervisor_pin_file"
        reader.problem(source, "the supervisor PIN is 4 to 8 digits")
    token = reader.secret(table, "pit_token_file", prefix, ENV_PIT_TOKEN)
    if token is not None and len(token) < 16:
        source = ENV_PIT_TOKEN if reader.environ.get(ENV_PIT_TOKEN) else "display.pit_token_file"
        reader.problem(source, "the pit token is at least 16 characters")
    return DisplayConfig(host=host, port=port, language=language, supervisor_pin=pin, pit_token=token)


def _metrics(reader: _Reader, document: dict[str, Any]) -> MetricsConfig:
    prefix = "metrics"
    if prefix not in document:
        return MetricsConfig()
    table = reader.table(document, prefix, "", allowed={"host", "port"})
    host = reader.value(table, "host", prefix, str, "127.0.0.1")
    port = reader.required(table, "port", prefix, int)
    if port is not None and not 0 <= port <= 65535:
        reader.problem("metrics.port", f"{port}: a TCP port is 0 to 65535")
    display = document.get("display", {})
    if port and isinstance(display, dict) and port == display.get("port", DisplayConfig().port):
        reader.problem("metrics.port", f"{port} is also display.port")
    return MetricsConfig(host=host, port=port)


def _clock(reader: _Reader, document: dict[str, Any]) -> ClockConfig:
    table = reader.table(document, "clock", "", allowed={"sync_wait_seconds"})
    wait = reader.value(table, "sync_wait_seconds", "clock", float, ClockConfig().sync_wait_seconds)
    if not 0 <= wait <= 3600:
        reader.problem("clock.sync_wait_seconds", f"{wait}: 0 (do not wait) to 3600 seconds")
        wait = ClockConfig().sync_wait_seconds
    return ClockConfig(sync_wait_seconds=wait)


def describe(config: TableConfig) -> str:
    """A one-paragraph summary for `check-config` (no secrets)."""
    limits = config.limits
    readers = config.devices.chip_readers
    mqtt = f"mqtt {config.mqtt.url} prefix {config.mqtt.prefix}" if config.mqtt.enabled else "mqtt off"
    secrets = [name for name, value in (("supervisor PIN", config.display.supervisor_pin),
                                        ("pit token", config.display.pit_token),
                                        ("mqtt password", config.mqtt.password)) if value]
    return (
        f"table {config.table_id}: rules {config.rules.profile} ({config.rules.boxes} boxes, "
        f"{config.rules.decks} decks), limits {limits.min_bet_cents / 100:.2f} to {limits.max_bet_cents / 100:.2f}; "
        f"data {config.data_dir}; shoe {config.devices.shoe}; {len(readers)} chip reader"
        f"{'s' if len(readers) != 1 else ''} reading {len(config.zones)} zones; "
        f"pins from {config.devices.panel_pin_factory or 'the default factory'}"
        f"{'' if config.devices.gpio_chip is None else f' on chip {config.devices.gpio_chip!r}'}; {mqtt}; "
        f"display {config.display.host}:{config.display.port} ({config.display.language}); "
        f"{f'metrics {config.metrics.host}:{config.metrics.port}' if config.metrics.enabled else 'metrics off'}; "
        f"secrets: {', '.join(secrets) or 'none'}"
    )
