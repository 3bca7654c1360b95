"""The rated sessions' checkpoints: the rating fold's state at a row of the journal that has a checkpoint of its own.

The rating worker (runtime/rating_worker.py) folds the rated sessions in a process of its own, so it is the one
that can take their state; it keeps it in a file of its own beside the journal (`journal.ratings.db`), never in
the journal's file (the table's writer holds that one's write lock: a second writer there would hold the table's
commits while it writes). One row per checkpoint::

    seal = sha256("rating checkpoint" "\\n" journal_id "\\n" seq "\\n" chain_hash "\\n" terms "\\n" state)

where ``seq`` is a row the journal keeps a checkpoint of the table at (journal/checkpoints.py), ``chain_hash``
that row's hash, ``terms`` the digest of the table, rules and advice settings the state was folded under, and
``state`` the canonical JSON of the rated sessions after that row (rating/session_state.py). The journal's
checkpoint at ``seq`` and this one are the whole state of the table at that row. A state read back is
used only if its seal holds, its journal and terms are the table's, its chain hash is the journal row's hash and
the journal's own checkpoint at that row is sound; a state forged with its seal recomputed is found by the audit,
which folds the rated sessions again and compares (runtime/journal_audit.py). The file holds nothing the journal
does not: deleted, the worker folds from the first row again. Also kept: the models computed from the play terms
(the house edge, the basic strategy's chart, the advice's edge model: seconds of CPU), under their terms' digest;
the audit computes them again and compares.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

KEEP = 3
"""Rated sessions' checkpoints kept (the newest): a state holds every round of the open sessions' scores."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS rating_checkpoints (
    seq INTEGER PRIMARY KEY,
    journal TEXT NOT NULL,
    chain_hash TEXT NOT NULL,
    terms TEXT NOT NULL,
    state TEXT NOT NULL,
    seal TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rating_models (
    terms TEXT PRIMARY KEY,
    models TEXT NOT NULL
);
"""


def ratings_path(journal_path: Path) -> Path:
    """The rated sessions' checkpoints of the journal at `journal_path`: `journal.ratings.db` beside `journal.db`."""
    return journal_path.with_name(f"{journal_path.stem}.ratings.db")


def terms_digest(text: str) -> str:
    """The digest naming the terms a state was folded under (`text`: their canonical form, the caller's)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class RatingCheckpoint:
    """The rated sessions' `state_text` after journal row `seq` (hash `chain_hash`) of journal `journal`."""

    seq: int
    journal: str
    chain_hash: str
    terms: str
    state_text: str
    seal: str

    @property
    def sealed(self) -> bool:
        return self.seal == seal_of(self.journal, self.seq, self.chain_hash, self.terms, self.state_text)


def seal_of(journal: str, seq: int, chain_hash: str, terms: str, state_text: str) -> str:
    """The seal of a rated sessions' checkpoint (see the module docstring)."""
    text = "\n".join(("rating checkpoint", journal, str(seq), chain_hash, terms, state_text))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class RatingCheckpoints:
    """The file of one journal's rated sessions' checkpoints (see the module), opened by the process that folds them
    (read-write) or by the audit (`read_only`)."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.path = path
        if read_only:
            self._db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                                       timeout=10.0)
        else:
            self._db = sqlite3.connect(path, isolation_level=None, timeout=10.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # disposable: a lost checkpoint is folded again
            self._db.executescript(SCHEMA)

    @classmethod
    def read_only(cls, path: Path) -> RatingCheckpoints | None:
        """The file for reading, None when there is none (no worker ever folded this journal)."""
        if not path.exists():
            return None
        return cls(path, read_only=True)

    def write(self, journal: str, seq: int, chain_hash: str, terms: str, state_text: str, *, keep: int = KEEP
              ) -> RatingCheckpoint:
        """Store a checkpoint and drop all but the newest `keep`."""
        checkpoint = RatingCheckpoint(seq, journal, chain_hash, terms, state_text,
                                      seal_of(journal, seq, chain_hash, terms, state_text))
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute("INSERT OR REPLACE INTO rating_checkpoints (seq, journal, chain_hash, terms, state, seal) "
                             "VALUES (?, ?, ?, ?, ?, ?)",
                             (seq, journal, chain_hash, terms, state_text, checkpoint.seal))
            self._db.execute("DELETE FROM rating_checkpoints WHERE seq NOT IN "
                             "(SELECT seq FROM rating_checkpoints ORDER BY seq DESC LIMIT ?)", (keep,))
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return checkpoint

    def newest(self, *, at_most: int | None = None) -> list[RatingCheckpoint]:
        """The checkpoints (at rows up to `at_most` when given), newest first, unchecked."""
        query = "SELECT seq, journal, chain_hash, terms, state, seal FROM rating_checkpoints"
        parameters: tuple[Any, ...] = ()
        if at_most is not None:
            query, parameters = query + " WHERE seq <= ?", (at_most,)
        rows = self._db.execute(query + " ORDER BY seq DESC", parameters).fetchall()
        return [RatingCheckpoint(int(seq), str(journal), str(chain), str(terms), str(state), str(seal))
                for seq, journal, chain, terms, state, seal in rows]

    def models(self, terms: str) -> str | None:
        row = self._db.execute("SELECT models FROM rating_models WHERE terms = ?", (terms,)).fetchone()
        return None if row is None else str(row[0])

    def keep_models(self, terms: str, models: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO rating_models (terms, models) VALUES (?, ?)", (terms, models))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RatingCheckpoints:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
