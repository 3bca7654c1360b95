"""Builds the `TableApp` a configuration describes: journal, controller, devices, chips, display and feed.

`assemble(config)` is a context manager (plain or async) owning everything it
opened: the journal, and the simulators it started for ``sim://`` devices (the
shoe firmware on a pty, the chip readers behind a pyusb backend). Leaving it
stops the simulators and closes the journal, after the app's `run()` returned.

Device URLs (``configs/*.toml``, docs/deployment.md):

- shoe: ``serial:///dev/table-shoe`` or a plain path -> `SerialShoe`;
  ``sim://shoe?seed=N`` -> a simulated shoe started on a pty, resuming the
  journal's shoe (same seed, shoe number and cards drawn), read by a `SerialShoe`.
- chip readers: ``usb://VVVV:PPPP?serial=S`` -> `UsbChipReader` on pyusb's default
  backend (libusb); ``sim://reader?seed=N`` -> the same driver on a simulated reader;
  ``feig:///dev/serial/by-id/...`` or ``feig+tcp://host:10001`` -> `FeigChipReader` (docs/protocols/feig.md).

The ``sim://`` devices come from the package that registers them in the
``smart_table.devices`` entry point group (the simulators; table_runtime/plugins.py):
this module never imports it.
- the chip registry: the SQLite file kept by ``table-runtime chips import`` (or a
  CSV export, read into memory); the casino id is the one its chips carry.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from drivers.chip_reader import ReaderSettings, UsbChipReader
from drivers.dealer_panel import GpioDealerPanel, PanelDeviceError, PanelUsageError, pin_factory_for
from drivers.feig_reader import FeigChipReader
from drivers.feig_settings import FeigSettings
from drivers.gpio_chip import open_pin_factory, resolve_chip
from drivers.player_card import EvdevCardReader
from drivers.ports import ChipReader
from drivers.shoe import SerialShoe
from firmware_bridge.key_events import layout_of_size
from table_runtime.chips.edge import ZoneReporter
from table_runtime.chips.registry import ChipRegistry, RegisteredChip
from table_runtime.config import ChipReaderConfig, MqttConfig, TableConfig
from table_runtime.config.model import DevicesConfig, MetricsConfig
from table_runtime.display.server import DisplayServer
from table_runtime.errors import ConfigError
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import FeedSettings, Secret, fallback_brokers, parse_broker_url
from table_runtime.feed.verify_requests import VerifyResponder
from table_runtime.game.shoe_count import shoe_number_of
from table_runtime.game.table import Table
from table_runtime.journal import Journal
from table_runtime.plugins import SimulatedShoeDevice, StartShoe, reader_opener, shoe_checker, shoe_starter
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.card_link import CardReaderAt, PlayerCardLink
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.heap import collect_start_up_heap
from table_runtime.runtime.program_watch import ProgramWatch
from table_runtime.runtime.registry_follow import RegistryFollower
from table_runtime.runtime.staff_desk import StaffDesk, read_staff

SHOE_HEARTBEAT_TIMEOUT_S = 3.0  # the shoe sends a heartbeat every 0.5 s; three seconds of silence is offline


@dataclass(eq=False)
class AssembledTable:
    """One table built from its configuration: the app, the journal it writes and the simulators it runs.

    `simulated_shoe` and `simulated_readers` are the objects the ``sim://`` entry points returned
    (simulators.shoe.SimulatedShoe, simulators.rfid_backend.SimulatedReader), for tests and the bench.
    """

    config: TableConfig
    app: TableApp
    journal: Journal
    simulated_shoe: Any = None
    simulated_readers: dict[str, Any] = field(default_factory=dict)  # reader name -> simulator
    _stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack, repr=False)

    @property
    def controller(self) -> TableController:
        return self.app.controller

    def close(self) -> None:
        """Stop the simulators and close the journal (after `app.run()` returned)."""
        self._stack.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        self.close()


def assemble(
    config: TableConfig,
    *,
    clock: Callable[[], float] = time.time,
    casino_id: int | None = None,
    with_display: bool = True,
    with_feed: bool = True,
    changed_by: str | None = None,
) -> AssembledTable:
    """Open the journal, replay it, and build every configured device around the controller.

    Use as ``with assemble(config) as table: await table.app.run()`` (or ``async with``).
    Raises `ConfigError` naming the key of a URL, registry or setting that cannot be used;
    whatever was opened before the error is closed again.
    """
    # Everything that can be refused is checked before the journal is opened: a bad table leaves no trace.
    problems = preflight(config, casino_id=casino_id)
    if problems:
        raise problems[0]
    registry = _registry(config)
    if casino_id is None:
        casino_id = config.devices.casino_id
    accepted_casino = casino_id if casino_id is not None else _casino_id(registry)
    simulated_readers: dict[str, Any] = {}
    readers = [_chip_reader(index, reader, simulated_readers)
               for index, reader in enumerate(config.devices.chip_readers)]
    shoe_url = config.devices.shoe
    start_shoe = shoe_starter(shoe_url, "devices.shoe") if urlsplit(shoe_url).scheme == "sim" else None
    panel = GpioDealerPanel(config.pins, pin_factory=pin_factory_for(config.devices.panel_pin_factory,
                                                                      chip=gpio_chip_number(config)))
    settings = feed_settings(config.mqtt, config.table_id) if with_feed and config.mqtt.enabled else None
    stack = contextlib.ExitStack()
    with stack:
        journal = stack.enter_context(Journal.open(config.journal_path))
        controller = TableController(table_id=config.table_id, rules=config.rules, limits=config.limits,
                                     journal=journal, clock=clock, zones=config.zones,
                                     checkpoint_rows=config.journal.checkpoint_rows, staff=config.staff.enabled,
                                     seance_required=config.seance.required, changed_by=changed_by)
        staff = staff_desk(config, controller)
        simulated_shoe = _simulated_shoe(shoe_url, start_shoe, controller.table, stack) if start_shoe else None
        shoe = SerialShoe(simulated_shoe.url if simulated_shoe is not None else shoe_url,
                          heartbeat_timeout=SHOE_HEARTBEAT_TIMEOUT_S)
        reporter = ZoneReporter(config.zones, registry=registry, casino_id=accepted_casino)
        feed = FeedPublisher(settings, journal) if settings is not None else None
        registry_path = config.devices.chip_registry
        follower = (RegistryFollower(registry_path, lambda: _registry(config), reporter, controller)
                    if registry_path is not None else None)
        watch = program_watch(config, controller)
        if feed is not None and watch is not None and settings is not None and settings.replay_secret is not None:
            feed.verification = VerifyResponder(settings.replay_secret.reveal().encode(), feed.topics, watch.verify,
                                                publish_timeout=settings.publish_timeout)
        app = TableApp(controller, shoe=shoe, panel=panel, readers=readers, chips=reporter, feed=feed,
                       registry=follower, journal_retry_seconds=config.journal.retry_seconds,
                       player_cards=player_card_link(config, controller, staff), staff=staff,
                       program_watch=watch,
                       monotonic=time.monotonic if clock is time.time else None)  # an injected clock: not watched
        if with_display:
            display = config.display
            app.display = DisplayServer(app, host=display.host, port=display.port, language=display.language,
                                        supervisor_pin=display.supervisor_pin, pit_token=display.pit_token,
                                        allowed_hosts=display.allowed_hosts, staff=staff, verifier=watch)
        table = AssembledTable(config=config, app=app, journal=journal, simulated_shoe=simulated_shoe,
                               simulated_readers=simulated_readers, _stack=stack.pop_all())
    collect_start_up_heap()  # before the loop serves anything (runtime/heap.py)
    return table


def program_watch(config: TableConfig, controller: TableController) -> ProgramWatch | None:
    """The installed program's checks ([release], runtime/program_watch.py), or None without a release key."""
    release = config.release
    if release.public_key is None:
        return None
    return ProgramWatch(controller, public_key=release.public_key, check_hours=release.check_hours)


