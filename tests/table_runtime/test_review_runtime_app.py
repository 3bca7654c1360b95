"""Review of the app's dealer commands with a real chip watcher, link and controller (no devices).

As in the assembled table, only the app tells the chip link that the round changed.
"""

from __future__ import annotations

from pathlib import Path

from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.chip_link import ChipLink
from table_runtime.runtime.controller import TableController
from tests.table_runtime.test_chip_link import Table


class AppTable(Table):
    """The chip-link test table, with the link followed by a `TableApp` instead of by the test."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.journal.close()
        self.journal = Journal.open(journal_path(path))
        self.controller = TableController(table_id="T", rules=self.controller.rules, limits=self.controller.limits,
                                          journal=self.journal, clock=lambda: 1.0)
        self.link = ChipLink(self.watcher, self.controller)
        self.app = TableApp(self.controller, chip_link=self.link)

    def insurance_round(self) -> None:
        """Box1 10.00 € on 15 against the bank's ace, 5.00 € on its insurance line, CONFIRM."""
        self.lock({"box1": 2})
        self.draw("TS AH 5D")
        self.put("box1.insurance", 1)
        self.scan()
        assert self.app.apply_command("CONFIRM", {}, role="dealer", source="panel")["ok"]


def test_insurance_line_is_closed_for_the_rest_of_the_round_after_confirm(tmp_path: Path) -> None:
    table = AppTable(tmp_path)
    table.insurance_round()
    round_ = table.controller.table.round
    assert round_ is not None and round_.phase == "playing" and round_.boxes[0].insurance == 500
    table.put("box1.insurance", 1)  # a chip slipped onto the line while box1 plays
    table.scan(6)
    past = [alarm for alarm in table.controller.alarms.active if alarm["kind"] == "past_posting"]
    assert [(alarm["box"], alarm["amounts"]["seen_cents"]) for alarm in past] == [(1, 1000)]
    table.journal.close()

