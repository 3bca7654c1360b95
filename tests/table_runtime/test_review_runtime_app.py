"""Review of the app's dealer commands with a real chip watcher, link and controller (no devices).

As in the assembled table, only the app tells the chip link that the round changed.
"""

from __future__ import annotations

from pathlib import Path

from table_runtime.game.inputs import ShoeShuffled
from table_runtime.runtime.app import TableApp
from tests.table_runtime.chip_table import ChipTable


class AppTable(ChipTable):
    """The chip table with the app that follows it: as in the assembled table, only the app tells the link."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, follow=False)
        self.app = TableApp(self.controller, chip_link=self.link)

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
