"""Before SQLite opens a journal file that exists: is it one, whole? An empty or cut file is never a new journal.

SQLite would take a 0-byte file for a new, empty database (the table would start again at seq 1 beside a
lost journal) and reads a file cut short as far as it goes. So a file that exists must start with the SQLite
header and be at least as long as the header says (when the header's page count is valid: its change
counter matches the one it was written with; SQLite's file format, section 1.3). Not while a write-ahead log
with frames is beside it: a checkpoint cut short (a full disk, a power cut) writes page 1 before the pages after
it, and SQLite reads those pages from the log, which it keeps until a checkpoint completes.
"""

from __future__ import annotations

from pathlib import Path

from table_runtime.errors import JournalError

_MAGIC = b"SQLite format 3\x00"
_HEADER = 100


def check_existing_file(path: Path) -> None:
    """Refuse, in one line naming the file and the cause, a file that is empty, not SQLite, or cut short."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            header = handle.read(_HEADER)
    except OSError as error:
        raise JournalError(f"{path}: cannot read the journal: {error.strerror or error}") from error
    if size == 0:
        wal = path.with_name(path.name + "-wal")
        detail = " (its write-ahead log is beside it)" if wal.is_file() and wal.stat().st_size else ""
        raise JournalError(f"{path}: the journal file is empty (0 bytes){detail}: refusing to start a new journal "
                           "over it; restore the journal or move the file away")
    if len(header) < _HEADER or not header.startswith(_MAGIC):
        raise JournalError(f"{path}: not a journal (no SQLite header in its first {_HEADER} bytes; {size} bytes)")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    valid = pages > 0 and header[24:28] == header[92:96]
    wal = path.with_name(path.name + "-wal")
    if valid and wal.is_file() and wal.stat().st_size > 0:
        return  # the log holds the pages a cut checkpoint did not write yet
    if valid and size < pages * page_size:
        raise JournalError(f"{path}: the journal file is truncated: {size} bytes where its header records "
                           f"{pages} pages of {page_size} bytes ({pages * page_size} bytes); restore it from a copy")
