"""The bench's hands: what the dealer, the players and the technician do to the devices.

`BenchHands` is the half of `BenchTable` (runner.py) that acts: buttons on mock
pins, touches through `TableApp.command` (as the display), cards from the simulated shoe,
settlement, device faults; the chips are placed and taken by `ChipHands`
(chip_hands.py). With a real device (devices.py) each action becomes a prompt
to the person at the bench. Every action then waits, bounded, for its effect in
the journal, the zone totals or the device status (observing.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

from simulators.bench.chip_hands import ChipHands
from simulators.bench.expect import Difference
from simulators.bench.model import FEIG_FAULTS
from simulators.bench.observing import StepFailed
from simulators.feig_reader import SimulatedFeigReader
from simulators.live_table import DEMO_PINS
from simulators.shoe import Fault
from simulators.shoe_firmware import SimulatedShoeError
from table_runtime.core.hyper_field import hyper_due, settlement_step
from table_runtime.core.zones_due import early_payments, expected_zones
from table_runtime.game.cards import Card
from table_runtime.game.hyper_settlement import HYPER_ZONES, SETTLEMENT_STEPS

FEIG_SLOW_SECONDS = 3.0  # `reader_slow`: every reply half as late again as the bench's FEIG driver waits (2 s)


class BenchHands(ChipHands):
    """The actions of the steps; `BenchTable` owns the devices and the runtime they act on."""

    # buttons and touches -------------------------------------------------------------------

    async def _press(self, button: str, where: str, *, wait: bool = True) -> None:
        seq = self.ctl.last_seq
        if self.choice.real("panel"):
            self.operator.ask(f"press {button}")
        else:
            await self._press_pin(button, where)
        if wait:  # the press became an input from the panel (other rows, e.g. a device status, do not count)
            await self.until(f"the {button} button", lambda: self._panel_input_after(seq), where, real="panel")

    async def _press_pin(self, button: str, where: str) -> None:
        """Down and up on the button's mock pin, each edge held until the panel has taken it, as a hand does.

        The panel takes an edge that comes within its debounce window of the last one only when the window ends,
        reading the pin's level then (drivers/panel_buttons.py). A press made at once after a release, and over
        before that late read on a loaded machine, was taken for a bounce and lost: a fixed hold of a few
        debounce times was no bound on how late the loop reads."""
        panel = self.panel
        assert panel is not None, "the runtime is not running"
        pin = self.pin_factory.pin(DEMO_PINS.buttons[button])
        pin.drive_low()
        await self.until(f"the {button} button held down", lambda: panel.is_pressed(button), where)
        pin.drive_high()
        await self.until(f"the {button} button let go", lambda: not panel.is_pressed(button), where)

    def _panel_input_after(self, seq: int) -> bool:
        return any(row["seq"] > seq and row["row"] == "input" and row.get("source") == "panel"
                   for row in reversed(self.rows()))

    async def _touch(self, args: dict[str, Any], where: str) -> list[Difference]:
        assert self.app is not None
        command = args["command"]
        extra: dict[str, Any] = {}
        if command == "MANUAL_CARD":
            extra["card"] = args["card"]
        if "reason" in args:
            extra["reason"] = args["reason"]
        for key in ("case", "box", "cents", "behind", "player",  # HYPER_ASSIGN (55-4 6°); SEAT, SEAT_CLEAR
                    "chips", "source", "number", "tender", "where", "reference",  # the séance (docs/accounts.md)
                    "to"):  # CHANGE
            if key in args:
                extra[key] = args[key]
        if command == "ACK_ALARM":
            await self.ctl.writer.settled()
            ids = self.ctl.alarms.active_of_kind(args["alarm"])
            if not ids:
                return [Difference(f"{where}.alarm", f"an active {args['alarm']} alarm", None,
                                   f"active: {[a['kind'] for a in self.ctl.alarms.active]}")]
            results = [await self.app.command("ACK_ALARM", {"id": alarm_id}, role=args["role"]) for alarm_id in ids]
            result = {"ok": all(r["ok"] for r in results), "message": results[-1]["message"]}
        else:
            result = await self.app.command(command, extra, role=args["role"])
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
        # A blackjack paid at once (house option pay_blackjack_before_bank): stake and payout on its zone for the
        # player to take away.
        early = {zone: cents for zone, cents in early_payments(round_).items()
                 if zone in self.zones and self.model_total(zone) and cents > self.model_total(zone)}
        for zone, cents in early.items():
            self._put(zone, self._paid(cents - self.model_total(zone)), where)
        if early:
            await self._settle_zones(where)
        due = {zone: cents for zone, cents in expected_zones(round_).items() if zone in self.zones}
        if round_.hyper_bets:  # the hyper field's cases (55-4 6°)
            due.update(hyper_due(round_, {zone: self.model_total(zone) for zone in HYPER_ZONES if zone in self.zones}))
        for zone, error in args["errors"].items():
            due[zone] = due.get(zone, self.model_total(zone)) + error
        groups: list[dict[str, int]] = [due]
        if round_.hyper_bets:  # in the text's order: hyper lost, lost, won, hyper won, each step done before the next
            groups = [{zone: cents for zone, cents in due.items()
                       if settlement_step(zone, cents, self.model_total(zone)) == step} for step in SETTLEMENT_STEPS]
        for group in groups:
            for zone, cents in group.items():
                have = self.model_total(zone)
                if cents > have:
                    self._put(zone, self._paid(cents - have), where)
                elif cents < have:
                    self._take(zone, "all", where, collect=True)
                    if cents:
                        self._put(zone, self._paid(cents), where)
            await self._settle_zones(where)
        if args["confirm"]:
            await self._press("CONFIRM", where)
        if args["clear"]:
            for zone in self.zones:
                if self.zone_chips[zone]:
                    self._take(zone, "all", where)
            await self._settle_zones(where)
            await self._settle_tray(where)  # the tray read whole after the round, as the next check will read it

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
        elif fault in FEIG_FAULTS:
            self._feig_fault(fault, where)
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
                  "reader_unplug": ("chips", "offline"), "reader_replug": ("chips", "online"),
                  "reader_impostor": ("chips", "offline"), "reader_heal": ("chips", "online")}.get(fault)
        if status is not None:
            name, value = status
            await self.until(f"the {name} {value}", lambda: self.ctl.devices.get(name) == value, where, real=name)
        elif fault in ("door_open", "door_close", "jam", "clear_jam") and not real_shoe:
            # acknowledged once journaled with its alarm (ack after commit, docs/journal.md): nothing more to wait for
            await self.until("the shoe's report acknowledged", lambda: shoe.firmware.unacknowledged == 0, where)

    def _feig_fault(self, fault: str, where: str) -> None:
        """A hostile FEIG reader's mode (simulators/feig_reader.py), or all of them ended (`reader_heal`)."""
        reader = self.reader_sim
        if not isinstance(reader, SimulatedFeigReader):
            raise StepFailed(where, f"{fault} is a FEIG reader's fault: run the scenario with --reader feig")
        if fault == "reader_impostor":
            impostor = reader.add_impostor(reader.firmware.address + 7)
            zones = list(reader.firmware.zones)
            impostor.place(zones[0], *(chip for zone in zones for chip in reader.chips(zone)))  # all on one zone
        elif fault == "reader_lose_replies":
            reader.lose_inventory_replies(1_000_000)
        elif fault == "reader_slow":
            reader.slow_down(FEIG_SLOW_SECONDS)
        elif fault == "reader_more_data":
            reader.more_data_forever()
        else:
            reader.remove_impostor()
            reader.lose_inventory_replies(0)
            reader.slow_down(0.0)
            reader.more_data_forever(False)

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
