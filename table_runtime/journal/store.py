"""`Journal`: the one connection to a journal file, its appends (durable when they return), its reads and cursors,
and the writer's claim on the file."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from table_runtime.errors import JournalError
from table_runtime.journal import checkpoints, terms_index
from table_runtime.journal.chain import (
    GENESIS_HASH,
    JournalBrokenError,
    VerifyResult,
    entry_hash,
    row_problem,
    verify_connection,
    verify_from,
    verify_span,
)
from table_runtime.journal.checkpoints import Checkpoint
from table_runtime.journal.failures import JournalUnwritableError, unwritable
from table_runtime.journal.file_check import check_existing_file
from table_runtime.journal.rows import JournalBodyError, JournalEntry, check_kind, check_ts, encode_body, paged_entries
from table_runtime.journal.schema import (
    connect,
    fsync_directory,
    prepare_schema,
    read_journal_id,
    write_transaction,
)
from table_runtime.journal.writer_claim import claim

__all__ = ["Journal", "JournalClosedError", "JournalUnwritableError"]


class JournalClosedError(JournalError):
    """The journal was used after `close`."""


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
        self._start_checkpoint: Checkpoint | None = None
        self._verified = (0, GENESIS_HASH)  # the head (seq, hash) as the open verified the chain up to it
        self._written_seq = 0  # the head's seq as this connection last read or wrote it (`written_seq`)
        self._before_close: list[Callable[[], None]] = []  # `before_close`
        self._journal_id: str | None = None  # read from meta once: it is given at creation and never changes
        # Called with the seconds each committed append took, BEGIN to fsynced COMMIT (table_runtime/metrics.py).
        self.commit_observer: Callable[[float], None] | None = None

    @classmethod
    def open(cls, path: str | Path) -> Journal:
        """Open (creating file and schema if needed) and check the chain tail."""
        path = Path(path)
        created = not path.exists()
        if not created:
            check_existing_file(path)  # an empty or cut file is never taken for a new journal
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            connection = connect(path)
        except (OSError, sqlite3.Error) as error:
            raise unwritable(path, error) or JournalError(f"{path}: cannot open the journal: {error}") from error
        journal = cls(path, connection)
        try:
            prepare_schema(journal._db(), path)
            journal._prepare_checkpoints()
            if created:
                fsync_directory(path.parent)
            journal._check_start()
        except BaseException:
            journal.close()
            raise
        return journal

    def _prepare_checkpoints(self) -> None:
        """The checkpoints table (checkpoints.py), created beside the others; an older journal gets it now."""
        db = self._db()
        try:
            if not checkpoints.has_table(db):
                checkpoints.create_table(db)
        except sqlite3.Error as error:
            raise JournalError(f"{self._path}: not a journal: {error}") from error

    @property
    def path(self) -> Path:
        return self._path

    @property
    def journal_id(self) -> str:
        """This journal's id (32 hex digits, `journal.id` in meta, given at creation): every feed message names it."""
        if self._journal_id is None:  # every feed message names it: read once, not on every call
            with self._lock:
                self._journal_id = read_journal_id(self._db(), self._path)
        return self._journal_id

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            raise JournalClosedError(f"{self._path}: the journal is closed")
        return self._connection

    def _check_start(self) -> None:
        """The chain from the newest checkpoint (sealed, on its row) to the head is whole; the rows before it
        are the background audit's (table_runtime/runtime/journal_audit.py) and `verify`'s."""
        with self._lock:
            db = self._db()
            try:
                db.execute("BEGIN")  # one snapshot for the checkpoint, the rows and the head
                try:
                    checkpoint = checkpoints.latest(db)
                    expected, prev_hash = 1, GENESIS_HASH
                    if checkpoint is not None:
                        row = db.execute("SELECT seq, ts, kind, body, prev_hash, hash FROM entries WHERE seq = ?",
                                         (checkpoint.seq,)).fetchone()
                        reason = checkpoints.problem(checkpoint, None if row is None else str(row[5]))
                        if reason is not None:
                            raise JournalBrokenError(self._path, checkpoint.seq, reason)
                        problem = row_problem(row, checkpoint.seq, row[4])
                        if problem is not None:
                            raise JournalBrokenError(self._path, *problem)
                        expected, prev_hash = checkpoint.seq + 1, checkpoint.chain_hash
                    result = verify_from(db, expected, prev_hash)
                    head_seq, head_hash = db.execute("SELECT seq, hash FROM head WHERE id = 1").fetchone()
                finally:
                    db.execute("COMMIT")
            except (sqlite3.Error, TypeError) as error:
                raise JournalBrokenError(self._path, None, f"unreadable journal: {error}") from error
        if not result.ok:
            raise JournalBrokenError(self._path, result.first_bad_seq, result.reason)
        self._start_checkpoint = checkpoint
        self._verified = (int(head_seq), str(head_hash))
        self._written_seq = int(head_seq)

    @property
    def start_checkpoint(self) -> Checkpoint | None:
        """The checkpoint the open verified the chain from (None: it verified every row)."""
        return self._start_checkpoint

    def write_checkpoint(self, seq: int, state: dict[str, Any]) -> Checkpoint:
        """Seal and store the table's `state` after row `seq` (a row of this journal), durably."""
        with self._lock:
            db = self._db()
            try:
                with write_transaction(db):
                    row = db.execute("SELECT hash FROM entries WHERE seq = ?", (seq,)).fetchone()
                    if row is None:
                        raise JournalError(f"{self._path}: no row {seq} to checkpoint")
                    checkpoint = checkpoints.insert(db, seq, str(row[0]), state)
            except sqlite3.Error as error:
                raise JournalError(f"{self._path}: checkpoint failed: {error}") from error
        return checkpoint

    def checkpoint_before(self, seq: int) -> Checkpoint | None:
        """The newest checkpoint at a row before `seq`, checked (seal, its row's hash, the chain from it to the
        head; the rows the open verified are not walked again); None when there is none."""
        with self._lock:
            db = self._db()
            try:
                db.execute("BEGIN")
                try:
                    checkpoint = checkpoints.latest(db, before=seq)
                    if checkpoint is None:
                        return None
                    reason, result = self._chain_after(db, checkpoint)
                finally:
                    db.execute("COMMIT")
            except sqlite3.Error as error:
                raise JournalBrokenError(self._path, None, f"unreadable journal: {error}") from error
        if reason is not None:
            raise JournalBrokenError(self._path, checkpoint.seq, reason)
        if result is not None and not result.ok:
            raise JournalBrokenError(self._path, result.first_bad_seq, result.reason)
        return checkpoint

    def _chain_after(self, db: sqlite3.Connection, checkpoint: Checkpoint) -> tuple[str | None, VerifyResult | None]:
        """Check `checkpoint` and the chain from it to the head, skipping the span the open verified (from its
        checkpoint, or the first row, to the head as it was then)."""
        row = db.execute("SELECT hash FROM entries WHERE seq = ?", (checkpoint.seq,)).fetchone()
        reason = checkpoints.problem(checkpoint, None if row is None else str(row[0]))
        if reason is not None:
            return reason, None
        start = self._start_checkpoint
        begin, begin_hash = (0, GENESIS_HASH) if start is None else (start.seq, start.chain_hash)
        verified, verified_hash = self._verified
        if checkpoint.seq < begin:  # up to where the open's walk began
            reason = verify_span(db, checkpoint.seq + 1, checkpoint.chain_hash, begin, begin_hash)
        elif checkpoint.seq > verified:  # written since the open: the rows up to it
            reason = verify_span(db, verified + 1, verified_hash, checkpoint.seq, checkpoint.chain_hash)
            verified, verified_hash = checkpoint.seq, checkpoint.chain_hash
        if reason is not None:
            return reason, None
        return None, verify_from(db, verified + 1, verified_hash)

    def checkpoints_between(self, first: int, last: int) -> list[Checkpoint]:
        """The checkpoints at rows `first`..`last`, in order, as stored (unchecked: the feed relays them)."""
        with self._lock:
            return checkpoints.between(self._db(), first, last)

    def latest_checkpoint(self, seq: int) -> Checkpoint | None:
        """The newest checkpoint at a row up to `seq`, as stored (unchecked); None when there is none."""
        with self._lock:
            return checkpoints.latest(self._db(), before=seq + 1)

    def checkpoints_until(self, seq: int) -> list[Checkpoint]:
        """The checkpoints at rows 1..`seq`, in order, as stored (the audit checks them)."""
        with self._lock:
            return checkpoints.between(self._db(), 1, seq)

    @property
    def last_seq(self) -> int:
        """The seq of the last row; 0 when the journal is empty."""
        with self._lock:
            row = self._db().execute("SELECT MAX(seq) FROM entries").fetchone()
        return int(row[0] or 0)

    @property
    def written_seq(self) -> int:
        """The last row's seq as this connection read it at the open or wrote it since; takes no lock (the loop reads
        it while the writer's thread commits). The one writer's: a reader's connection asks `last_seq`."""
        return self._written_seq

    def append(self, kind: str, body: Mapping[str, Any], *, ts: float) -> JournalEntry:
        """Append one row; committed and fsynced when this returns."""
        return self.append_many([(kind, body)], ts=ts)[0]

    def append_many(self, items: Sequence[tuple[str, Mapping[str, Any]]], *, ts: float) -> list[JournalEntry]:
        """Append rows in one transaction: all are durable when this returns, or none."""
        return self.append_timed([(kind, body, ts) for kind, body in items])

    def append_timed(self, items: Sequence[tuple[str, Mapping[str, Any], float]]) -> list[JournalEntry]:
        """Append rows, each with the time it happened, in one transaction: all are durable when this returns, or
        none (what a journal outage held is written so: core/journal_outage.py)."""
        prepared = [(check_kind(kind), encode_body(body), check_ts(ts)) for kind, body, ts in items]
        if not prepared:
            return []
        entries: list[JournalEntry] = []
        with self._lock:
            db = self._db()
            started = time.perf_counter()
            try:
                with write_transaction(db):
                    seq, prev_hash = db.execute("SELECT seq, hash FROM head WHERE id = 1").fetchone()
                    for kind, body_text, ts in prepared:
                        seq += 1
                        digest = entry_hash(prev_hash, seq, ts, kind, body_text)
                        db.execute(
                            "INSERT INTO entries (seq, ts, kind, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)",
                            (seq, ts, kind, body_text, prev_hash, digest),
                        )
                        entries.append(JournalEntry(seq, ts, kind, json.loads(body_text), prev_hash, digest))
                        prev_hash = digest
                    db.execute("UPDATE head SET seq = ?, hash = ? WHERE id = 1", (seq, prev_hash))
                self._written_seq = seq  # committed: durable
            except sqlite3.Error as error:
                raise unwritable(self._path, error) or JournalError(f"{self._path}: append failed: {error}") from error
            if self.commit_observer is not None:
                self.commit_observer(time.perf_counter() - started)
        return entries

    def entries(self, after_seq: int = 0, limit: int | None = None, *,
                kinds: Collection[str] | None = None, exclude: Collection[str] = ()) -> Iterator[JournalEntry]:
        """Rows with seq > `after_seq` in seq order, at most `limit` of them; only rows of `kinds` if given, none of
        `exclude` (a replay reads what changes the state, and any kind it does not know, without decoding the
        events beside the inputs).

        Reads a page at a time, so appends (from this or another connection) may
        go on while a caller iterates; rows appended meanwhile are included.
        """
        def fetch(query: str, parameters: tuple[Any, ...]) -> list[Any]:
            with self._lock:
                return self._db().execute(query, parameters).fetchall()

        return paged_entries(fetch, after_seq, limit, kinds, exclude)

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

    def last_round_starts(self, count: int) -> list[tuple[int, int]]:
        """(seq, round number) of the last `count` RoundStarted events, oldest first: read from the end of the
        journal (a recall costs the rounds it shows, not the journal's length)."""
        starts: list[tuple[int, int]] = []
        if count <= 0:
            return starts
        with self._lock:
            cursor = self._db().execute(
                "SELECT seq, body FROM entries WHERE kind = 'event' AND body LIKE '%RoundStarted%' ORDER BY seq DESC")
            for seq, body_text in cursor:
                body = json.loads(body_text)
                if body.get("type") == "RoundStarted":  # LIKE only narrows the rows down
                    starts.append((int(seq), int(body["round"])))
                    if len(starts) == count:
                        break
            cursor.close()
        return starts[::-1]
    def terms_entries(self) -> list[JournalEntry]:
        """Every `terms` row (the table's terms), in order, through their index (terms_index.py)."""
        with self._lock:
            return terms_index.terms_entries(self._db())

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
                raise unwritable(self._path, error) or JournalError(f"{self._path}: cannot store {key!r}: {error}"
                                                                    ) from error

    def claim_writer(self) -> None:
        """Make this the only writer of the file: a second runtime on the same journal is refused, since two
        writers would interleave two tables in one chain. Held until `close` (or the process ends, even by kill -9).
        Readers (recall, verify, the feed of another process) need no claim."""
        if self._writer_lock is None:
            self._writer_lock = claim(self._path)

    def release_writer(self) -> None:
        """Give the claim up (what the end of the process does; an in-process power-loss simulation uses it)."""
        if self._writer_lock is not None:
            self._writer_lock.close()
            self._writer_lock = None

    def before_close(self, callback: Callable[[], None]) -> None:
        """Call `callback()` when the journal is closed, before the connection is (the writer's thread ends there:
        it may be finishing a commit)."""
        self._before_close.append(callback)

    def close(self) -> None:
        callbacks, self._before_close = self._before_close, []
        for callback in callbacks:
            callback()
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
