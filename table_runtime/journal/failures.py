"""Why a journal write failed: a card that cannot be written (full, read-only, failing) or something else.

A full disk, a file system remounted read-only and an I/O error are not bugs and not a broken chain:
the journal is fine, it just cannot take a row now. `unwritable(path, error)` names that cause in one
line (``journal.db: cannot write: disk full (database or disk is full)``) as a `JournalUnwritableError`,
which the runtime turns into the `journal_unwritable` alarm and a retry instead of a crash
(docs/journal.md, "When the journal cannot be written").

A full card is over only when the table's rows fit again, not when a small row does: a refused step leaves
its half-written frames in the write-ahead log, and a row of a few hundred bytes fits there while the next
card still does not. `short_of_room(path, reserve)` says so from the file system (os.statvfs): the outage
ends only once `RESUME_RESERVE_BYTES` are free.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from table_runtime.errors import JournalError

__all__ = ["RESUME_RESERVE_BYTES", "RETRY_SECONDS", "JournalUnwritableError", "short_of_room", "unwritable"]

RETRY_SECONDS = 2.0  # how often a journal that cannot be written is tried again (`[journal] retry_seconds`)

# What must be free for play to resume after a full card: the biggest step the table journals is a burst of
# 64 cards from the shoe (runtime/shoe_link.py BURST_MAX), about 45 KB of write-ahead log on a fresh journal
# (measured on a tmpfs: 64 cards without bets fit in 48 KB and not in 40 KB); a burst in a round writes a few
# more rows per card and a round's record. 256 KiB holds that several times over, and nothing on a card of
# gigabytes.
RESUME_RESERVE_BYTES = 256 * 1024

# The primary result codes of sqlite3.h (an extended code keeps them in its low byte).
_SQLITE_CAUSES = {8: "read-only", 10: "I/O error", 13: "disk full"}  # SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL
_ERRNO_CAUSES = {errno.ENOSPC: "disk full", errno.EDQUOT: "disk full", errno.EROFS: "read-only", errno.EIO: "I/O error"}


class JournalUnwritableError(JournalError, OSError):
    """The journal file cannot be written now (`cause`: disk full, read-only, I/O error); nothing was written."""

    def __init__(self, path: Path, cause: str, detail: str) -> None:
        super().__init__(f"{path}: cannot write: {cause} ({detail})")
        self.path = path
        self.cause = cause
        self.detail = detail

    def __str__(self) -> str:
        return str(self.args[0])


def cause_of(error: BaseException) -> str | None:
    """'disk full', 'read-only' or 'I/O error' when `error` says the card cannot be written; None otherwise."""
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None)
        if isinstance(code, int) and (code & 0xFF) in _SQLITE_CAUSES:
            return _SQLITE_CAUSES[code & 0xFF]
        text = str(error).lower()  # an error raised before SQLite gave a code names it in its text
        if "disk is full" in text:
            return "disk full"
        if "readonly" in text or "read-only" in text:
            return "read-only"
        if "disk i/o error" in text:
            return "I/O error"
        return None
    if isinstance(error, OSError) and error.errno in _ERRNO_CAUSES:
        return _ERRNO_CAUSES[error.errno]
    return None


def unwritable(path: Path, error: BaseException) -> JournalUnwritableError | None:
    """The `JournalUnwritableError` for `error` if it is a full, read-only or failing card; else None."""
    cause = cause_of(error)
    if cause is None:
        return None
    detail = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    if cause == "I/O error" and _no_space_left(path):
        # SQLite reports a full file system as an I/O error when it cannot grow its -wal/-shm files.
        cause, detail = "disk full", f"{detail}; no space left on the file system"
    return JournalUnwritableError(path, cause, detail)


def short_of_room(path: Path, reserve: int) -> JournalUnwritableError | None:
    """The "disk full" error when the file system of `path` has fewer than `reserve` bytes free; None when it has
    them (or cannot say: the write that follows then tells)."""
    try:
        stats = os.statvfs(path.parent)
    except OSError:
        return None
    free = stats.f_bavail * stats.f_frsize
    if free >= reserve:
        return None
    return JournalUnwritableError(path, "disk full", f"{free} bytes free; play resumes once {reserve} bytes are free")


def _no_space_left(path: Path) -> bool:
    try:
        return os.statvfs(path.parent).f_bavail == 0
    except OSError:
        return False
