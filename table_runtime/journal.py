"""The journal: every input and event of the table, in order, hash-chained, durable.

One SQLite file (``DATA_DIR/journal.db``) in WAL mode with ``synchronous=FULL``:
an `append` returns only after its transaction is committed and the write-ahead
log fsynced, so whatever the runtime acted on survives a crash or a power cut.
WAL lets other connections and processes (the feed, `recall`, `journal verify`)
read while the one writer appends.

Each row carries the hash of the row before it::

    hash = sha256(prev_hash "\\n" seq "\\n" repr(ts) "\\n" kind "\\n" body)

where ``body`` is the JSON text as stored (sorted keys, compact) and the first
row's ``prev_hash`` is 64 zeros. A changed body, a deleted or reordered row breaks
the chain at a row `verify` names. The last seq and hash are also kept in a
one-row ``head`` table updated in the same transaction, so rows cut from the end
are noticed too. (Someone who rewrites the whole file and the head can forge a
chain: the feed publishes each row's hash off the table, which anchors it.)
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from table_runtime.errors import JournalError

JOURNAL_FILE = "journal.db"
GENESIS_HASH = "0" * 64
SCHEMA_VERSION = 1
_PAGE = 500  # rows read per query: readers never hold the connection between pages

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY,
    ts REAL NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT OR IGNORE INTO head (id, seq, hash) VALUES (1, 0, '""" + GENESIS_HASH + """');
"""


