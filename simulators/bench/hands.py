"""The bench's hands: what the dealer, the players and the technician do to the devices, and how the bench
waits until the runtime has seen it.

`BenchHands` is the half of `BenchTable` (runner.py) that acts: chips placed
and taken on the simulated reader, buttons on mock pins, touches through
`TableApp.apply_command`, cards from the simulated shoe, settlement, device
faults. With a real device (devices.py) each action becomes a prompt to the
person at the bench. Every action then waits, bounded, for its effect in the
journal, the zone totals or the device status.
"""

from __future__ import annotations

import asyncio
import random
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_bridge.rfid.messages import Tag
from simulators.bench.devices import DeviceChoice, Operator
from simulators.bench.expect import Difference
from simulators.bench.scenario import SPECIAL_CHIPS
from simulators.live_table import DEMO_PINS, ChipTray
from simulators.mosquitto import MosquittoBroker
from simulators.rfid_backend import SimulatedReader
from simulators.rfid_chips import DENOMINATIONS_CENTS, ChipIssuer
from simulators.shoe import Fault, SimulatedShoe
from simulators.shoe_firmware import SimulatedShoeError
from table_runtime.core.zones_due import early_payments, expected_zones
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.cards import Card
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController

WAIT_SECONDS = 10.0  # a simulated device's effect must reach the runtime within this
POLL_SECONDS = 0.01
OTHER_CASINO_ID = 9


class StepFailed(Exception):
    """A step could not be carried out, or its effect never reached the runtime."""

    def __init__(self, where: str, message: str, *, expected: str = "the step carried out") -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message
        self.expected = expected



def describe(error: BaseException) -> str:
    """The innermost errors of a crash (TaskGroups wrap them), each with the line that raised it."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in error.exceptions)
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(error).__name__}: {error}{where}"


class BenchHands:
    """The actions of the steps; `BenchTable` owns the devices and the runtime they act on."""

    # set by BenchTable.__init__ (runner.py)
    choice: DeviceChoice
    operator: Operator
    zones: tuple[str, ...]
    shoe_sim: SimulatedShoe
    reader_sim: SimulatedReader
    issuer: ChipIssuer
    tray: ChipTray
    marked: dict[str, dict[int, list[Tag]]]
    pin_factory: Any
    zone_chips: dict[str, list[Tag]]
    refused: set[str]
    drawn: int
    waited_alarms: dict[str, int]
    controller: TableController | None
    app: TableApp | None
    app_task: asyncio.Task[None] | None
    broker: MosquittoBroker | None
    _rows: list[dict[str, Any]]
    _rows_seq: int

    async def _power_loss(self) -> None:
        raise NotImplementedError

    def _broker(self) -> MosquittoBroker:
        if self.broker is None:
            raise StepFailed("feed", "no broker")
        return self.broker

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
                if row.get("kind") == AlarmKind.UNREADABLE_CARD:
                    seen += 1
                elif row.get("kind") == AlarmKind.MISSED_CARDS:
                    seen += int((row.get("amounts") or {}).get("cards", 1))
        return seen

    def zone_total(self, zone: str) -> int:
        return self.ctl.core.chips.total(zone)

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
                raise StepFailed(where, f"not seen by the runtime within {seconds:.0f} s", expected=what)
            await asyncio.sleep(POLL_SECONDS)

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
        if wait:  # the press became an input from the panel (other rows, e.g. a device status, do not count)
            await self.until(f"the {button} button", lambda: self._panel_input_after(seq), where, real="panel")

    def _panel_input_after(self, seq: int) -> bool:
        return any(row["seq"] > seq and row["row"] == "input" and row.get("source") == "panel"
                   for row in reversed(self.rows()))

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
        # A blackjack paid at once (002:62): stake and payout on its zone for the player to take away.
        early = {zone: cents for zone, cents in early_payments(round_).items()
                 if zone in self.zones and self.model_total(zone) and cents > self.model_total(zone)}
        for zone, cents in early.items():
            self._put(zone, self.tray.take(cents - self.model_total(zone)), where)
        if early:
            await self._settle_zones(where)
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
