"""A table core with every zone and the hyper black jack field, driven the way the runtime drives it (a zone's
chips as the readers report them, a press decided by the command table, a card with the lock it may bring), its
journal rows kept: for the core's tests and the display's snapshots of a real hyper round."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any

from table_runtime.config import zone_names
from table_runtime.core.commands import Refused, Submit
from table_runtime.core.inputs import CoreInput, ZoneChanged, ZoneChip, core_input_from_dict, core_to_dict
from table_runtime.core.table_core import TableCore
from table_runtime.game.cards import Card, parse_cards
from table_runtime.game.events import Alarm, Event
from table_runtime.game.inputs import CardDrawn, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.game.snapshot import table_snapshot
from table_runtime.journal import Journal
from table_runtime.runtime.controller import TableController

UIDS = (f"E004{n:012X}" for n in itertools.count(1))


@dataclass(frozen=True, slots=True)
class Row:
    seq: int
    kind: str
    body: dict[str, Any]


class Table:
    """A core with every zone, driven the way the runtime does, keeping its input rows."""

    def __init__(self, **rules: Any) -> None:
        self.rules = profile("fr-2020").replace(**rules)
        self.core = TableCore(self.rules, TableLimits(), zones=zone_names(7, hyper=True))
        self.rows: list[Row] = []
        self.alarms: list[Alarm] = []
        self.events: list[Event] = []
        self.zones: dict[str, tuple[ZoneChip, ...]] = {}
        for zone in zone_names(7, hyper=True):  # the readers report every zone once they start, empty ones too
            self.apply(ZoneChanged(zone=zone, chips=()))
        self.apply(ShoeShuffled(shoe_id="s1"))
        for card in parse_cards("2C 2D 2H 2S 3C"):  # the burn cards
            self.apply(CardDrawn(card=card))

    def apply(self, item: CoreInput) -> list[Event]:
        self.rows.append(Row(len(self.rows) + 1, "input", core_to_dict(item)))
        assert core_input_from_dict(self.rows[-1].body) == item
        events = self.core.step(item, len(self.rows))
        self.events += events
        self.alarms += [event for event in events if isinstance(event, Alarm)]
        return events

    def set(self, zone: str, cents: int) -> list[Event]:
        """The zone now holds `cents` (its chips kept where it can, 500-cent chips added, all taken for less)."""
        chips = self.zones.get(zone, ())
        have = sum(chip.cents for chip in chips)
        if cents < have:
            chips = ()
            have = 0
        chips += tuple(ZoneChip(uid=next(UIDS), cents=500) for _ in range((cents - have) // 500))
        self.zones[zone] = chips
        return self.apply(ZoneChanged(zone=zone, chips=chips))

    def press(self, name: str, **args: Any) -> Refused | None:
        decision = self.core.decide(name, args, role="dealer", source="display")
        if isinstance(decision, Refused):
            return decision
        assert isinstance(decision, Submit), decision
        for item, _ in decision.inputs:
            self.apply(item)
        return None

    def draw(self, cards: str) -> None:
        for card in parse_cards(cards):
            for item, _ in self.core.card_inputs(CardDrawn(card=Card.parse(card.code)), "shoe"):
                self.apply(item)

    def kinds(self) -> list[str]:
        return [alarm.kind for alarm in self.alarms]


def snapshot(table: Table, seq: int) -> dict[str, Any]:
    """The display's snapshot of the table (the runtime's fields added as the controller adds them)."""
    made = {"schema_version": 1, "table_id": "T1", "seq": seq, **table_snapshot(table.core.table),
            **table.core.snapshot_extra(), "alarms": [], "recovered": False,
            "devices": {"shoe": "online", "chips": "online", "broker": "online"}}
    made["shoe"]["online"] = True
    return made


def play_hyper_round(journal: Journal, table_id: str = "T7") -> TableController:
    """One round with hyper stakes on a real controller and `journal`: box 1 10.00 and its 10.00 on « BUST » and
    5.00 on « 20 », assigned on the display; the bank busts; the dealer pays right and confirms."""
    rules = profile("fr-casino").replace(hyper_blackjack=True)
    zones = zone_names(7, hyper=True)
    controller = TableController(table_id=table_id, rules=rules, limits=TableLimits(), journal=journal,
                                 clock=time.time, zones=zones)
    held: dict[str, tuple[ZoneChip, ...]] = {zone: () for zone in zones}

    def put(zone: str, cents: int) -> None:
        held[zone] = tuple(ZoneChip(uid=next(UIDS), cents=500) for _ in range(cents // 500))
        controller.report_zones([ZoneChanged(zone=zone, chips=held[zone])])

    controller.report_zones([ZoneChanged(zone=zone, chips=()) for zone in zones])
    controller.submit(ShoeShuffled(shoe_id="s1"))
    for card in parse_cards("2C 2D 2H 2S 3C"):
        controller.draw(CardDrawn(card=card), source="shoe")
    put("box1", 1000)
    put("hyper.bust", 1000)
    put("hyper.20", 500)
    for case, cents in (("bust", 1000), ("20", 500)):
        assert controller.press("HYPER_ASSIGN", {"case": case, "box": 1, "cents": cents}, role="dealer",
                                source="display")["ok"]
    assert controller.press("DEAL", {}, role="dealer", source="display")["ok"]
    for card in parse_cards("TC 6D 9C"):  # box 1 19 against a 6
        controller.draw(CardDrawn(card=card), source="shoe")
    controller.press("NEXT", {}, role="dealer", source="display")
    for card in parse_cards("TD 8S"):  # the bank busts: box 1 +10.00, « BUST » +20.00, « 20 » -5.00
        controller.draw(CardDrawn(card=card), source="shoe")
    put("hyper.20", 0)
    put("box1", 2000)
    put("hyper.bust", 3000)
    assert controller.press("CONFIRM", {}, role="dealer", source="display")["ok"]
    assert [alarm["kind"] for alarm in controller.alarms.active] == []

    return controller
