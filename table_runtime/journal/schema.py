"""The journal's SQLite file: where it lives, its schema and version, and a connection that makes commits durable.

WAL mode with ``synchronous=FULL``: a commit returns only once the write-ahead log is fsynced, and other
connections and processes (the feed, `recall`, `journal verify`) read while the one writer appends.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

from table_runtime.errors import JournalError
from table_runtime.journal.chain import GENESIS_HASH
from table_runtime.journal.failures import unwritable
from table_runtime.journal.terms_index import CREATE_INDEX, TERMS_INDEX

JOURNAL_FILE = "journal.db"
SCHEMA_VERSION = 1
JOURNAL_ID_KEY = "journal.id"  # in meta: this journal's id, 32 hex digits (uuid4), given at creation

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
""" + CREATE_INDEX


def journal_path(data_dir: str | Path) -> Path:
    """Where the journal of a data directory lives."""
    return Path(data_dir) / JOURNAL_FILE


def connect(path: Path) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves, so a commit is exactly where we say.
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    return connection


def prepare_schema(db: sqlite3.Connection, path: Path) -> None:
    """Create the tables of a new journal; refuse a file of another schema version or no journal at all."""
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            raise JournalError(f"{path}: journal schema {version}, this program reads {SCHEMA_VERSION}")
        if version == SCHEMA_VERSION and _complete(db):
            return  # nothing to write: a reader's open (recall, verify) takes no write lock beside the table's
        try:
            # A new journal gets its id here; so does an old one, written before ids, on its first open.
            give_id = f"INSERT OR IGNORE INTO meta (key, value) VALUES ('{JOURNAL_ID_KEY}', '{uuid.uuid4().hex}');"
            db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} {give_id} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
    except sqlite3.Error as error:
        raise unwritable(path, error) or JournalError(f"{path}: not a journal: {error}") from error


def _complete(db: sqlite3.Connection) -> bool:
    """The journal has every table and index of the schema, its head row and its id."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
    if not {"entries", "head", "meta", TERMS_INDEX} <= tables:
        return False
    return (db.execute("SELECT 1 FROM head WHERE id = 1").fetchone() is not None
            and db.execute("SELECT 1 FROM meta WHERE key = ?", (JOURNAL_ID_KEY,)).fetchone() is not None)


def read_journal_id(db: sqlite3.Connection, path: Path) -> str:
    """The journal's id (`prepare_schema` gave it one)."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (JOURNAL_ID_KEY,)).fetchone()
    if row is None or not isinstance(row[0], str) or not row[0]:
        raise JournalError(f"{path}: the journal has no id ({JOURNAL_ID_KEY} in meta)")
    return row[0]


def fsync_directory(directory: Path) -> None:
    """Make the new file's directory entry durable too (SQLite syncs the file, not its name)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def write_transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction (BEGIN IMMEDIATE): committed when the block ends, rolled back if it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