def player_card_link(config: TableConfig, controller: TableController,
                     staff: StaffDesk | None = None) -> PlayerCardLink | None:
    """The player card readers `[player_cards]` names, followed by one link (None: no reader); `staff`: the staff
    registry, whose badges the table's reader reads too."""
    cards = config.player_cards
    if not cards.readers:
        return None
    assert cards.secret is not None  # the configuration refuses a reader without one
    layout = layout_of_size(cards.event_size)
    return PlayerCardLink(controller, [CardReaderAt(EvdevCardReader(path, name=name, layout=layout), box)
                                       for name, path, box in cards.readers], secret=cards.secret, staff=staff)


def staff_desk(config: TableConfig, controller: TableController) -> StaffDesk | None:
    """The staff registry `[staff] registry` names, at this table (None: no registry)."""
    path = config.staff.registry
    if path is None:
        return None
    return StaffDesk(controller, path, secret=config.player_cards.secret, clock=controller.clock,
                     badge_seconds=config.staff.badge_seconds)


def gpio_chip_number(config: TableConfig) -> int | None:
    """The /dev/gpiochipN `devices.gpio_chip` names (by number or label); None: the factory's own choice."""
    setting = config.devices.gpio_chip
    if setting is None:
        return None
    try:
        return resolve_chip(setting)
    except PanelDeviceError as error:
        raise ConfigError("devices.gpio_chip", str(error)) from error


