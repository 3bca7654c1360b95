"""The dealer's work from the journal: per stint, summed over a shift's dealers, the table's own rounds and errors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from simulators.fast_table import FastTable
from table_runtime.journal import Journal, journal_path
from table_runtime.staff.dealer_work import ERROR_KINDS, WorkTally, by_dealer, dealer_work
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
    # A feed's reader folds each row by its fields (`add_fields`): the same stints after every row.
    rows_added, fields_added = WorkTally(), WorkTally()
    for entry in entries:
        rows_added.add(entry)
        fields_added.add_fields(entry.seq, entry.ts, entry.kind, entry.body)
        assert [stint.view() for stint in fields_added.stints] == [stint.view() for stint in rows_added.stints]
        shown = [tally.open.view() if tally.open is not None else None for tally in (rows_added, fields_added)]
        assert shown[0] == shown[1]


@dataclass(frozen=True)
class Row:
    seq: int
    ts: float
    kind: str
    body: dict[str, Any]


def rows(*items: tuple[float, str, str]) -> list[Row]:
    return [Row(seq, ts, kind, {"type": type_, "employee": "D1", "role": "dealer", "kind": "", "boxes": []})
            for seq, (ts, kind, type_) in enumerate(items, start=1)]


def test_the_shuffle_is_apart_from_the_idle_time() -> None:
    """From the record of the round the cut card came out in (or the cut card between rounds) to the next shoe's
    ShoeShuffled; a first shoe, or a ShoeShuffled with no shoe ended, is no shuffle of his."""
    (stint,) = dealer_work(rows(
        (0, "input", "EmployeeLoggedIn"), (5, "input", "ShoeShuffled"),
        (10, "event", "RoundStarted"), (20, "event", "CutCardSeen"), (30, "round", "RoundRecord"),
        (90, "input", "ShoeShuffled"),  # 60 s of shuffle
        (100, "event", "RoundStarted"), (130, "round", "RoundRecord"),
        (140, "event", "CutCardSeen"), (150, "input", "ShoeShuffled"),  # the cut card between rounds: 10 s
        (200, "input", "EmployeeLoggedOut")))
    view = stint.view()
    assert (view["seconds"], view["seconds_in_rounds"], view["shuffle_seconds"], view["idle_seconds"]) == \
        (200, 50, 70, 80)
    assert by_dealer([stint, stint])["D1"].view()["shuffle_seconds"] == 140


@pytest.mark.slow  # 70 rounds journaled with real fsyncs
def test_a_stints_shuffles_are_the_journals_shoe_changes(tmp_path: Path) -> None:
    registry = staff_registry(tmp_path)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry)
        desk.take_table("D1", "pin")
        FastTable(controller, seed=4).run(70)
        desk.leave_table()
        entries = list(journal.entries())
    (stint,) = dealer_work(entries)
    shuffled = [entry for entry in entries if entry.kind == "input" and entry.body["type"] == "ShoeShuffled"
                and entry.seq > stint.since_seq and any(row.kind == "round" for row in entries[:entry.seq])]
    assert len(shuffled) >= 2, "70 rounds go through more than two shoes (the first shoe is no shuffle of his)"
    ends = [max(entry.ts for entry in entries if entry.kind == "round" and entry.seq < shuffle.seq)
            for shuffle in shuffled]
    assert stint.shuffle_seconds == sum(shuffle.ts - end for shuffle, end in zip(shuffled, ends, strict=True)) > 0
    view = stint.view()
    assert view["idle_seconds"] == round(stint.seconds - stint.seconds_in_rounds - stint.shuffle_seconds, 3)
