"""Runs one scenario against the real runtime over the real transports.

The runtime is `TableApp` exactly as on a table: the real serial driver reads
the simulated shoe firmware on a pty, the real pyusb driver reads the
simulated chip reader behind a pyusb backend, the real gpiozero panel reads
mock pins, and the real feed publisher talks to a real Mosquitto. The bench
is the dealer's and the players' hands (hands.py, chip_hands.py): it draws cards, places
chips, presses buttons, pulls cables, and after each action waits (bounded)
until the runtime has seen its effect. With a devices file, a real device replaces its
simulator and a person is asked to act instead (see devices.py).

Power loss is emulated in-process: the app task is cancelled (nothing of the
controller's shutdown runs: no "Stopping" row) and a new controller and app
start on the same journal file and the same, still running, devices. The
test suite also kills a real runtime process with SIGKILL (tests/bench).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from drivers.chip_reader import ReaderSettings, UsbChipReader
from drivers.dealer_panel import GpioDealerPanel, pin_factory_for
from drivers.shoe import SerialShoe
from firmware_bridge.rfid.messages import Tag
from simulators.bench.devices import SIMULATED, DeviceChoice, Operator
from simulators.bench.expect import Difference, Seen, differences, payout_key
from simulators.bench.feig import SimulatedFeigReader, feig_reader, other_reader
from simulators.bench.hands import BenchHands
from simulators.bench.observing import WAIT_SECONDS, StepFailed, describe
from simulators.bench.scenario import Scenario, Step
from simulators.chip_rack import ReadTray
from simulators.live_table import CASINO_ID, DEMO_PINS, ChipTray
from simulators.mosquitto import MosquittoBroker
from simulators.rfid_backend import SIM_PRODUCT_ID, SIM_VENDOR_ID, RfidBackend, SimulatedReader
from simulators.rfid_chips import DENOMINATIONS_CENTS, ChipIssuer
from simulators.shoe import SimulatedShoe
from table_runtime.chips.edge import ZoneReporter
from table_runtime.chips.registry import ChipRegistry, RegisteredChip
from table_runtime.display.server import DisplayServer
from table_runtime.feed.consumer import FeedConsumer
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import FeedSettings, parse_broker_url
from table_runtime.journal import Journal, journal_path, verify_file
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds

SCAN_INTERVAL = 0.02  # the simulated reader is scanned 50 times a second: zones settle in ~0.1 s
FEED_PREFIX = "bench"


@dataclass(slots=True)
class ScenarioResult:
    """The verdict on one scenario."""

    name: str
    path: str
    status: str  # passed | failed | error | xfail | xpass
    seconds: float
    differences: list[Difference] = field(default_factory=list)
    error: str | None = None
    expected_fail: str | None = None
    cites: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status in ("passed", "xfail")

    @property
    def first_difference(self) -> str | None:
        if self.error is not None:
            return self.error
        return str(self.differences[0]) if self.differences else None


class SharedBroker:
    """One Mosquitto for a whole run, started when the first scenario needs the feed."""

    def __init__(self) -> None:
        self.broker: MosquittoBroker | None = None

    def get(self) -> MosquittoBroker:
        if self.broker is None:
            self.broker = MosquittoBroker(persistence=True)
            self.broker.start()
        elif not self.broker.running:
            self.broker.start()
        return self.broker

    def close(self) -> None:
        if self.broker is not None:
            self.broker.close()
            self.broker = None


class BenchTable(BenchHands):
    """The devices, the runtime and the hands of one scenario run."""

    def __init__(self, scenario: Scenario, *, data_dir: Path, devices: DeviceChoice = SIMULATED,
                 broker: SharedBroker | None = None, seed: int = 1, operator: Operator | None = None,
                 reader: str = "usb") -> None:
        self.scenario = scenario
        self.data_dir = data_dir
        self.choice = devices
        self.shared_broker = broker
        self.seed = seed
        self.operator = operator or Operator()
        self.table_id = f"BENCH{abs(hash((scenario.name, time.time_ns()))) % 10**8}"
        self.zones = scenario.zones
        self.antennas = {index + 1: zone for index, zone in enumerate(self.zones)}
        # the simulated devices (they outlive a power loss of the runtime)
        self.shoe_sim = SimulatedShoe(seed=seed, announce=False, cut_cards_behind=0)
        usb_reader = SimulatedReader(self.antennas, antennas=len(self.zones) + 1, seed=seed,
                                     miss_rate=scenario.reader_miss_rate)
        self.backend = RfidBackend([usb_reader])
        self.reader_sim: SimulatedReader | SimulatedFeigReader = usb_reader
        if reader == "feig":  # a FEIG ISO-Host reader in the reference reader's place (simulators/bench/feig.py)
            self.reader_sim = feig_reader(self.zones, seed=seed, miss_rate=scenario.reader_miss_rate)
        self.issuer = ChipIssuer(CASINO_ID, seed=seed)
        self.tray = ChipTray(self.issuer, per_denomination=60)
        rows, per_row = scenario.tray  # the chip tray read by the reader (simulators/chip_rack.py), if any
        self.rack = ReadTray(self.reader_sim, self.issuer, rows=rows, per_row=per_row) if rows else None
        self.marked: dict[str, dict[int, list[Tag]]] = {"stolen": {}, "void": {}}
        for status, pool in self.marked.items():
            for denomination in DENOMINATIONS_CENTS:
                pool[denomination] = self.issuer.issue(denomination, 3)
                for chip in pool[denomination]:
                    self.issuer.mark(chip.uid, status)
        self.registry = self._registry()
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        self.pin_factory = MockFactory(pin_class=MockPWMPin)
        self.panel = None
        # what is where, as the bench placed it (value 0 for refused chips)
        self.zone_chips: dict[str, list[Tag]] = defaultdict(list)
        self.refused: set[str] = set()
        self.drawn = 0
        self.waited_alarms: dict[str, int] = defaultdict(int)
        # the runtime (replaced on power loss)
        self.journals: list[Journal] = []
        self.controller: TableController | None = None
        self.app: TableApp | None = None
        self.app_task: asyncio.Task[None] | None = None
        self._rows: list[dict[str, Any]] = []
        self._rows_seq = 0
        # the feed as a consumer sees it
        self.broker: MosquittoBroker | None = None
        self.feed_seqs: list[int] | None = None
        self.feed_types: list[str] = []
        self._consumer_task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ set-up and tear-down

    def _registry(self) -> dict[str, RegisteredChip]:
        registry = ChipRegistry(self.data_dir / "chips.db")
        try:
            if self.choice.real("chips"):
                assert self.choice.chips_registry is not None
                registry.import_csv(self.choice.chips_registry)
            else:
                registry.import_text(self.issuer.csv(delimiter=","), source="bench chip float")
            return dict(registry.snapshot())
        finally:
            registry.close()

    async def run(self) -> list[Difference]:
        """Every difference seen, in order; a step that cannot be done ends the run with its difference."""
        found: list[Difference] = []
        if not self.choice.real("shoe"):
            self.shoe_sim.start()
        if isinstance(self.reader_sim, SimulatedFeigReader):
            self.reader_sim.start()
        try:
            if self.scenario.needs_broker:
                await self._start_consumer()
            self._start_runtime()
            await self._wait_online()
            if self.scenario.shoe:
                await self._load_shoe([card.code for card in self.scenario.shoe], self.scenario.cut_after, "shoe")
            for step in self.scenario.steps:
                try:
                    found += await self._do(step)
                except StepFailed as failure:
                    found.append(Difference(failure.where, failure.expected, failure.message))
                    break
        finally:
            await self._stop_runtime()
            if self._consumer_task is not None:
                self._consumer_task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._consumer_task
            self.shoe_sim.stop()
            if isinstance(self.reader_sim, SimulatedFeigReader):
                self.reader_sim.stop()
            for journal in self.journals:
                journal.close()
        return found

    def _start_runtime(self) -> None:
        journal = Journal.open(journal_path(self.data_dir))
        self.journals.append(journal)
        scenario = self.scenario
        controller = TableController(table_id=self.table_id, rules=scenario.rules, limits=scenario.limits,
                                     journal=journal, clock=time.time, zones=self.zones)
        casino = self.choice.casino_id if self.choice.real("chips") else CASINO_ID
        reporter = ZoneReporter(self.zones, registry=self.registry, casino_id=casino)
        shoe_url = self.choice.shoe if self.choice.real("shoe") else str(self.shoe_sim.link)
        shoe = SerialShoe(shoe_url, heartbeat_timeout=1.5)
        if self.choice.real("chips") or isinstance(self.reader_sim, SimulatedFeigReader):
            reader = other_reader(self.choice, self.reader_sim, scan_interval=SCAN_INTERVAL)
        else:
            reader = UsbChipReader(ReaderSettings(vendor_id=SIM_VENDOR_ID, product_id=SIM_PRODUCT_ID,
                                                  antenna_zones=self.antennas, name="bench-reader",
                                                  scan_interval=SCAN_INTERVAL, reconnect_interval=0.1),
                                   backend=self.backend)
        if self.choice.real("panel"):
            panel = GpioDealerPanel(self.choice.pins or DEMO_PINS, pin_factory=pin_factory_for(self.choice.pin_factory))
            self.panel = None
        else:
            panel = self.panel = GpioDealerPanel(DEMO_PINS, pin_factory=self.pin_factory)
        feed = None
        if self.broker is not None or self.choice.real("broker"):
            url = self.choice.broker if self.choice.real("broker") else self._broker().url
            settings_feed = FeedSettings.from_mapping(
                {"url": url, "prefix": FEED_PREFIX, "backoff_initial": 0.05, "backoff_max": 0.5,
                 "poll_interval": 0.2}, table_id=self.table_id)
            feed = FeedPublisher(settings_feed, journal)
        self.controller = controller
        self.app = TableApp(controller, shoe=shoe, panel=panel, readers=[reader],
                            chips=reporter, feed=feed)
        if scenario.display:
            self.app.display = DisplayServer(self.app, host="127.0.0.1", port=0, language="fr")
        self.app_task = asyncio.create_task(self.app.run(), name=f"bench-app-{self.table_id}")
        self._rows, self._rows_seq = [], 0

    async def _stop_runtime(self) -> None:
        if self.app is None or self.app_task is None:
            return
        self.app.stop("bench finished")
        try:
            async with asyncio.timeout(15):
                await self.app_task
        except TimeoutError:
            self.app_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.app_task
        self.app = self.app_task = None

    async def _power_loss(self) -> None:
        """kill -9, in-process: abandon the app with none of its shutdown, start a new one on the same journal."""
        assert self.app_task is not None
        self.app_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.app_task
        self.app = self.app_task = None
        self.journals[-1].release_writer()  # the dead process's claim on the journal goes with it
        self._start_runtime()
        await self._wait_online()

    async def _wait_online(self) -> None:
        await self.until("the shoe online", lambda: self.ctl.devices.get("shoe") == "online", "startup",
                         real="shoe")
        await self.until("the chip reader online", lambda: self.ctl.devices.get("chips") == "online", "startup",
                         real="chips")

    async def _start_consumer(self) -> None:
        if self.choice.real("broker"):
            address, _ = parse_broker_url(self.choice.broker)
        else:
            assert self.shared_broker is not None, "a scenario with the feed needs a SharedBroker"
            self.broker = self.shared_broker.get()
            address, _ = parse_broker_url(self.broker.url)
        consumer = FeedConsumer(address, prefix=FEED_PREFIX, table_id=self.table_id, topic="events",
                                client_id=f"bench-consumer-{self.table_id}", persistent=True,
                                backoff_initial=0.05, backoff_max=0.5)
        self.feed_seqs = []

        async def consume() -> None:
            assert self.feed_seqs is not None
            async for received in consumer.messages():
                self.feed_seqs.append(int(received.message["seq"]))
                self.feed_types.append(str(received.message.get("type", "")))

        self._consumer_task = asyncio.create_task(consume(), name=f"bench-consumer-{self.table_id}")
        async with asyncio.timeout(WAIT_SECONDS):
            await consumer.subscribed.wait()

    # ------------------------------------------------------------------ steps

    async def _do(self, step: Step) -> list[Difference]:
        args = step.args
        action = step.action
        if action == "expect":
            return await self._expect(args, step.key)
        if action == "place":
            for zone, amount in args.items():
                chips = self.tray.take(amount) if isinstance(amount, int) else self._denominations(amount, step.key)
                self._put(zone, chips, step.key)
            await self._settle_zones(step.key)
        elif action == "chip":
            await self._special_chip(args, step.key)
        elif action == "remove":
            for zone, amount in args.items():
                self._take(zone, amount, step.key)
            await self._settle_zones(step.key)
        elif action == "clear":
            for zone in args:
                self._take(zone, "all", step.key)
            await self._settle_zones(step.key)
        elif action == "press":
            await self._press(args["button"], step.key, wait=args["wait"])
        elif action == "touch":
            return await self._touch(args, step.key)
        elif action == "draw":
            await self._draw(args["count"], step.key, wait=args["wait"])
        elif action == "settle":
            await self._settle(args, step.key)
        elif action == "fault":
            await self._fault(args["fault"], step.key, wait=args["wait"])
        elif action == "load_shoe":
            await self._load_shoe(args["cards"], args["cut_after"], step.key)
        elif action == "wait":
            await self._wait(args, step.key)
        elif action == "tray":
            await self._tray(args, step.key)
        return []

    # expectations ------------------------------------------------------------------------------

    async def _expect(self, expected: dict[str, Any], where: str) -> list[Difference]:
        if "feed" in expected and self.feed_seqs is not None:
            last = self.ctl.journal.last_seq
            seqs = self.feed_seqs
            with contextlib.suppress(StepFailed):
                await self.until("the feed catching up", lambda: bool(seqs) and max(seqs) >= last, where, seconds=20)
        await asyncio.sleep(0)  # what is ready on the loop runs first
        await self.ctl.writer.settled()  # then the table as the journal has it, no step half done
        seen = self.seen()
        if "display" in expected:
            seen.display_snapshot = await self._display_snapshot(where)
        if "recall" in expected:
            controller = self.ctl
            seen.recall = recall_rounds(controller.journal, last=int(expected["recall"].get("last", 10)))
        return differences(expected, seen, f"expect[{where}]" if where != "expect" else "expect")

    async def _display_snapshot(self, where: str) -> dict[str, Any] | None:
        """The snapshot the dealer display serves, over HTTP as the page gets it."""
        if self.app is None or self.app.display is None:
            return None
        url = f"http://127.0.0.1:{self.app.display.port}/api/snapshot"
        try:
            async with (aiohttp.ClientSession() as session, asyncio.timeout(WAIT_SECONDS),
                        session.get(url) as response):
                response.raise_for_status()
                snapshot: dict[str, Any] = await response.json()
                return snapshot
        except (aiohttp.ClientError, TimeoutError) as error:
            raise StepFailed(where, f"the display did not answer {url}: {error}") from error

    def seen(self) -> Seen:
        controller = self.ctl
        round_ = controller.table.round
        payouts = {} if round_ is None else {
            payout_key({"owner": p.owner, "hand": p.hand, "kind": p.kind}): p.net_cents for p in round_.payouts}
        result = verify_file(controller.journal.path)
        last = controller.journal.last_seq
        return Seen(snapshot=controller.snapshot(), alarms=self.alarms(), active_alarms=controller.alarms.active,
                    payouts=payouts, journal_ok=result.ok, journal_reason=result.reason, entries=self.rows(),
                    feed_seqs=None if self.feed_seqs is None else [s for s in self.feed_seqs if s <= last],
                    feed_types=list(self.feed_types), last_seq=last)


async def run_scenario(scenario: Scenario, *, work_dir: Path, devices: DeviceChoice = SIMULATED,
                       broker: SharedBroker | None = None, seed: int = 1, reader: str = "usb") -> ScenarioResult:
    """Run one scenario in `work_dir` (its data directory); never raises for a failing scenario."""
    started = time.monotonic()
    found: list[Difference] = []
    error = None
    try:
        await asyncio.to_thread(work_dir.mkdir, parents=True, exist_ok=True)
        bench = BenchTable(scenario, data_dir=work_dir, devices=devices, broker=broker, seed=seed, reader=reader)
        async with asyncio.timeout(scenario.timeout):
            found = await bench.run()
    except TimeoutError:
        error = f"the scenario did not finish within its timeout of {scenario.timeout:.0f} s"
    except Exception as exception:  # a bench or runtime crash is a result too, with its reason
        error = describe(exception)
    failed = bool(found) or error is not None
    if scenario.expected_fail is not None:
        status = "xfail" if failed else "xpass"
    else:
        status = "error" if error is not None else "failed" if failed else "passed"
    return ScenarioResult(name=scenario.name, path=str(scenario.path or ""), status=status,
                          seconds=time.monotonic() - started, differences=found, error=error,
                          expected_fail=scenario.expected_fail, cites=scenario.cites)
