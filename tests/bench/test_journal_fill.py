"""The bench's journal filler writes the checkpoints the controller writes: both ask one `checkpoint_before`."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

from bench.journal_fill import checkpoint, drop_checkpoints
from simulators.fast_table import FastTable
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.journal import Journal, journal_path
from table_runtime.journal import checkpoints as sealed
from table_runtime.runtime.controller import TableController


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
    assert checkpoint(path, rules, limits, every=every) == len(played)
    assert _stored(path) == played  # the same rows, the same states, byte for byte
