"""The bench's hands on the chips: chips placed and taken on the zones, special chips, the zones settled.

`ChipHands` places and takes chips on the simulated reader (with a real reader,
each becomes a prompt to the person at the bench) and waits until the runtime's
zone totals match what the bench put down. A special chip (counterfeit, stolen,
void, another casino's, relabelled) waits for the alarm it must raise.
"""

from __future__ import annotations

import random
from typing import Any

from firmware_bridge.rfid.messages import Tag
from simulators.bench.observing import BenchObserving, StepFailed
from simulators.bench.scenario import SPECIAL_CHIPS
from simulators.rfid_chips import DENOMINATIONS_CENTS

OTHER_CASINO_ID = 9


class ChipHands(BenchObserving):
    """The chip actions of the steps."""

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

    def _paid(self, cents: int) -> list[Tag]:
        """Chips the dealer pays `cents` with: from the tray read by the reader if the scenario has one."""
        return self.rack.pay(cents) if self.rack is not None else self.tray.take(cents)

    async def _tray(self, args: dict[str, int], where: str) -> None:
        """A chip of the tray's taken (`take`), or a chip put into it by mistake (`drop`); waits for its read."""
        assert self.rack is not None
        if "take" in args:
            try:
                self.rack.pocket(args["take"])
            except ValueError as error:
                raise StepFailed(where, str(error)) from error
        else:
            self.rack.drop(self.tray.take(args["drop"])[0])
        await self._settle_tray(where)

    async def _settle_tray(self, where: str) -> None:
        """Until the table's last whole read of the tray is the tray as it lies (core/tray.py)."""
        if self.rack is None:
            return
        rack = self.rack
        await self.until(f"the tray read whole at {rack.total_cents} cents",
                         lambda: self.ctl.core.tray.read_cents == rack.total_cents, where)

    def _take(self, zone: str, amount: int | str | list[int], where: str, *, collect: bool = False) -> None:
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
        good = [chip for chip in taken if chip.uid not in self.refused
                and chip.uid in self.issuer.issued and self.issuer.status[chip.uid] == "active"]
        if collect and self.rack is not None:
            self.rack.rack(good)  # the dealer collects into the tray the reader reads
        else:
            self.tray.give_back(good)

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
