"""Sealed checkpoints: the chain's hash and the table's state at a seq, so a start or a recall reads only the
rows after it.

One row per checkpoint in a ``checkpoints`` table of its own (a journal written before it has none: it is
created on open and filled going forward)::

    seal = sha256("checkpoint" "\\n" seq "\\n" chain_hash "\\n" state)

where ``chain_hash`` is the hash of journal row ``seq`` and ``state`` the canonical JSON of the table core
after that row (table_runtime/core/core_state.py). A state or a chain hash changed without its seal is
refused; a checkpoint whose chain hash is not the row's is refused (the row or the checkpoint was changed);
a state forged together with its seal is found by the background audit, which replays the inputs between two
checkpoints and compares (table_runtime/runtime/journal_audit.py).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from typing import Any

CHECKPOINT_ROWS = 2000
"""Rows between two checkpoints by default (`[journal] checkpoint_rows`): a start replays at most this many rows and
one round (bench/README.md "Journal checkpoints" measured the cost)."""

CHECKPOINTS_SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    seq INTEGER PRIMARY KEY,
    chain_hash TEXT NOT NULL,
    state TEXT NOT NULL,
    seal TEXT NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The table core's `state` after row `seq`, whose hash is `chain_hash`."""

    seq: int
    chain_hash: str
    state_text: str
    seal: str

    @property
    def state(self) -> dict[str, Any]:
        value = json.loads(self.state_text)
        if not isinstance(value, dict):
            raise ValueError("a checkpoint's state is a JSON object")
        return value


def seal_of(seq: int, chain_hash: str, state_text: str) -> str:
    """The seal of a checkpoint (see the module docstring)."""
    text = "\n".join(("checkpoint", str(seq), chain_hash, state_text))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def encode_state(state: dict[str, Any]) -> str:
    return json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def create_table(db: sqlite3.Connection) -> None:
    """The checkpoints table, if the journal has none yet (an older journal gets it on its first open)."""
    db.execute(CHECKPOINTS_SCHEMA)


def has_table(db: sqlite3.Connection) -> bool:
    found = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").fetchone()
    return found is not None


def insert(db: sqlite3.Connection, seq: int, chain_hash: str, state: dict[str, Any]) -> Checkpoint:
    """Store a checkpoint (a second one at the same seq replaces nothing: the first stays)."""
    text = encode_state(state)
    checkpoint = Checkpoint(seq, chain_hash, text, seal_of(seq, chain_hash, text))
    db.execute("INSERT OR IGNORE INTO checkpoints (seq, chain_hash, state, seal) VALUES (?, ?, ?, ?)",
               (checkpoint.seq, checkpoint.chain_hash, checkpoint.state_text, checkpoint.seal))
    return checkpoint


def _from_row(row: tuple[Any, ...] | None) -> Checkpoint | None:
    if row is None:
        return None
    seq, chain_hash, state_text, seal = row
    return Checkpoint(int(seq), str(chain_hash), str(state_text), str(seal))


def latest(db: sqlite3.Connection, *, before: int | None = None) -> Checkpoint | None:
    """The newest checkpoint (with seq < `before` if given), unchecked; None when there is none."""
    if not has_table(db):
        return None
    if before is None:
        row = db.execute("SELECT seq, chain_hash, state, seal FROM checkpoints ORDER BY seq DESC LIMIT 1").fetchone()
    else:
        row = db.execute("SELECT seq, chain_hash, state, seal FROM checkpoints WHERE seq < ? ORDER BY seq DESC "
                         "LIMIT 1", (before,)).fetchone()
    return _from_row(row)


def between(db: sqlite3.Connection, first: int, last: int) -> list[Checkpoint]:
    """The checkpoints with `first` <= seq <= `last`, in order."""
    if not has_table(db):
        return []
    rows = db.execute("SELECT seq, chain_hash, state, seal FROM checkpoints WHERE seq BETWEEN ? AND ? ORDER BY seq",
                      (first, last)).fetchall()
    return [checkpoint for row in rows if (checkpoint := _from_row(row)) is not None]


def problem(checkpoint: Checkpoint, row_hash: str | None) -> str | None:
    """Why a checkpoint cannot be trusted, given the hash of journal row `seq` (None: no such row)."""
    if seal_of(checkpoint.seq, checkpoint.chain_hash, checkpoint.state_text) != checkpoint.seal:
        return f"checkpoint at row {checkpoint.seq}: its seal does not match its contents (checkpoint altered)"
    if row_hash is None:
        return f"checkpoint at row {checkpoint.seq}: the row is not in the journal (rows deleted)"
    if row_hash != checkpoint.chain_hash:
        return (f"checkpoint at row {checkpoint.seq}: the row's hash is not the one the checkpoint sealed "
                "(row or checkpoint altered)")
    try:
        checkpoint.state  # noqa: B018 - the state must be a JSON object
    except ValueError:
        return f"checkpoint at row {checkpoint.seq}: its state is not a JSON object"
    return None


def with_row_hashes(db: sqlite3.Connection) -> list[tuple[Checkpoint, str | None]]:
    """Every checkpoint with the hash of its journal row (None when the row is not there), in order."""
    if not has_table(db):
        return []
    rows = db.execute("SELECT c.seq, c.chain_hash, c.state, c.seal, e.hash FROM checkpoints AS c "
                      "LEFT JOIN entries AS e ON e.seq = c.seq ORDER BY c.seq").fetchall()
    return [(Checkpoint(int(seq), str(chain), str(state), str(seal)), None if row_hash is None else str(row_hash))
            for seq, chain, state, seal, row_hash in rows]
