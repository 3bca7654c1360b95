"""Real journals for the floor's tests: rounds played by the fast demo table, and their real feed messages."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from simulators.fast_table import FastTable
from table_runtime.feed.messages import Topics, messages_for_entry
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import CHECKPOINT_ROWS, Journal, JournalEntry
from table_runtime.runtime.controller import TableController


def play(path: Path, table_id: str, rounds: int, *, seed: int = 5, error_rate: float = 0.2,
         checkpoint_rows: int = CHECKPOINT_ROWS) -> Journal:
    """A journal at `path` holding `rounds` rounds played at `table_id` (the caller closes it)."""
    journal = Journal.open(path)
    journal._db().execute("PRAGMA synchronous=OFF")  # test data only
    play_on(journal, table_id, rounds, seed=seed, error_rate=error_rate, checkpoint_rows=checkpoint_rows)
    return journal


def play_on(journal: Journal, table_id: str, rounds: int, *, seed: int = 5, error_rate: float = 0.2,
            checkpoint_rows: int = CHECKPOINT_ROWS) -> None:
    """`rounds` more rounds on an open journal: the table (re)starts on it first, as after a restart."""
    controller = TableController(table_id=table_id, rules=profile("fr-casino"), limits=TableLimits(),
                                 journal=journal, clock=time.time, checkpoint_rows=checkpoint_rows)
    FastTable(controller, seed=seed, error_rate=error_rate).run(rounds)


def journal_id(journal: Journal) -> str:
    """The journal's id, as its feed payloads carry it."""
    return journal.journal_id


def feed_messages(journal: Journal, prefix: str, table_id: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(topic, topic name, payload) of every message the journal's entries make, in journal order."""
    topics, ident = Topics(prefix, table_id), journal_id(journal)
    for entry in journal.entries():
        for message in messages_for_entry(topics, entry, ident):
            yield message.topic, message.topic.rsplit("/", 1)[1], dict(message.payload)


def entries(journal: Journal) -> list[JournalEntry]:
    return list(journal.entries())
