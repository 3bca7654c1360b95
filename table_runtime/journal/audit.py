"""The rows a start did not verify: from the first row to the checkpoint it started from, a chunk at a time.

A start verifies the chain from its checkpoint to the head (store.py); `ChainAudit` walks the rows before,
on its own read-only connection (the writer goes on appending), and checks that they lead to the hash the
checkpoint sealed, and every older checkpoint on the way (its seal and its row). The audit's process calls
`step`, one chunk per call (table_runtime/runtime/journal_audit.py). `ReadOnlyRows` is the rows of a journal file on
such a connection, for the audit's replays (runtime/checkpointing.py `JournalRows`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from table_runtime.journal import checkpoints, terms_index
from table_runtime.journal.chain import GENESIS_HASH, row_problem
from table_runtime.journal.rows import JournalEntry, paged_entries

CHUNK_ROWS = 5000


@dataclass(frozen=True, slots=True)
class AuditBreak:
    """Where the older rows break: the first bad `seq` (None when the file cannot be read) and why."""

    seq: int | None
    reason: str


class ChainAudit:
    """Checks rows 1..`until_seq` lead to `until_hash` (the start checkpoint's), `chunk_rows` rows per `step`."""

    def __init__(self, path: Path, until_seq: int, until_hash: str, *, chunk_rows: int = CHUNK_ROWS) -> None:
        self.path = path
        self.until_seq = until_seq
        self.until_hash = until_hash
        self.chunk_rows = chunk_rows
        self.expected = 1  # the next row to check
        self.prev_hash = GENESIS_HASH
        self.finding: AuditBreak | None = None
        self._db: sqlite3.Connection | None = None

    @property
    def done(self) -> bool:
        return self.finding is not None or self.expected > self.until_seq

    def step(self) -> AuditBreak | None:
        """Check the next chunk; the break found, if any (then `done`). Closes its connection once done."""
        if self.done:
            self.close()
            return self.finding
        try:
            self.finding = self._chunk()
        except sqlite3.Error as error:
            self.finding = AuditBreak(self.expected, f"row {self.expected}: unreadable: {error}")
        if self.done:
            self.close()
        return self.finding

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                                       check_same_thread=False, timeout=10.0)
        return self._db

    def _chunk(self) -> AuditBreak | None:
        db = self._connection()
        last = min(self.until_seq, self.expected + self.chunk_rows - 1)
        db.execute("BEGIN")
        try:
            rows = db.execute("SELECT seq, ts, kind, body, prev_hash, hash FROM entries WHERE seq BETWEEN ? AND ? "
                              "ORDER BY seq", (self.expected, last)).fetchall()
            sealed = checkpoints.between(db, self.expected, last)
        finally:
            db.execute("COMMIT")
        hashes: dict[int, str] = {}
        for row in rows:
            problem = row_problem(row, self.expected, self.prev_hash)
            if problem is not None:
                return AuditBreak(*problem)
            hashes[row[0]] = row[5]
            self.expected, self.prev_hash = row[0] + 1, row[5]
        if self.expected <= last:
            missing = f"row {self.expected}" if self.expected == last else f"rows {self.expected}..{last}"
            return AuditBreak(self.expected, f"{missing} missing (deleted)")
        for checkpoint in sealed:
            reason = checkpoints.problem(checkpoint, hashes.get(checkpoint.seq))
            if reason is not None:
                return AuditBreak(checkpoint.seq, reason)
        if self.expected > self.until_seq and self.prev_hash != self.until_hash:
            return AuditBreak(self.until_seq, f"row {self.until_seq}: its hash is not the one the start's checkpoint "
                                              "sealed (rows before it rewritten)")
        return None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to the journal file at `path` (the table's writer goes on appending)."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                           check_same_thread=False, timeout=10.0)


class ReadOnlyRows:
    """The rows of a journal file, read on a read-only connection of its own, a page at a time (as
    `Journal.entries` reads them)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = read_only(path)

    def terms_entries(self) -> list[JournalEntry]:
        """Every `terms` row (the table's terms), as `Journal.terms_entries` reads them."""
        return terms_index.terms_entries(self.db)

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def entries(self, after_seq: int = 0, limit: int | None = None, *, kinds: Collection[str] | None = None,
                exclude: Collection[str] = ()) -> Iterator[JournalEntry]:
        """Rows with seq > `after_seq` in order, at most `limit`, only of `kinds` if given, none of `exclude`."""
        return paged_entries(lambda query, parameters: self.db.execute(query, parameters).fetchall(), after_seq,
                             limit, kinds, exclude)

    def checkpoints_until(self, seq: int) -> list[checkpoints.Checkpoint]:
        return checkpoints.between(self.db, 1, seq)

    def close(self) -> None:
        self.db.close()
