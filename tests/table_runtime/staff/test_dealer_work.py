"""The dealer's work from the journal: per stint, summed over a shift's dealers, the table's own rounds and errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulators.fast_table import FastTable
from table_runtime.journal import Journal, journal_path
from table_runtime.staff.dealer_work import ERROR_KINDS, by_dealer, dealer_work
from tests.table_runtime.staff.staff_table import staff_controller, staff_desk, staff_registry


@pytest.mark.slow  # 35 rounds journaled with real fsyncs
def test_the_stints_sum_to_the_tables_own_rounds_and_errors(tmp_path: Path) -> None:
    registry = staff_registry(tmp_path)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry)
        FastTable(controller, seed=2, error_rate=0.3).run(3)  # before anyone logged in: no stint's
        first_login = journal.last_seq + 1
        for seed, dealer in enumerate(("D1", "D2", "D1", "D2"), start=10):
            desk.take_table(dealer, "pin")
            FastTable(controller, seed=seed, error_rate=0.3).run(8)
        desk.leave_table()
        entries = list(journal.entries())
    stints = dealer_work(entries)
    assert [stint.employee for stint in stints] == ["D1", "D2", "D1", "D2"]
    assert all(stint.until is not None for stint in stints)
    after = [entry for entry in entries if entry.seq >= first_login]
    rounds = [entry for entry in after if entry.kind == "round"]
    assert sum(stint.rounds for stint in stints) == len(rounds) == 32
    assert sum(stint.hands for stint in stints) == sum(len(box["hands"]) for entry in rounds
                                                      for box in entry.body["boxes"])
    assert sum(stint.box_rounds for stint in stints) == sum(len(entry.body["boxes"]) for entry in rounds)
    refused = sum(1 for entry in after if entry.kind in ("alarm", "alarm_updated")
                  and entry.body["kind"] == "command_refused")
    undos = sum(1 for entry in after if entry.kind == "input" and entry.body["type"] == "Undo")
    caught = sum(1 for entry in after if entry.kind in ("alarm", "alarm_updated")
                 and entry.body["kind"] in ("wrong_payout", "bank_must_stand", "bank_must_draw"))
    totals = {kind: sum(stint.errors[kind] for stint in stints) for kind in ERROR_KINDS}
    assert totals["refused"] == refused and totals["undo"] == undos
    assert totals["wrong_payout"] + totals["bank_draw"] == caught
    assert sum(totals.values()) > 0, "an error rate of 0.3 errs"
    # The notes the feed publishes: one per stint ended, with the same figures.
    notes = [entry.body for entry in entries if entry.kind == "status" and entry.body["type"] == "DealerWork"]
    assert [note["employee"] for note in notes] == ["D1", "D2", "D1", "D2"]
    assert [note["rounds"] for note in notes] == [stint.rounds for stint in stints]
    # Per dealer: his stints summed; the pace per hour of his own time on shift.
    dealers = by_dealer(stints)
    assert set(dealers) == {"D1", "D2"}
    assert dealers["D1"].rounds == stints[0].rounds + stints[2].rounds
    assert dealers["D1"].seconds == stints[0].seconds + stints[2].seconds > 0
    view = dealers["D1"].view()
    assert view["rounds_per_hour"] == round(dealers["D1"].rounds * 3600 / dealers["D1"].seconds, 2)
    assert view["errors_per_100_rounds"] == round(100 * sum(dealers["D1"].errors.values()) / dealers["D1"].rounds, 2)
