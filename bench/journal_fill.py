"""Long journals fast: a few hundred rounds played for real, copied with the real chain hash, checkpointed by replay.

Playing a million rows round by round takes minutes; this plays `template_rounds` rounds once with the fast
demo table (the runtime's controller and journal), then writes its terms row (the journal's first, once) and
appends copies of the other rows until the journal holds `rows` rows, each copy renumbered (its seqs, alarm ids
and round numbers shifted so that the rows say what a replay of their inputs makes: each copy starts with a
shuffle) and hashed into the chain as `Journal.append_many` does, in a few large transactions. The checkpoints
are then written as the controller writes them (just before each input that starts a round, every
`checkpoint_rows` rows), from a replay of the whole journal into the table its terms row describes (the one
constructor). `journal verify` passes on the result.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from simulators.fast_table import FastTable
from table_runtime.core.core_state import checkpoint_before
from table_runtime.core.journal_rows import InputRow, row_from_json
from table_runtime.core.record import fold
from table_runtime.core.row_kinds import DERIVED_KINDS, RowKind
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.journal import Journal, encode_body, entry_hash, journal_path
from table_runtime.journal import checkpoints as sealed
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.terms import table_core

Row = tuple[float, str, str]  # ts, kind, body text


def template(rules: RuleOptions, limits: TableLimits, *, rounds: int, seed: int = 5) -> tuple[list[Row], int]:
    """The rows of `rounds` rounds played from a fresh table (no checkpoint; its terms row first), and how many
    rounds started."""
    with tempfile.TemporaryDirectory(prefix="journal-template-") as tmp, Journal.open(journal_path(Path(tmp))) as j:
        j._db().execute("PRAGMA synchronous=OFF")  # filling only
        ticks = itertools.count()
        controller = TableController(table_id="T", rules=rules, limits=limits, journal=j,
                                     clock=lambda: 1_700_000_000.0 + next(ticks) * 0.5, checkpoint_rows=10**12)
        FastTable(controller, seed=seed, error_rate=0.02).run(rounds)
        rows = [(e.ts, e.kind, encode_body(e.body)) for e in j.entries()]
        return rows, controller.table.rounds_started


def _shifted(kind: str, body_text: str, seqs: int, rounds: int) -> str:
    """A template row's body in a copy: its seqs (alarm ids are seqs) and round numbers shifted."""
    if kind == "input" or (seqs == 0 and rounds == 0):
        return body_text
    body: dict[str, Any] = json.loads(body_text)
    if body.get("round"):
        body["round"] += rounds
    for key in ("id", "seq", "started_seq", "closed_seq"):
        if key in body and kind != "status":
            body[key] += seqs
    for alarm in body.get("alarms", ()) if kind == "round" else ():
        alarm["id"] += seqs
    return encode_body(body)


def fill(path: Path, rows: int, template_rows: list[Row], template_rounds: int) -> int:
    """Write the template's terms row, then append copies of its other rows to a new journal at `path` until it
    holds about `rows` rows (it ends with a whole copy's round); returns the rows written."""
    terms, *played = template_rows
    assert terms[1] == RowKind.TERMS, terms  # the table's terms: once, the journal's first row
    with Journal.open(path) as journal:
        db = journal._db()
        db.execute("PRAGMA synchronous=OFF")
        seq, prev = db.execute("SELECT seq, hash FROM head WHERE id = 1").fetchone()
        assert seq == 0, f"{path} is not a new journal"
        span = played[-1][0] - played[0][0] + 1.0
        copy = 0
        while seq < rows:
            batch = []
            for ts, kind, text in [terms, *played] if copy == 0 else played:
                seq += 1
                body = _shifted(kind, text, copy * len(played), copy * template_rounds)
                ts = ts + copy * span
                digest = entry_hash(prev, seq, ts, kind, body)
                batch.append((seq, ts, kind, body, prev, digest))
                prev = digest
                if seq >= rows and kind == "round":
                    break
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO entries (seq, ts, kind, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)",
                           batch)
            db.execute("UPDATE head SET seq = ?, hash = ? WHERE id = 1", (seq, prev))
            db.execute("COMMIT")
            copy += 1
        return int(seq)


def checkpoint(path: Path, *, every: int) -> int:
    """Write the checkpoints the controller would have written (the one fold over the whole journal, into the
    table its terms row describes); how many."""
    last, written = 0, 0
    with Journal.open(path) as journal:
        core = table_core(journal)
        found: list[tuple[int, dict[str, Any]]] = []
        for entry in journal.entries(exclude=DERIVED_KINDS):
            row = row_from_json(entry.seq, entry.kind, entry.body)  # the journal's one codec, then the one fold
            item = row.item if isinstance(row, InputRow) else None
            _, state = checkpoint_before(item, core, entry.seq - 1, last, every, partial(fold, core, entry.seq, row))
            if state is not None:
                found.append((entry.seq - 1, state))
                last = entry.seq - 1
        db = journal._db()
        db.execute("BEGIN IMMEDIATE")
        for seq, state in found:
            row_hash = db.execute("SELECT hash FROM entries WHERE seq = ?", (seq,)).fetchone()[0]
            sealed.insert(db, seq, row_hash, state)
            written += 1
        db.execute("COMMIT")
    return written


def drop_checkpoints(path: Path) -> None:
    """A journal as an older version wrote it: no checkpoint table (the baseline)."""
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE IF EXISTS checkpoints")
