"""The hash chain: each row's hash, what breaks the chain at which row, and `verify` of a whole file.

    hash = sha256(prev_hash "\\n" seq "\\n" repr(ts) "\\n" kind "\\n" body)

The first row's ``prev_hash`` is `GENESIS_HASH`; the one-row ``head`` table records the last seq and hash, so
rows cut from the end are noticed too.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_runtime.errors import JournalError
from table_runtime.journal import checkpoints
from table_runtime.journal.rows import PAGE_ROWS

GENESIS_HASH = "0" * 64


class JournalBrokenError(JournalError):
    """The hash chain is broken; `seq` is the first bad row, `reason` says how."""

    def __init__(self, path: Path, seq: int | None, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.seq = seq
        self.reason = reason


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """The outcome of checking the whole chain; `first_bad_seq` is None when ok."""

    ok: bool
    rows: int
    first_bad_seq: int | None
    reason: str


def entry_hash(prev_hash: str, seq: int, ts: float, kind: str, body_text: str) -> str:
    """The chain hash of one row (see the module docstring)."""
    text = "\n".join((prev_hash, str(seq), repr(float(ts)), kind, body_text))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def row_problem(row: tuple[Any, ...], expected_seq: int, prev_hash: str) -> tuple[int, str] | None:
    """Why `row` does not continue a chain whose last row was `expected_seq - 1`, if it does not."""
    seq, ts, kind, body_text, row_prev, row_hash = row
    if seq != expected_seq:
        if seq > expected_seq:
            missing = f"row {expected_seq}" if seq == expected_seq + 1 else f"rows {expected_seq}..{seq - 1}"
            return expected_seq, f"{missing} missing (deleted): seq jumps from {expected_seq - 1} to {seq}"
        return seq, f"row {seq} out of order after row {expected_seq - 1}"  # pragma: no cover - PK order
    if row_prev != prev_hash:
        return seq, f"row {seq}: prev_hash does not match the hash of row {seq - 1} (row replaced or reordered)"
    if not isinstance(ts, float) or not isinstance(kind, str) or not isinstance(body_text, str):
        return seq, f"row {seq}: a column has the wrong type (altered)"
    if entry_hash(row_prev, seq, ts, kind, body_text) != row_hash:
        return seq, f"row {seq}: hash does not match its contents (altered)"
    try:
        body = json.loads(body_text)
    except ValueError:
        return seq, f"row {seq}: body is not JSON"
    if not isinstance(body, dict):
        return seq, f"row {seq}: body is not a JSON object"
    return None


def head_mismatch(last_seq: int, head_seq: int) -> tuple[int, str]:
    """The first bad seq and why, when the last row is not the recorded head."""
    if head_seq > last_seq:
        missing = f"row {head_seq}" if head_seq == last_seq + 1 else f"rows {last_seq + 1}..{head_seq}"
        return last_seq + 1, f"{missing} missing (deleted from the end): the head records row {head_seq}"
    if head_seq < last_seq:
        return head_seq + 1, f"row {head_seq + 1}: after the recorded head (row {head_seq}); rows added or head altered"
    return last_seq, f"row {last_seq}: hash differs from the recorded head (altered)"


def verify_connection(db: sqlite3.Connection) -> VerifyResult:
    """Walk the chain on an open connection (used by `Journal.verify` and `verify_file`).

    One read transaction, so a writer appending meanwhile does not make the
    rows and the head disagree. Raises `sqlite3.DatabaseError` when the file is
    not a journal at all.
    """
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not {"entries", "head"} <= tables:
        raise sqlite3.DatabaseError("no entries or head table")
    db.execute("BEGIN")
    try:
        return _verify_snapshot(db)
    finally:
        db.execute("COMMIT")


def _verify_snapshot(db: sqlite3.Connection) -> VerifyResult:
    result = verify_from(db, 1, GENESIS_HASH)
    if not result.ok:
        return result
    for checkpoint, row_hash in checkpoints.with_row_hashes(db):
        reason = checkpoints.problem(checkpoint, row_hash)
        if reason is not None:
            return VerifyResult(False, result.rows, checkpoint.seq, reason)
    return result


def verify_from(db: sqlite3.Connection, expected: int, prev_hash: str) -> VerifyResult:
    """Walk the rows from seq `expected` (whose `prev_hash` must be the one given) to the head, in the caller's
    read transaction; `rows` counts the rows walked."""
    first, rows = expected, 0
    try:
        while True:
            page = db.execute(
                "SELECT seq, ts, kind, body, prev_hash, hash FROM entries WHERE seq >= ? ORDER BY seq LIMIT ?",
                (expected, PAGE_ROWS),
            ).fetchall()
            for row in page:
                problem = row_problem(row, expected, prev_hash)
                if problem is not None:
                    return VerifyResult(False, rows, problem[0], problem[1])
                rows += 1
                expected, prev_hash = row[0] + 1, row[5]
            if len(page) < PAGE_ROWS:
                break
        head = db.execute("SELECT seq, hash FROM head WHERE id = 1").fetchone()
    except sqlite3.Error as error:
        return VerifyResult(False, rows, expected, f"row {expected}: unreadable: {error}")
    if head is None:
        return VerifyResult(False, rows, None, "the head row is missing")
    if (head[0], head[1]) != (expected - 1, prev_hash):
        first_bad, reason = head_mismatch(expected - 1, head[0])
        return VerifyResult(False, rows, first_bad, reason)
    walked = f"{rows} rows" if first == 1 else f"{rows} rows after row {first - 1}"
    summary = f"{walked}, chain intact" + (f", last row {expected - 1} hash {prev_hash[:12]}" if rows else "")
    return VerifyResult(True, rows, None, summary)


def verify_file(path: str | Path) -> VerifyResult:
    """Verify a journal file without creating or changing anything; a missing file is an error."""
    path = Path(path)
    if not path.is_file():
        raise JournalError(f"{path}: no journal here")
    try:
        # mode=rw: never create; a read-write handle can replay a WAL left by a killed writer.
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True, isolation_level=None, timeout=10.0)
    except sqlite3.Error as error:
        raise JournalError(f"{path}: cannot open the journal: {error}") from error
    try:
        return verify_connection(db)
    except sqlite3.Error as error:  # not a database at all
        raise JournalError(f"{path}: not a journal: {error}") from error
    finally:
        db.close()
