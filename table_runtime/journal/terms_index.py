"""The journal's `terms` rows found without reading the journal: a partial index that holds only them.

A journal holds one terms row (the table's terms, table_runtime/core/terms.py), and one more each time they
changed; every reader asks for them before it folds anything (the one constructor, table_runtime/runtime/terms.py).
Without an index that is a walk of the whole file (an older journal's terms row comes after all its rows); the
partial index costs a write nothing but for a terms row. A journal written before it gets it on its first open,
like its id (schema.py).
"""

from __future__ import annotations

import json
import sqlite3

from table_runtime.journal.rows import JournalEntry

TERMS_INDEX = "entries_terms"
CREATE_INDEX = f"CREATE INDEX IF NOT EXISTS {TERMS_INDEX} ON entries (seq) WHERE kind = 'terms';"


def terms_entries(db: sqlite3.Connection) -> list[JournalEntry]:
    """Every `terms` row, in order (the literal `kind = 'terms'` is what lets SQLite use the partial index)."""
    rows = db.execute("SELECT seq, ts, kind, body, prev_hash, hash FROM entries WHERE kind = 'terms' ORDER BY seq")
    return [JournalEntry(seq, ts, kind, json.loads(body), prev_hash, digest)
            for seq, ts, kind, body, prev_hash, digest in rows.fetchall()]
