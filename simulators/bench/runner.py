"""Runs one scenario against the real runtime over the real transports.

The runtime is `TableApp` exactly as on a table: the real serial driver reads
the simulated shoe firmware on a pty, the real pyusb driver reads the
simulated chip reader behind a pyusb backend, the real gpiozero panel reads
mock pins, and the real feed publisher talks to a real Mosquitto. The bench
is the dealer's and the players' hands: it draws cards, places chips, presses
buttons, pulls cables, and after each action waits (bounded) until the
runtime has seen its effect. With a devices file, a real device replaces its
simulator and a person is asked to act instead (see devices.py).

Power loss is emulated in-process: the app task is cancelled (nothing of the
controller's shutdown runs: no "Stopping" row) and a new controller and app
start on the same journal file and the same, still running, devices. The
test suite also kills a real runtime process with SIGKILL (tests/bench).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import traceback
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.chip_reader import ReaderSettings, UsbChipReader
from drivers.dealer_panel import GpioDealerPanel
from drivers.shoe import SerialShoe
from firmware_bridge.rfid.messages import Tag
from simulators.bench.devices import SIMULATED, DeviceChoice, Operator
from simulators.bench.expect import Difference, Seen, differences, payout_key
from simulators.bench.scenario import SPECIAL_CHIPS, Scenario, Step
from simulators.live_table import CASINO_ID, DEMO_PINS, ChipTray
from simulators.mosquitto import MosquittoBroker
from simulators.rfid_backend import SIM_PRODUCT_ID, SIM_VENDOR_ID, RfidBackend, SimulatedReader
from simulators.rfid_chips import DENOMINATIONS_CENTS, ChipIssuer
from simulators.shoe import Fault, SimulatedShoe
from simulators.shoe_firmware import SimulatedShoeError
from table_runtime.chips.registry import ChipRegistry, RegisteredChip
from table_runtime.chips.watch import ChipWatcher
from table_runtime.feed.consumer import FeedConsumer
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import FeedSettings, parse_broker_url
from table_runtime.game.cards import Card
from table_runtime.journal import Journal, journal_path, verify_file
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.chip_link import ChipLink, expected_zones
from table_runtime.runtime.controller import TableController

WAIT_SECONDS = 10.0  # a simulated device's effect must reach the runtime within this
POLL_SECONDS = 0.01
SCAN_INTERVAL = 0.02  # the simulated reader is scanned 50 times a second: zones settle in ~0.1 s
OTHER_CASINO_ID = 9
FEED_PREFIX = "bench"


class StepFailed(Exception):
    """A step could not be carried out, or its effect never reached the runtime."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


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