# ------------------------------------------------------------------------------------ shoe

def _simulated_shoe(url: str, start: StartShoe, table: Table, stack: contextlib.ExitStack) -> SimulatedShoeDevice:
    """For ``sim://shoe``: the simulated firmware, started, continuing the shoe the journal is in."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    shoe = table.shoe
    if shoe.loaded:  # the URL's own shoe/drawn win: a technician's stacked test shoe
        query.setdefault("shoe", str(max(1, shoe_number_of(shoe.shoe_id))))
        query.setdefault("drawn", str(shoe.dealt))
    resumed = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))
    try:
        simulator = start(resumed, decks=table.rules.decks, cut_cards_behind=table.rules.cut_card_depth,
                          announce=not shoe.loaded)
    except ConfigError:
        raise
    except (OSError, ValueError) as error:  # a stack=FILE that cannot be read, or not cards (CardCodeError)
        raise ConfigError("devices.shoe", f"{url!r}: {error}") from error
    stack.callback(simulator.stop)
    return simulator


# ---------------------------------------------------------------------------- chip readers

Settings = TypeVar("Settings")


def _reader_settings(parse: Callable[..., Settings], reader: ChipReaderConfig, antennas: dict[int, str],
                     key: str) -> Settings:
    """A reader's settings parsed from its URL and antenna map; a problem the URL's parser blames on the antennas
    is named by the configuration's key for them."""
    try:
        return parse(reader.url, antennas, name=reader.name, key=f"{key}.url")
    except ConfigError as error:
        if error.key.startswith(key):
            raise
        raise ConfigError(f"{key}.antennas", error.message) from error


def _chip_reader(index: int, reader: ChipReaderConfig, simulators: dict[str, Any]) -> ChipReader:
    key = f"devices.chip_readers[{index}]"
    antennas = dict(reader.antennas)
    if urlsplit(reader.url).scheme.startswith("feig"):
        return FeigChipReader(_reader_settings(FeigSettings.from_url, reader, antennas, key))
    settings = _reader_settings(ReaderSettings.from_url, reader, antennas, key)
    if urlsplit(reader.url).scheme != "sim":
        return UsbChipReader(settings)  # backend None: pyusb's default (libusb-1.0)
    open_reader = reader_opener(reader.url, f"{key}.url")
    try:
        simulator, backend = open_reader(reader.url, antennas)
    except ValueError as error:
        raise ConfigError(f"{key}.url", f"{reader.url}: {error}") from error
    simulators[reader.name] = simulator
    return UsbChipReader(settings, backend=backend)


# ------------------------------------------------------------------------------------ chips

def _registry(config: TableConfig) -> Mapping[str, RegisteredChip]:
    """The chips the casino issued; an empty registry when none is configured (every chip is refused)."""
    path = config.devices.chip_registry
    if path is None:
        return {}
    key = "devices.chip_registry"
    if not path.is_file():
        raise ConfigError(key, f"no such file: {path}; create it with `table-runtime chips --db {path} import FILE`")
    try:
        opened = ChipRegistry.from_csv(path) if path.suffix.lower() == ".csv" else ChipRegistry(path)
        with opened as registry:
            return registry.snapshot()
    except (OSError, ValueError) as error:  # RegistryError (a bad CSV) is a ValueError
        raise ConfigError(key, f"{path}: {error}") from error
    except sqlite3.Error as error:  # "file is not a database", a foreign schema
        raise ConfigError(key, f"{path}: not a chip registry: {error}") from error


def _casino_id(registry: Mapping[str, RegisteredChip]) -> int:
    """The casino whose chips this table accepts when `devices.casino_id` does not say: the registry's chips' one."""
    casinos = sorted({chip.casino_id for chip in registry.values()})
    if len(casinos) > 1:
        raise ConfigError("devices.casino_id", f"the registry holds chips of several casinos ({casinos}): "
                                               "name the one this table accepts")
    return casinos[0] if casinos else 0


# ------------------------------------------------------------------------------------- feed

