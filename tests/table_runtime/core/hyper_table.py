"""A table core with every zone and the hyper black jack field, driven the way the runtime drives it (a zone's
chips as the readers report them, a press decided by the command table, a card with the lock it may bring), its
journal rows kept: for the core's tests and the display's snapshots of a real hyper round."""

from __future__ import annotations

import itertools
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