class BenchTable:
    """The devices, the runtime and the hands of one scenario run."""

    def __init__(self, scenario: Scenario, *, data_dir: Path, devices: DeviceChoice = SIMULATED,
                 broker: SharedBroker | None = None, seed: int = 1, operator: Operator | None = None) -> None:
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
        self.reader_sim = SimulatedReader(self.antennas, antennas=len(self.zones) + 1, seed=seed)
        self.backend = RfidBackend([self.reader_sim])
        self.issuer = ChipIssuer(CASINO_ID, seed=seed)
        self.tray = ChipTray(self.issuer, per_denomination=60)
        self.marked: dict[str, dict[int, list[Tag]]] = {"stolen": {}, "void": {}}
        for status, pool in self.marked.items():
            for denomination in DENOMINATIONS_CENTS:
                pool[denomination] = self.issuer.issue(denomination, 3)
                for chip in pool[denomination]:
                    self.issuer.mark(chip.uid, status)
        self.registry = self._registry()
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        self.pin_factory = MockFactory(pin_class=MockPWMPin)
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
                    found.append(Difference(failure.where, "the step done", "not done", failure.message))
                    break
        finally:
            await self._stop_runtime()
            if self._consumer_task is not None:
                self._consumer_task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._consumer_task
            self.shoe_sim.stop()
            for journal in self.journals:
                journal.close()
        return found

    def _start_runtime(self) -> None:
        journal = Journal.open(journal_path(self.data_dir))
        self.journals.append(journal)
        scenario = self.scenario
        controller = TableController(table_id=self.table_id, rules=scenario.rules, limits=scenario.limits,
                                     journal=journal, clock=time.time)
        casino = self.choice.casino_id if self.choice.real("chips") else CASINO_ID
        watcher = ChipWatcher(self.zones, registry=self.registry, casino_id=casino)
        shoe_url = self.choice.shoe if self.choice.real("shoe") else str(self.shoe_sim.link)
        shoe = SerialShoe(shoe_url, heartbeat_timeout=1.5)
        if self.choice.real("chips"):
            settings = ReaderSettings.from_url(self.choice.chips, self.choice.antennas, name="bench-reader")
            reader = UsbChipReader(settings)
        else:
            reader = UsbChipReader(ReaderSettings(vendor_id=SIM_VENDOR_ID, product_id=SIM_PRODUCT_ID,
                                                  antenna_zones=self.antennas, name="bench-reader",
                                                  scan_interval=SCAN_INTERVAL, reconnect_interval=0.1),
                                   backend=self.backend)
        panel = GpioDealerPanel(DEMO_PINS, pin_factory=None if self.choice.real("panel") else self.pin_factory)
        feed = None
        if self.broker is not None or self.choice.real("broker"):
            url = self.choice.broker if self.choice.real("broker") else self._broker().url
            settings_feed = FeedSettings.from_mapping(
                {"url": url, "prefix": FEED_PREFIX, "backoff_initial": 0.05, "backoff_max": 0.5,
                 "poll_interval": 0.2}, table_id=self.table_id)
            feed = FeedPublisher(settings_feed, journal)
        self.controller = controller
        self.app = TableApp(controller, shoe=shoe, panel=panel, readers=[reader],
                            chip_link=ChipLink(watcher, controller), feed=feed)
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
        self._start_runtime()
        await self._wait_online()

    async def _wait_online(self) -> None:
        await self.until("the shoe online", lambda: self.ctl.devices.get("shoe") == "online", "startup",
                         real="shoe")
        await self.until("the chip reader online", lambda: self.ctl.devices.get("chips") == "online", "startup",
                         real="chips")

    def _broker(self) -> MosquittoBroker:
        if self.broker is None:
            raise StepFailed("feed", "no broker")
        return self.broker

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

    # ------------------------------------------------------------------ observing

    @property
    def ctl(self) -> TableController:
        assert self.controller is not None, "the runtime is not running"
        return self.controller

    def rows(self) -> list[dict[str, Any]]:
        """Every journal row so far, as its body plus `seq` and `row` (the row's kind), read incrementally."""
        for entry in self.ctl.journal.entries(after_seq=self._rows_seq):
            self._rows.append({**entry.body, "seq": entry.seq, "row": entry.kind})
            self._rows_seq = entry.seq
        return self._rows

    def alarms(self) -> list[dict[str, Any]]:
        return [row for row in self.rows() if row["row"] == "alarm"]

    def shoe_seen(self) -> int:
        """Cards the runtime has heard of from the shoe: read, unreadable, or reported lost."""
        seen = 0
        for row in self.rows():
            if row["row"] == "input" and row.get("type") == "CardDrawn" and row.get("source") == "shoe":
                seen += 1
            elif row["row"] == "alarm":
                if row.get("kind") == "unreadable_card":
                    seen += 1
                elif row.get("kind") == "missed_cards":
                    seen += int((row.get("amounts") or {}).get("cards", 1))
        return seen

    def zone_total(self, zone: str) -> int:
        return int(self.ctl.extra.get("zones", {}).get(zone, 0))

    def model_total(self, zone: str) -> int:
        return sum(chip.denomination_cents or 0 for chip in self.zone_chips[zone] if chip.uid not in self.refused)

    async def until(self, what: str, condition: Callable[[], bool], where: str, *, real: str | None = None,
                    seconds: float = WAIT_SECONDS) -> None:
        if real is not None and self.choice.real(real):
            seconds = self.choice.operator_timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while not condition():
            if self.app_task is not None and self.app_task.done():
                error = self.app_task.exception()
                raise StepFailed(where, "the runtime stopped: " + (describe(error) if error else "it returned"))
            if loop.time() > deadline:
                raise StepFailed(where, f"the table did not see {what} within {seconds:.0f} s")
            await asyncio.sleep(POLL_SECONDS)

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
            return self._touch(args, step.key)
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
        return []

    # chips -----------------------------------------------------------------------------------

    def _denominations(self, amounts: list[int], where: str) -> list[Tag]:
        chips = []
        for cents in amounts:
            if cents not in DENOMINATIONS_CENTS:
                raise StepFailed(where, f"no chip of {cents} cents; chips are {sorted(DENOMINATIONS_CENTS)}")
            chips += self.tray.take(cents)
        return chips

    def _put(self, zone: str, chips: list[Tag], where: str) -> None:
        self.zone_chips[zone].extend(chips)
        if self.choice.real("chips"):
            cents = sum(chip.denomination_cents or 0 for chip in chips)
            self.operator.ask(f"place {cents / 100:.2f} EUR of chips on {zone}")
        else:
            self.reader_sim.place(zone, *chips)

    def _take(self, zone: str, amount: int | str | list[int], where: str) -> None:
        chips = self.zone_chips[zone]
        if amount == "all":
            taken = list(chips)
        elif isinstance(amount, list):
            taken = []
            for cents in amount:
                match = next((c for c in chips if c.denomination_cents == cents and c not in taken), None)
                if match is None:
                    raise StepFailed(where, f"{zone} holds no chip of {cents} cents to take off")
                taken.append(match)
        else:
            worth = _chips_worth(chips, int(amount))
            if worth is None:
                raise StepFailed(where, f"no set of chips on {zone} is worth exactly {amount} cents; "
                                        "place them as a list of denominations")
            taken = worth
        for chip in taken:
            chips.remove(chip)
        if self.choice.real("chips"):
            self.operator.ask(f"take {sum(c.denomination_cents or 0 for c in taken) / 100:.2f} EUR off {zone}")
        else:
            self.reader_sim.remove(zone, *(chip.uid for chip in taken))
        self.tray.give_back([chip for chip in taken if chip.uid not in self.refused
                             and chip.uid in self.issuer.issued and self.issuer.status[chip.uid] == "active"])

    async def _settle_zones(self, where: str) -> None:
        expected = {zone: self.model_total(zone) for zone in self.zones}
        await self.until(f"the chips on the zones ({ {z: c for z, c in expected.items() if c} })",
                         lambda: all(self.zone_total(zone) == cents for zone, cents in expected.items()),
                         where, real="chips")

    async def _special_chip(self, args: dict[str, Any], where: str) -> None:
        kind, cents, zone = args["kind"], args["cents"], args["zone"]
        alarm = SPECIAL_CHIPS[kind]
        if kind == "counterfeit":
            chip = self.issuer.counterfeit(cents)
        elif kind in ("stolen", "void"):
            pool = self.marked[kind].get(cents)
            if not pool:
                raise StepFailed(where, f"no {kind} chip of {cents} cents left in the bench's float")
            chip = pool.pop()
        elif kind == "other-casino":
            fake = self.issuer.counterfeit(cents)
            chip = Tag(uid=fake.uid, denomination_cents=cents, casino_id=OTHER_CASINO_ID)
        else:  # relabelled: one of our chips whose tag now says another denomination
            original = self.tray.take(cents)[0]
            other = next(d for d in DENOMINATIONS_CENTS if d != cents)
            chip = self.issuer.relabelled(original, other)
        self.refused.add(chip.uid)
        before = sum(1 for row in self.alarms() if row.get("kind") == alarm)
        if self.choice.real("chips"):
            self.operator.ask(f"place a {kind} chip of {cents / 100:.2f} EUR on {zone}")
        else:
            self.reader_sim.place(zone, chip)
        self.zone_chips[zone].append(chip)
        await self.until(f"a {alarm} alarm", lambda: sum(1 for r in self.alarms() if r.get("kind") == alarm) > before,
                         where, real="chips")
        self.waited_alarms[alarm] += 1

    # buttons and touches -------------------------------------------------------------------

    async def _press(self, button: str, where: str, *, wait: bool = True) -> None:
        seq = self.ctl.journal.last_seq
        if self.choice.real("panel"):
            self.operator.ask(f"press {button}")
        else:
            pin = self.pin_factory.pin(DEMO_PINS.buttons[button])
            pin.drive_low()
            await asyncio.sleep(DEMO_PINS.debounce_seconds * 3)
            pin.drive_high()
        if wait:
            await self.until(f"the {button} button", lambda: self.ctl.journal.last_seq > seq, where, real="panel")

    def _touch(self, args: dict[str, Any], where: str) -> list[Difference]:
        assert self.app is not None
        command = args["command"]
        extra: dict[str, Any] = {}
        if command == "MANUAL_CARD":
            extra["card"] = args["card"]
        if "reason" in args:
            extra["reason"] = args["reason"]
        if command == "ACK_ALARM":
            ids = self.ctl.alarms.active_of_kind(args["alarm"])
            if not ids:
                return [Difference(f"{where}.alarm", f"an active {args['alarm']} alarm", None,
                                   f"active: {[a['kind'] for a in self.ctl.alarms.active]}")]
            results = [self.app.apply_command("ACK_ALARM", {"id": alarm_id}, role=args["role"], source="display")
                       for alarm_id in ids]
            result = {"ok": all(r["ok"] for r in results), "message": results[-1]["message"]}
        else:
            result = self.app.apply_command(command, extra, role=args["role"], source="display")
        if "ok" in args and result["ok"] != args["ok"]:
            return [Difference(f"{where}.ok", args["ok"], result["ok"], str(result["message"]))]
        return []

    # the shoe ---------------------------------------------------------------------------------

    async def _draw(self, count: int, where: str, *, wait: bool) -> None:
        for _ in range(count):
            if self.choice.real("shoe"):
                self.operator.ask("draw one card from the shoe")
            else:
                try:
                    await asyncio.to_thread(self.shoe_sim.draw)
                except SimulatedShoeError as error:
                    raise StepFailed(where, f"the shoe cannot give a card: {error}") from error
            self.drawn += 1
            if wait:
                await self._until_drawn(self.drawn, where)

    async def _until_drawn(self, drawn: int, where: str) -> None:
        await self.until(f"card {drawn} from the shoe", lambda: self.shoe_seen() >= drawn, where, real="shoe")

    async def _load_shoe(self, cards: list[str], cut_after: int | None, where: str) -> None:
        shoe_id = self.ctl.table.shoe.shoe_id
        if self.choice.real("shoe"):
            self.operator.ask(f"load a stacked shoe, in this order from the first card out: {' '.join(cards)}"
                              + (f"; the cut card after card {cut_after}" if cut_after else ""))
        else:
            firmware = self.shoe_sim.firmware
            firmware.cut_cards_behind = len(cards) - cut_after if cut_after else len(cards)
            self.shoe_sim.load_stack([Card.parse(code) for code in cards])
        await self.until("the new shoe", lambda: self.ctl.table.shoe.loaded and self.ctl.table.shoe.shoe_id != shoe_id,
                         where, real="shoe")
        self.drawn = self.shoe_seen()

    # settlement -------------------------------------------------------------------------------

    async def _settle(self, args: dict[str, Any], where: str) -> None:
        round_ = self.ctl.table.round
        if round_ is None or round_.phase != "settlement":
            raise StepFailed(where, f"nothing to settle: the round is in phase {self.ctl.table.phase}")
        due = {zone: cents for zone, cents in expected_zones(round_).items() if zone in self.zones}
        for zone, error in args["errors"].items():
            due[zone] = due.get(zone, self.model_total(zone)) + error
        for zone, cents in due.items():
            have = self.model_total(zone)
            if cents > have:
                self._put(zone, self.tray.take(cents - have), where)
            elif cents < have:
                self._take(zone, "all", where)
                if cents:
                    self._put(zone, self.tray.take(cents), where)
        await self._settle_zones(where)
        if args["confirm"]:
            await self._press("CONFIRM", where)
        if args["clear"]:
            for zone in self.zones:
                if self.zone_chips[zone]:
                    self._take(zone, "all", where)
            await self._settle_zones(where)

    # faults -----------------------------------------------------------------------------------

    async def _fault(self, fault: str, where: str, *, wait: bool) -> None:
        shoe, reader = self.shoe_sim, self.reader_sim
        real_shoe = self.choice.real("shoe")
        if fault == "power_loss":
            await self._power_loss()
            return
        device = "shoe" if fault.startswith(("shoe", "door", "jam", "clear_jam", "unreadable")) else (
            "chips" if fault.startswith("reader") else "broker")
        if self.choice.real(device):
            self.operator.ask(f"make this happen on the real {device}: {fault.replace('_', ' ')}")
        elif fault == "shoe_unplug":
            shoe.unplug()
        elif fault == "shoe_replug":
            shoe.replug()
        elif fault.startswith("shoe_"):
            shoe.inject(Fault(fault.removeprefix("shoe_")))
        elif fault == "door_open":
            shoe.open_door()
        elif fault == "door_close":
            shoe.close_door()
        elif fault == "jam":
            shoe.jam()
        elif fault == "clear_jam":
            shoe.clear_jam()
        elif fault == "unreadable_card":
            shoe.inject(Fault.UNREADABLE)
        elif fault == "reader_unplug":
            reader.unplug()
        elif fault == "reader_replug":
            reader.replug()
        elif fault == "broker_down":
            self._broker().stop()
        elif fault == "broker_up":
            self._broker().start()
        if not wait:
            return
        status = {"shoe_unplug": ("shoe", "offline"), "shoe_replug": ("shoe", "online"),
                  "reader_unplug": ("chips", "offline"), "reader_replug": ("chips", "online")}.get(fault)
        if status is not None:
            name, value = status
            await self.until(f"the {name} {value}", lambda: self.ctl.devices.get(name) == value, where, real=name)
        elif fault in ("door_open", "door_close", "jam", "clear_jam") and not real_shoe:
            await self.until("the shoe's report acknowledged", lambda: shoe.firmware.unacknowledged == 0, where)
            await asyncio.sleep(0.05)

    async def _wait(self, args: dict[str, Any], where: str) -> None:
        if "alarm" in args:
            kind = args["alarm"]
            count = self.waited_alarms[kind] + 1
            await self.until(f"a {kind} alarm", lambda: sum(1 for r in self.alarms() if r.get("kind") == kind) >= count,
                             where)
            self.waited_alarms[kind] = count
        elif "device" in args:
            name, value = args["device"]
            await self.until(f"the {name} {value}", lambda: self.ctl.devices.get(name) == value, where, real=name)
        elif "cards" in args:
            drawn = self.drawn
            await self.until(f"all {drawn} cards drawn", lambda: self.shoe_seen() >= drawn, where, real="shoe")
        else:
            await asyncio.sleep(args["seconds"])

    # expectations ------------------------------------------------------------------------------

    async def _expect(self, expected: dict[str, Any], where: str) -> list[Difference]:
        if "feed" in expected and self.feed_seqs is not None:
            last = self.ctl.journal.last_seq
            seqs = self.feed_seqs
            with contextlib.suppress(StepFailed):
                await self.until("the feed catching up", lambda: bool(seqs) and max(seqs) >= last, where, seconds=20)
        await asyncio.sleep(0)
        return differences(expected, self.seen(), f"expect[{where}]" if where != "expect" else "expect")

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