def feed_settings(mqtt: MqttConfig, table_id: str) -> FeedSettings:
    """The publisher's settings from the table's ``[mqtt]`` section (secrets already resolved)."""
    if mqtt.url is None:
        raise ConfigError("mqtt.url", "the feed is off: no broker URL")
    broker, url_user = parse_broker_url(mqtt.url, key="mqtt.url")
    options: dict[str, Any] = {}
    if mqtt.client_id:
        options["client_id"] = mqtt.client_id
    username = mqtt.username or url_user
    if mqtt.password is not None and username is None:
        raise ConfigError("mqtt.username", "a password is configured but no user name")
    fallbacks = fallback_brokers(list(mqtt.fallback_urls), key="mqtt.fallback_urls")
    return FeedSettings(broker=broker, fallbacks=fallbacks, failback_interval=mqtt.failback_interval,
                        table_id=table_id, prefix=mqtt.prefix, username=username,
                        password=Secret(mqtt.password) if mqtt.password is not None else None,
                        ca_file=mqtt.ca_file, cert_file=mqtt.cert_file, key_file=mqtt.key_file,
                        replay_secret=Secret(mqtt.replay_secret) if mqtt.replay_secret is not None else None,
                        head_key=Secret(mqtt.head_key) if mqtt.head_key is not None else None,
                        rows_per_message=mqtt.rows_per_message, **options)


# ------------------------------------------------------------------------------ preflight

def preflight(config: TableConfig, *, casino_id: int | None = None) -> list[ConfigError]:
    """Everything `assemble` would refuse, each with its key, without opening the journal or a device.

    What `table-runtime check-config` reports after the keys themselves: the chip registry (there,
    readable, of one casino or `devices.casino_id` named), the shoe's and readers' URLs, the GPIO pin
    factory, the feed's credentials and the data directory. `casino_id`: as `assemble`'s.
    """
    problems: list[ConfigError] = []

    def check(action: Callable[[], object]) -> None:
        try:
            action()
        except ConfigError as error:
            problems.append(error)

    def chips() -> None:
        registry = _registry(config)
        if casino_id is None and config.devices.casino_id is None:
            _casino_id(registry)

    check(chips)
    check(lambda: _preflight_shoe(config))
    for index, reader in enumerate(config.devices.chip_readers):
        check(functools.partial(_chip_reader, index, reader, {}))
    check(lambda: _preflight_pins(config))
    if config.mqtt.enabled:
        check(lambda: feed_settings(config.mqtt, config.table_id))
    check(lambda: _preflight_data_dir(config))
    if config.staff.registry is not None:
        check(functools.partial(read_staff, config.staff.registry))
    return problems


def service_part_problems(devices: DevicesConfig | None,
                          metrics: MetricsConfig | None) -> tuple[list[ConfigError], str]:
    """Open (and close) the pin factory on its chip and look for the metrics library: every problem, each a
    ConfigError naming its key, and what was opened. A section that could not be read (None) is not checked."""
    problems: list[ConfigError] = []
    opened = ""
    if devices is not None:
        chip: int | None = None
        try:
            chip = None if devices.gpio_chip is None else resolve_chip(devices.gpio_chip)
        except PanelDeviceError as error:
            problems.append(ConfigError("devices.gpio_chip", str(error)))
        else:
            try:
                opened = f"the GPIO pin factory {open_pin_factory(devices.panel_pin_factory, chip)}"
            except PanelDeviceError as error:
                problems.append(ConfigError("devices.panel_pin_factory", str(error)))
    if metrics is not None and metrics.enabled and not _installed("prometheus_client"):
        problems.append(ConfigError("metrics", "prometheus_client is not installed: install the `metrics` extra "
                                               "(pip install -c constraints.txt '.[metrics]')"))
    return problems, opened


def _installed(module: str) -> bool:
    """Whether `module` can be imported here (a module hidden as None in sys.modules is not)."""
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _preflight_shoe(config: TableConfig) -> None:
    url = config.devices.shoe
    if urlsplit(url).scheme != "sim":
        SerialShoe(url)  # parses the URL; the port is opened by run()
        return
    check = shoe_checker(url, "devices.shoe")
    try:
        check(url, decks=config.rules.decks, cut_cards_behind=config.rules.cut_card_depth)
    except ConfigError:
        raise
    except (OSError, ValueError) as error:  # a stack=FILE that cannot be read, or not cards (CardCodeError)
        raise ConfigError("devices.shoe", f"{url!r}: {error}") from error


def _preflight_pins(config: TableConfig) -> None:
    try:
        factory = pin_factory_for(config.devices.panel_pin_factory, chip=gpio_chip_number(config))
    except (PanelDeviceError, PanelUsageError) as error:
        raise ConfigError("devices.panel_pin_factory", str(error)) from error
    if factory is not None:
        factory.close()


def _preflight_data_dir(config: TableConfig) -> None:
    """The journal's directory exists and is writable, or can be created."""
    directory = config.journal_path.parent
    existing = directory
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError("data_dir", f"{existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        verb = "write in" if existing == directory else f"create {directory} in"
        raise ConfigError("data_dir", f"cannot {verb} {existing} (permissions)")
