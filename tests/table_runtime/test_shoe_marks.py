"""The last shoe event journaled is part of the one fold's state (runtime/shoe_marks.py): a restart knows it from the
rows after the newest checkpoint, or from the checkpoint itself when none of those came from the shoe; no search
of the rows' bodies."""

from __future__ import annotations

import itertools
from pathlib import Path

from simulators.fast_table import FastTable
from table_runtime.game.inputs import ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.game.shoe_count import shoe_id_of
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.shoe_link import ShoeLink

RULES, LIMITS = profile("fr-casino"), TableLimits()


def controller_on(journal: Journal, *, checkpoint_rows: int = 10**12) -> TableController:
    ticks = itertools.count()
    return TableController(table_id="T", rules=RULES, limits=LIMITS, journal=journal,
                           clock=lambda: 1_700_000_000.0 + next(ticks), checkpoint_rows=checkpoint_rows)


def shuffled_from_the_shoe(controller: TableController, boot_id: int, sequence: int) -> None:
    controller.submit_all([(ShoeShuffled(shoe_id=shoe_id_of(sequence)), "shoe")],
                          origin={"device": "shoe", "boot_id": boot_id, "sequence": sequence})


def test_a_restart_knows_the_last_shoe_event_from_the_fold(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        live = controller_on(journal)
        shuffled_from_the_shoe(live, 7, 41)
        shuffled_from_the_shoe(live, 7, 42)
        live.note({"type": "Stopping"})  # a later row that is not the shoe's changes nothing
        assert live.core.shoe_mark == (7, 42)
    with Journal.open(journal_path(tmp_path)) as journal:
        again = controller_on(journal)
        assert again.core.shoe_mark == (7, 42)
        marks = ShoeLink(again, None).marks
        marks.boot_id = 7
        assert marks.journaled_already(42) and marks.journaled_already(41) and not marks.journaled_already(43)
        marks.boot_id = 8  # another boot of the shoe: its sequences start again
        assert not marks.journaled_already(42)


def test_the_checkpoint_carries_the_mark_when_no_row_after_it_came_from_the_shoe(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        live = controller_on(journal, checkpoint_rows=40)
        shuffled_from_the_shoe(live, 3, 9)
        origin_seq = live.last_seq
        FastTable(live, seed=5).run(8)  # the fast table's cards carry no origin: checkpoints are written after
    with Journal.open(journal_path(tmp_path)) as journal:
        start = journal.start_checkpoint
        assert start is not None and start.seq > origin_seq
        assert start.state["core"]["shoe_mark"] == [3, 9]
        assert controller_on(journal).core.shoe_mark == (3, 9)
