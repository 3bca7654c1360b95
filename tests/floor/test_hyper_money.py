"""The floor's drop and win count the hyper black jack stakes (55-4 6°) with the boxes': a hyper round played on
a real controller and journal, its feed messages folded by the pit's read model."""

from __future__ import annotations

from pathlib import Path

from casino_floor.shifts import Shifts
from casino_floor.tables_view import FloorView
from table_runtime.journal import Journal
from tests.floor.journals import feed_messages
from tests.table_runtime.core.hyper_table import play_hyper_round


def test_the_drop_and_the_win_include_the_hyper_stakes(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "hyper.db")
    controller = play_hyper_round(journal)
    assert [alarm["kind"] for alarm in controller.alarms.active] == []
    (record,) = [entry for entry in journal.entries() if entry.kind == "round"]
    stakes = sorted((p["kind"], p["staked_cents"], p["net_cents"]) for p in record.body["payouts"])
    assert stakes == [("hyper.20", 500, -500), ("hyper.bust", 1000, 2000), ("original", 1000, 1000)]
    view = FloorView(shifts=Shifts((0,)))
    for _, name, payload in feed_messages(journal, "casino", "T7"):
        view.apply(name, payload)
    (shift,) = view.overview()["tables"][0]["shifts"]
    assert (shift["drop_cents"], shift["win_cents"]) == (2500, -2500)  # 25.00 staked, the house paid 25.00 net
    journal.close()