class JournalBrokenError(JournalError):
    """The hash chain is broken; `seq` is the first bad row, `reason` says how."""

    def __init__(self, path: Path, seq: int | None, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.seq = seq
        self.reason = reason


class JournalBodyError(JournalError, TypeError):
    """A kind or body that cannot be journaled (not JSON, NaN, bad kind)."""


class JournalClosedError(JournalError):
    """The journal was used after `close`."""


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One row: the table-wide `seq`, when (`ts`, seconds since the epoch), what."""

    seq: int
    ts: float
    kind: str
    body: dict[str, Any]
    prev_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """The outcome of checking the whole chain; `first_bad_seq` is None when ok."""

    ok: bool
    rows: int
    first_bad_seq: int | None
    reason: str


def journal_path(data_dir: str | Path) -> Path:
    """Where the journal of a data directory lives."""
    return Path(data_dir) / JOURNAL_FILE


def encode_body(body: Mapping[str, Any]) -> str:
    """The canonical JSON text of a body: sorted keys, compact, no NaN."""
    if not isinstance(body, Mapping):
        raise JournalBodyError(f"a journal body is a mapping, not {type(body).__name__}")
    try:
        text = json.dumps(dict(body), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")  # a lone surrogate (JSON may carry "\ud800") is no text the chain can hash or store
    except (TypeError, ValueError) as error:  # UnicodeEncodeError is a ValueError
        raise JournalBodyError(f"body is not plain JSON: {error}") from error
    return text


def entry_hash(prev_hash: str, seq: int, ts: float, kind: str, body_text: str) -> str:
    """The chain hash of one row (see the module docstring)."""
    text = "\n".join((prev_hash, str(seq), repr(float(ts)), kind, body_text))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check_kind(kind: str) -> None:
    if not isinstance(kind, str) or not kind or "\n" in kind or not _is_utf8(kind):
        raise JournalBodyError(f"a journal kind is a non-empty one-line string, not {kind!r}")


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_ts(ts: float) -> float:
    if isinstance(ts, bool) or not isinstance(ts, (int, float)) or not math.isfinite(ts):
        raise JournalBodyError(f"ts must be a finite number of seconds, not {ts!r}")
    return float(ts)


def _row_problem(row: tuple[Any, ...], expected_seq: int, prev_hash: str) -> tuple[int, str] | None:
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


def _connect(path: Path) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves, so a commit is exactly where we say.
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    return connection


class Journal:
    """Owns one connection to the journal file; thread-safe (one lock per journal).

    Use `Journal.open(path)`; `append` and `append_many` block until durable, so
    an asyncio caller runs them in a worker thread (``asyncio.to_thread``).
    """

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self._path = path
        self._connection: sqlite3.Connection | None = connection
        self._lock = threading.Lock()
        self._writer_lock: TextIO | None = None  # the writer's claim on <journal>.lock (`claim_writer`)
        # Called with the seconds each committed append took, BEGIN to fsynced COMMIT (table_runtime/metrics.py).
        self.commit_observer: Callable[[float], None] | None = None

    @classmethod
    def open(cls, path: str | Path) -> Journal:
        """Open (creating file and schema if needed) and check the chain tail."""
        path = Path(path)
        created = not path.exists()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            connection = _connect(path)
        except (OSError, sqlite3.Error) as error:
            raise JournalError(f"{path}: cannot open the journal: {error}") from error
        journal = cls(path, connection)
        try:
            journal._prepare()
            if created:
                _fsync_directory(path.parent)
            journal._check_tail()
        except BaseException:
            journal.close()
            raise
        return journal

    @property
    def path(self) -> Path:
        return self._path

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            raise JournalClosedError(f"{self._path}: the journal is closed")
        return self._connection

    def _prepare(self) -> None:
        db = self._db()
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA_VERSION):
                raise JournalError(f"{self._path}: journal schema {version}, this program reads {SCHEMA_VERSION}")
            try:
                db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as error:
            raise JournalError(f"{self._path}: not a journal: {error}") from error

    def _check_tail(self) -> None:
        """The last row's hash, its link to the row before, and the head agree."""
        with self._lock:
            db = self._db()
            try:
                db.execute("BEGIN")  # one snapshot for rows and head
                try:
                    rows = db.execute(
                        "SELECT seq, ts, kind, body, prev_hash, hash FROM entries ORDER BY seq DESC LIMIT 2"
                    ).fetchall()
                    head_seq, head_hash = db.execute("SELECT seq, hash FROM head WHERE id = 1").fetchone()
                finally:
                    db.execute("COMMIT")
            except (sqlite3.Error, TypeError) as error:
                raise JournalBrokenError(self._path, None, f"unreadable journal: {error}") from error
        if not rows:
            if head_seq != 0:
                raise JournalBrokenError(self._path, 1, f"rows 1..{head_seq} missing (deleted): the journal is empty")
            return
        last = rows[0]
        if len(rows) == 2:
            problem = _row_problem(last, rows[1][0] + 1, rows[1][5])
        else:
            problem = _row_problem(last, 1, GENESIS_HASH)
        if problem is not None:
            raise JournalBrokenError(self._path, problem[0], problem[1])
        if (last[0], last[5]) != (head_seq, head_hash):
            raise JournalBrokenError(self._path, *_head_mismatch(last[0], head_seq))

    @property
    def last_seq(self) -> int:
        """The seq of the last row; 0 when the journal is empty."""
        with self._lock:
            row = self._db().execute("SELECT MAX(seq) FROM entries").fetchone()
        return int(row[0] or 0)

    def append(self, kind: str, body: Mapping[str, Any], *, ts: float) -> JournalEntry:
        """Append one row; committed and fsynced when this returns."""
        return self.append_many([(kind, body)], ts=ts)[0]

    def append_many(self, items: Sequence[tuple[str, Mapping[str, Any]]], *, ts: float) -> list[JournalEntry]:
        """Append rows in one transaction: all are durable when this returns, or none."""
        ts = _check_ts(ts)
        prepared: list[tuple[str, str]] = []
        for kind, body in items:
            _check_kind(kind)
            prepared.append((kind, encode_body(body)))
        if not prepared:
            return []
        entries: list[JournalEntry] = []
        with self._lock:
            db = self._db()
            started = time.perf_counter()
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    seq, prev_hash = db.execute("SELECT seq, hash FROM head WHERE id = 1").fetchone()
                    for kind, body_text in prepared:
                        seq += 1
                        digest = entry_hash(prev_hash, seq, ts, kind, body_text)
                        db.execute(
                            "INSERT INTO entries (seq, ts, kind, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)",
                            (seq, ts, kind, body_text, prev_hash, digest),
                        )
                        entries.append(JournalEntry(seq, ts, kind, json.loads(body_text), prev_hash, digest))
                        prev_hash = digest
                    db.execute("UPDATE head SET seq = ?, hash = ? WHERE id = 1", (seq, prev_hash))
                    db.execute("COMMIT")
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as error:
                raise JournalError(f"{self._path}: append failed: {error}") from error
            if self.commit_observer is not None:
                self.commit_observer(time.perf_counter() - started)
        return entries

    def entries(self, after_seq: int = 0, limit: int | None = None, *,
                kinds: Collection[str] | None = None) -> Iterator[JournalEntry]:
        """Rows with seq > `after_seq` in seq order, at most `limit` of them; only rows of `kinds` if given
        (a replay reads its inputs without decoding the events beside them).

        Reads a page at a time, so appends (from this or another connection) may
        go on while a caller iterates; rows appended meanwhile are included.
        """
        remaining = limit
        kind_list = sorted(kinds) if kinds is not None else []
        where = "seq > ?" + (f" AND kind IN ({', '.join('?' * len(kind_list))})" if kinds is not None else "")
        query = f"SELECT seq, ts, kind, body, prev_hash, hash FROM entries WHERE {where} ORDER BY seq LIMIT ?"
        while remaining is None or remaining > 0:
            page = _PAGE if remaining is None else min(_PAGE, remaining)
            with self._lock:
                rows = self._db().execute(query, (after_seq, *kind_list, page)).fetchall()
            for seq, ts, kind, body_text, prev_hash, digest in rows:
                yield JournalEntry(seq, ts, kind, json.loads(body_text), prev_hash, digest)
            if len(rows) < page:
                return
            after_seq = rows[-1][0]
            if remaining is not None:
                remaining -= len(rows)

    def round_starts(self) -> list[tuple[int, int]]:
        """(seq, round number) of every RoundStarted event, in order, without decoding the other rows."""
        with self._lock:
            rows = self._db().execute(
                "SELECT seq, body FROM entries WHERE kind = 'event' AND body LIKE '%RoundStarted%' ORDER BY seq"
            ).fetchall()
        starts = []
        for seq, body_text in rows:
            body = json.loads(body_text)
            if body.get("type") == "RoundStarted":  # LIKE only narrows the rows down
                starts.append((int(seq), int(body["round"])))
        return starts

    def verify(self) -> VerifyResult:
        """Check every row of the chain and the head; name the first bad row."""
        with self._lock:
            try:
                return verify_connection(self._db())
            except sqlite3.Error as error:
                raise JournalError(f"{self._path}: not a journal: {error}") from error

    def get_meta(self, key: str) -> str | None:
        """A stored cursor or setting (e.g. the feed's last published seq)."""
        with self._lock:
            row = self._db().execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Store `value` under `key`, durably."""
        if not isinstance(key, str) or not isinstance(value, str):
            raise JournalBodyError(f"meta keys and values are strings, not {key!r}: {value!r}")
        with self._lock:
            try:
                self._db().execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )
            except sqlite3.Error as error:
                raise JournalError(f"{self._path}: cannot store {key!r}: {error}") from error

    def claim_writer(self) -> None:
        """Make this the only writer of the file: a second runtime on the same journal is refused, since two
        writers would interleave two tables in one chain. Held until `close` (or the process ends, even by kill -9).
        Readers (recall, verify, the feed of another process) need no claim."""
        if self._writer_lock is not None:
            return
        lock_path = self._path.with_name(self._path.name + ".lock")
        handle = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the journal's lifetime
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise JournalError(f"{self._path} is written by another runtime ({holder}): one journal, one writer"
                               ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        self._writer_lock = handle

    def release_writer(self) -> None:
        """Give the claim up (what the end of the process does; an in-process power-loss simulation uses it)."""
        if self._writer_lock is not None:
            self._writer_lock.close()
            self._writer_lock = None

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
            self.release_writer()

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def _head_mismatch(last_seq: int, head_seq: int) -> tuple[int, str]:
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
    expected, prev_hash, rows = 1, GENESIS_HASH, 0
    try:
        while True:
            page = db.execute(
                "SELECT seq, ts, kind, body, prev_hash, hash FROM entries WHERE seq >= ? ORDER BY seq LIMIT ?",
                (expected, _PAGE),
            ).fetchall()
            for row in page:
                problem = _row_problem(row, expected, prev_hash)
                if problem is not None:
                    return VerifyResult(False, rows, problem[0], problem[1])
                rows += 1
                expected, prev_hash = row[0] + 1, row[5]
            if len(page) < _PAGE:
                break
        head = db.execute("SELECT seq, hash FROM head WHERE id = 1").fetchone()
    except sqlite3.Error as error:
        return VerifyResult(False, rows, expected, f"row {expected}: unreadable: {error}")
    if head is None:
        return VerifyResult(False, rows, None, "the head row is missing")
    if (head[0], head[1]) != (expected - 1, prev_hash):
        first_bad, reason = _head_mismatch(expected - 1, head[0])
        return VerifyResult(False, rows, first_bad, reason)
    summary = f"{rows} rows, chain intact" + (f", last row {expected - 1} hash {prev_hash[:12]}" if rows else "")
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


def _fsync_directory(directory: Path) -> None:
    """Make the new file's directory entry durable too (SQLite syncs the file, not its name)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