def describe(error: BaseException) -> str:
    """The innermost errors of a crash (TaskGroups wrap them), each with the line that raised it."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in error.exceptions)
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(error).__name__}: {error}{where}"


def _chips_worth(chips: list[Tag], cents: int) -> list[Tag] | None:
    """Some of `chips` worth exactly `cents` (largest first, then a small search)."""
    ordered = sorted(chips, key=lambda chip: -(chip.denomination_cents or 0))
    picked: list[Tag] = []
    left = cents
    for chip in ordered:
        value = chip.denomination_cents or 0
        if value <= left:
            picked.append(chip)
            left -= value
    if left == 0:
        return picked
    rng = random.Random(cents)
    for _ in range(2000):
        sample = [chip for chip in ordered if rng.random() < 0.5]
        if sum(chip.denomination_cents or 0 for chip in sample) == cents:
            return sample
    return None


async def run_scenario(scenario: Scenario, *, work_dir: Path, devices: DeviceChoice = SIMULATED,
                       broker: SharedBroker | None = None, seed: int = 1) -> ScenarioResult:
    """Run one scenario in `work_dir` (its data directory); never raises for a failing scenario."""
    started = time.monotonic()
    found: list[Difference] = []
    error = None
    try:
        await asyncio.to_thread(work_dir.mkdir, parents=True, exist_ok=True)
        bench = BenchTable(scenario, data_dir=work_dir, devices=devices, broker=broker, seed=seed)
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
