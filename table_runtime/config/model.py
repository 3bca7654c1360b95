"""The configuration's typed model: the frozen dataclasses `load_config` builds, and the names they use.

The sections are read and checked by `table_runtime.config.loader` and its section readers; this module holds
only what a running table is given, plus the fixed vocabularies (buttons, URL schemes, pin factories,
languages, zone names) both the readers and the rest of the table refer to.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_runtime.config.player_cards import PlayerCardsConfig
from table_runtime.config.release import ReleaseConfig
from table_runtime.config.staff import StaffConfig
from table_runtime.errors import ConfigError
from table_runtime.game.commands import PANEL_BUTTONS
from table_runtime.game.hyper_settlement import HYPER_ZONES
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.journal import CHECKPOINT_ROWS, RETRY_SECONDS, journal_path

ENV_MQTT_PASSWORD = "TABLE_MQTT_PASSWORD"
ENV_SUPERVISOR_PIN = "TABLE_SUPERVISOR_PIN"
ENV_PIT_TOKEN = "TABLE_PIT_TOKEN"

BUTTONS = PANEL_BUTTONS  # the panel's buttons, named in game/commands.py
SHOE_SCHEMES = ("serial", "sim", "socket", "rfc2217", "loop")
READER_SCHEMES = ("usb", "sim", "feig", "feig+tcp", "feig+usb")  # feig: FEIG ISO-Host readers (docs/protocols/feig.md)
PIN_FACTORIES = ("lgpio", "rpigpio", "pigpio", "native", "mock")
LANGUAGES = ("fr", "en")



class ConfigInvalidError(ConfigError):
    """Every problem of one configuration file; `problems` holds one ConfigError per key. `devices` and `metrics`:
    those sections as read when they had no problem of their own (check-config checks what they open too, so a
    file's every problem is found in one pass), else None."""

    def __init__(self, source: Path, problems: list[ConfigError], *, devices: DevicesConfig | None = None,
                 metrics: MetricsConfig | None = None) -> None:
        lines = "\n".join(f"  {problem}" for problem in problems)
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        super().__init__(str(source), f"{count}:\n{lines}")
        self.source = source
        self.problems = tuple(problems)
        self.devices = devices
        self.metrics = metrics


@dataclass(frozen=True, slots=True, kw_only=True)
class ChipReaderConfig:
    """One RFID reader: where to find it and which zone each antenna watches."""

    name: str
    url: str  # usb://VVVV:PPPP[?serial=S], sim://reader?..., feig:///dev/..., feig+tcp://HOST:PORT, feig+usb://
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
    surrender: int | None = None  # optional: the SURRENDER button where the casino offers it (a config before has none)

    @property
    def buttons(self) -> dict[str, int]:
        """Command name (DEAL, NEXT, ...) -> pin, for the buttons wired."""
        return {name: pin for name in BUTTONS if (pin := getattr(self, name.lower())) is not None}


@dataclass(frozen=True, slots=True, kw_only=True)
class MqttConfig:
    url: str | None = None  # mqtt://host:1883 or mqtts://host:8883; None: no feed
    fallback_urls: tuple[str, ...] = ()  # tried in order while `url` cannot be used
    failback_interval: float = 30.0  # seconds between two tries of `url` while on a fallback
    prefix: str = "casino"
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    client_id: str = ""
    replay_secret: str | None = field(default=None, repr=False)  # from the variable replay_secret_env names
    head_key: str | None = field(default=None, repr=False)  # the table's head key, from the variable head_key_env names
    rows_per_message: int = 1  # 1: an events message a row (version 1); more: JournalRows (docs/feed/README.md)

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
    allowed_hosts: tuple[str, ...] = ()  # Host names the page may be asked by, besides loopback and `host`


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
class JournalConfig:
    """How often the journal is checkpointed (docs/journal.md "Checkpoints") and, while it cannot be written, tried
    again (docs/journal.md "When the journal cannot be written")."""

    checkpoint_rows: int = CHECKPOINT_ROWS  # between two checkpoints: a start replays at most this many and a round
    retry_seconds: float = RETRY_SECONDS  # while the journal cannot be written (full card): how often it is tried again


@dataclass(frozen=True, slots=True, kw_only=True)
class SeanceConfig:
    """The séance (docs/accounts.md): whether the table deals only in an open séance (off: a table configured
    before the séance deals as it did)."""

    required: bool = False


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
    journal: JournalConfig = JournalConfig()
    seance: SeanceConfig = SeanceConfig()
    player_cards: PlayerCardsConfig = field(default_factory=PlayerCardsConfig)  # config/player_cards.py
    staff: StaffConfig = field(default_factory=StaffConfig)  # config/staff.py (none: no employee known)
    release: ReleaseConfig = field(default_factory=ReleaseConfig)  # config/release.py: the installed program's check

    @property
    def journal_path(self) -> Path:
        return journal_path(self.data_dir)

    def replace(self, **changes: Any) -> TableConfig:
        return dataclasses.replace(self, **changes)


def zone_names(boxes: int, *, hyper: bool = False) -> tuple[str, ...]:
    """All zone names of a table with `boxes` boxes, box order; with `hyper`, then the seven cases of the hyper
    black jack field along the insurance line (55-4 6°): ``hyper.17`` ... ``hyper.21``, ``hyper.blackjack``,
    ``hyper.bust``."""
    names: list[str] = []
    for box in range(1, boxes + 1):
        names += [f"box{box}", f"box{box}.behind", f"box{box}.insurance"]
    if hyper:
        names += list(HYPER_ZONES)
    return tuple(names)


def zone_box(zone: str) -> int:
    """The box number a zone name belongs to (box3.behind -> 3)."""
    return int(zone.split(".", 1)[0].removeprefix("box"))
