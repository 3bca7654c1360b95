"""A table with chips and no devices, for the chip-watch tests: a real controller and journal with the chip zones,
the readers' edge (`ZoneReporter`) on 5.00 € chips of casino 7, and the reader events the driver yields
(`ChipsScanned`), handed on as the runtime's reader loop does (`TableApp.report_chips`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from drivers.ports import ChipsScanned, ZoneReading
from firmware_bridge.rfid import Tag
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.edge import ZoneReporter
from table_runtime.chips.registry import RegisteredChip
from table_runtime.config import zone_names
from table_runtime.core.chip_watch import ChipWatch
from table_runtime.game.cards import parse_cards
from table_runtime.game.inputs import CardDrawn, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController

SETTLE_SCANS = 5  # a zone is first reported after 5 scans (the debounce's vanish_scans)


class ChipTable:
    """`scans`: how many scans `scan()` makes by default."""

    def __init__(self, path: Path, rules: str = "fr-casino", *, chips: int = 40, scans: int = 3) -> None:
        self.journal = Journal.open(journal_path(path))
        self.zones: dict[str, list[Tag]] = {zone: [] for zone in zone_names(7)}
        self.controller = TableController(table_id="T", rules=profile(rules), limits=TableLimits(),
                                          journal=self.journal, clock=lambda: 1.0, zones=tuple(self.zones))
        self.issuer = ChipIssuer(7, seed=1)
        self.now = 0.0
        self.scans = scans
        self.registry = {}
        for chip in self.issuer.issue(500, chips):
            assert chip.denomination_cents is not None
            self.registry[chip.uid] = RegisteredChip(uid=chip.uid, denomination_cents=chip.denomination_cents,
                                                     casino_id=7, status="active")
        self.free = list(self.issuer.issued.values())
        self.reporter = ZoneReporter(self.zones, registry=self.registry, casino_id=7)
        self.app = TableApp(self.controller, chips=self.reporter)

    @property
    def watch(self) -> ChipWatch:
        return self.controller.core.chips

    def put(self, zone: str, chips: int) -> None:
        self.zones[zone] += [self.free.pop() for _ in range(chips)]

    def take(self, zone: str, chips: int | None = None) -> None:
        count = len(self.zones[zone]) if chips is None else chips
        for _ in range(count):
            self.free.insert(0, self.zones[zone].pop())  # the next chips put down are other chips

    def scan(self, times: int | None = None, *, zones: tuple[str, ...] | None = None, reader: str = "r") -> None:
        """`times` scans (default `scans`) of `zones` (all by default) by one reader."""
        for _ in range(self.scans if times is None else times):
            self.now += 0.1
            readings = tuple(ZoneReading(zone=zone, tags=tuple(tags)) for zone, tags in self.zones.items()
                             if zones is None or zone in zones)
            self.app.report_chips(self.reporter.reader_event(ChipsScanned(reader=reader, at=self.now,
                                                                          readings=readings)))

    def press(self, name: str, role: str = "dealer", **args: Any) -> dict[str, Any]:
        """A panel button (or a touch, with `args`), as the runtime applies it."""
        return self.app.controller.press(name, dict(args), role=role, source="panel")

    def lock(self, chips: dict[str, int]) -> None:
        """A new shoe and its burns, then `chips` (zone -> number of chips) on the zones and NO MORE BETS."""
        self.controller.submit(ShoeShuffled(shoe_id="S1"))
        self.draw(" ".join(["9C", "9D", "9H", "9S", "8C"][:self.controller.rules.burn_cards]))
        for zone, count in chips.items():
            self.put(zone, count)
        self.scan(max(self.scans, SETTLE_SCANS))
        assert self.press("DEAL")["message"] == "bets locked"

    def draw(self, text: str) -> None:
        for card in parse_cards(text):
            self.controller.draw(CardDrawn(card=card), source="shoe")

    def alarms(self) -> list[dict[str, Any]]:
        return list(self.controller.alarms.active)

    def kinds(self) -> list[str]:
        return [alarm["kind"] for alarm in self.controller.alarms.active]
