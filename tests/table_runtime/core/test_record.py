"""The one fold of the journal (core/record.py): every row kind it knows, and a kind it does not know is an error."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from simulators.fast_table import FastTable
from table_runtime.core.record import ROW_KINDS, UnknownRowError, fold_row
from table_runtime.core.table_core import TableCore
from table_runtime.errors import JournalError
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController

RULES, LIMITS = profile("fr-casino"), TableLimits()


def controller_on(journal: Journal) -> TableController:
    ticks = itertools.count()
    return TableController(table_id="T", rules=RULES, limits=LIMITS, journal=journal,
                           clock=lambda: 1_700_000_000.0 + next(ticks))


def test_a_row_kind_the_fold_does_not_know_is_an_error_never_skipped() -> None:
    with pytest.raises(UnknownRowError, match="row 12 is of kind 'bonus_paid'"):
        fold_row(TableCore(RULES, LIMITS), 12, "bonus_paid", {"type": "BonusPaid"})


def test_a_journal_holding_an_unknown_kind_is_refused_at_the_start_in_one_line(tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    with Journal.open(path) as journal:
        FastTable(controller_on(journal), seed=1, error_rate=0.0).run(1)
        journal.append("bonus_paid", {"type": "BonusPaid", "cents": 500}, ts=1_700_000_100.0)
        seq = journal.last_seq
    with Journal.open(path) as journal, pytest.raises(JournalError) as refused:
        controller_on(journal)
    assert f"row {seq} is of kind 'bonus_paid'" in str(refused.value) and "\n" not in str(refused.value)


def test_every_kind_the_table_writes_is_one_the_fold_knows(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        FastTable(controller, seed=2, error_rate=0.2).run(20)
        written = {entry.kind for entry in journal.entries()}
    assert written <= ROW_KINDS and {"input", "event", "alarm", "round", "status"} <= written
