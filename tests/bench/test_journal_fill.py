"""The bench's journal filler writes the checkpoints the controller writes: both ask one `checkpoint_before`."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

from bench.journal_fill import checkpoint, drop_checkpoints, fill, template
from simulators.fast_table import FastTable
from table_runtime.core.terms import TableTerms
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.journal import Journal, journal_path
from table_runtime.journal import checkpoints as sealed
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds
from table_runtime.runtime.terms import journal_terms


def _stored(path: Path) -> list[tuple[int, str, str]]:
    with sqlite3.connect(path) as db:
        return [(checkpoint.seq, checkpoint.chain_hash, checkpoint.state_text)
                for checkpoint in sealed.between(db, 1, 10**12)]


def test_the_filler_checkpoints_a_played_journal_where_and_as_the_controller_did(tmp_path: Path) -> None:
    rules, limits, every = RuleOptions(), TableLimits(), 60
    path = journal_path(tmp_path)
    ticks = itertools.count()
    with Journal.open(path) as journal:
        controller = TableController(table_id="T", rules=rules, limits=limits, journal=journal,
                                     clock=lambda: 1_700_000_000.0 + next(ticks) * 0.5, checkpoint_rows=every)
        FastTable(controller, seed=3, error_rate=0.05).run(12)
    played = _stored(path)
    assert len(played) >= 3  # enough rounds for several checkpoints, some rounds between them skipped

    drop_checkpoints(path)
    assert checkpoint(path, every=every) == len(played)
    assert _stored(path) == played  # the same rows, the same states, byte for byte


def test_a_filled_journal_holds_its_terms_once_and_verifies(tmp_path: Path) -> None:
    rules, limits = RuleOptions().replace(surrender=True), TableLimits(min_bet_cents=1000)
    rows, rounds = template(rules, limits, rounds=6)
    path = journal_path(tmp_path)
    written = fill(path, 3 * len(rows), rows, rounds)
    assert checkpoint(path, every=100) > 0
    with Journal.open(path) as journal:
        assert journal.last_seq == written and journal.verify().ok
        [terms] = journal.terms_entries()
        assert terms.seq == 1 and journal_terms(journal) == TableTerms.of("T", rules, limits)
        assert len(recall_rounds(journal, last=2 * rounds)) == 2 * rounds  # the copies replay under those terms
