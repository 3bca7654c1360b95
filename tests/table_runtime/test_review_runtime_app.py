"""Review of the app's dealer commands with a real chip watcher, link and controller (no devices).

As in the assembled table, only the app tells the chip link that the round changed.
"""

from __future__ import annotations

from pathlib import Path

from drivers.chip_reader import ChipsScanned, ZoneReading
from firmware_bridge.rfid import Tag
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.registry import RegisteredChip
from table_runtime.chips.watch import ChipWatcher
from table_runtime.config import zone_names
from table_runtime.game.cards import parse_cards
from table_runtime.game.inputs import CardDrawn, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.chip_link import ChipLink
from table_runtime.runtime.controller import TableController


class AppTable:
    """A controller, a chip watcher on 500-cent chips of casino 7, its link, and the app that follows it."""

    def __init__(self, path: Path) -> None:
        self.journal = Journal.open(journal_path(path))
        self.controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(),
                                          journal=self.journal, clock=lambda: 1.0)
        issuer = ChipIssuer(7, seed=1)
        registry = {}
        for chip in issuer.issue(500, 40):
            assert chip.denomination_cents is not None
            registry[chip.uid] = RegisteredChip(uid=chip.uid, denomination_cents=chip.denomination_cents,
                                                casino_id=7, status="active")
        self.free = list(issuer.issued.values())
        self.zones: dict[str, list[Tag]] = {zone: [] for zone in zone_names(7)}
        self.now = 0.0
        self.watcher = ChipWatcher(self.zones, registry=registry, casino_id=7)
        self.link = ChipLink(self.watcher, self.controller)
        self.app = TableApp(self.controller, chip_link=self.link)

    def put(self, zone: str, chips: int) -> None:
        self.zones[zone] += [self.free.pop() for _ in range(chips)]

    def scan(self, times: int = 3) -> None:
        for _ in range(times):
            self.now += 0.1
            readings = tuple(ZoneReading(zone=zone, tags=tuple(tags)) for zone, tags in self.zones.items())
            self.link.reader_event(ChipsScanned(reader="r", at=self.now, readings=readings))

    def draw(self, text: str) -> None:
        for card in parse_cards(text):
            self.controller.submit(CardDrawn(card=card), source="shoe")

    def command(self, name: str) -> dict[str, object]:
        return self.app.apply_command(name, {}, role="dealer", source="panel")


def test_insurance_line_is_closed_for_the_rest_of_the_round_after_confirm(tmp_path: Path) -> None:
    table = AppTable(tmp_path)
    table.controller.submit(ShoeShuffled(shoe_id="S1"))
    table.draw("9C 9D 9H 9S 8C")
    table.put("box1", 2)
    table.scan()
    assert table.command("DEAL")["message"] == "bets locked"
    table.draw("TS AH 5D")  # box1 15, the bank's ace: the insurance line opens for 5.00 €
    table.put("box1.insurance", 1)
    table.scan()
    assert table.command("CONFIRM")["ok"]
    round_ = table.controller.table.round
    assert round_ is not None and round_.phase == "playing" and round_.boxes[0].insurance == 500
    table.put("box1.insurance", 1)  # a chip slipped onto the line while box1 plays
    table.scan(6)
    past = [alarm for alarm in table.controller.alarms.active if alarm["kind"] == "past_posting"]
    assert [(alarm["box"], alarm["amounts"]["seen_cents"]) for alarm in past] == [(1, 1000)]
    table.journal.close()
