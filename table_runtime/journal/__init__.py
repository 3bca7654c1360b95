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

Sealed checkpoints (checkpoints.py) hold the chain's hash and the table's state at a row: an open checks
the chain from the newest one to the head, and the rows before it are audited in the background
(audit.py); an empty or cut file is refused before SQLite opens it (file_check.py). docs/journal.md.
"""

from table_runtime.journal.chain import (
    GENESIS_HASH,
    JournalBrokenError,
    VerifyResult,
    entry_hash,
    verify_connection,
    verify_file,
)
from table_runtime.journal.checkpoints import CHECKPOINT_ROWS, Checkpoint
from table_runtime.journal.failures import (
    RESUME_RESERVE_BYTES,
    RETRY_SECONDS,
    JournalUnwritableError,
    short_of_room,
)
from table_runtime.journal.rows import JournalBodyError, JournalEntry, encode_body
from table_runtime.journal.schema import JOURNAL_FILE, SCHEMA_VERSION, journal_path
from table_runtime.journal.store import Journal, JournalClosedError

__all__ = [
    "CHECKPOINT_ROWS",
    "GENESIS_HASH",
    "JOURNAL_FILE",
    "RESUME_RESERVE_BYTES",
    "RETRY_SECONDS",
    "SCHEMA_VERSION",
    "Checkpoint",
    "Journal",
    "JournalBodyError",
    "JournalBrokenError",
    "JournalClosedError",
    "JournalEntry",
    "JournalUnwritableError",
    "VerifyResult",
    "encode_body",
    "entry_hash",
    "journal_path",
    "short_of_room",
    "verify_connection",
    "verify_file",
]
