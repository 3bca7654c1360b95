"""The séances of a table as its journal holds them: the one fold, from the newest checkpoint the journal verified.

The séances are a part of the one table state (core/seance.py): a checkpoint carries every séance closed before
it and the one open, so the fold from the checkpoint the journal verified when it opened (else from the first
row) has them all. Each séance's figures are `SeanceAccount.view`'s; the answer carries the journal head it was
made from (its row and hash), so anyone can check it against the record (docs/accounts.md).

Each séance also carries when it opened and closed and its own head (`seance_rows`): the journal's newest
SeanceUpdated event of that séance, its seq and hash. Every figure the registers print changes only by a step of
the séance or a buy-in, each followed by that event, so the row is the newest the séance's figures were made from,
and the floor, which stores the same rows off the feed, names the same head (table_runtime/registers/).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from table_runtime.errors import JournalError
from table_runtime.journal import Journal
from table_runtime.runtime.checkpointing import rebuild
from table_runtime.runtime.terms import journal_terms

SEANCE_EVENT: Final = "SeanceUpdated"


@dataclass(slots=True)
class SeanceRows:
    """When a séance opened and closed (its rows' times) and its newest row (its seq and hash)."""

    opened_at: float
    closed_at: float | None
    head_seq: int
    head_hash: str

    def to_json(self) -> dict[str, Any]:
        return {"opened_at": self.opened_at, "closed_at": self.closed_at,
                "head": {"seq": self.head_seq, "hash": self.head_hash}}


def seance_rows(journal: Journal) -> dict[int, SeanceRows]:
    """Per séance number, its SeanceUpdated rows' times and newest row (the figures are the fold's, not these)."""
    found: dict[int, SeanceRows] = {}
    for entry in journal.entries(kinds=("event",)):
        body = entry.body
        if body.get("type") != SEANCE_EVENT or not isinstance(body.get("seance"), int):
            continue
        rows = found.get(body["seance"])
        if rows is None:
            rows = found[body["seance"]] = SeanceRows(entry.ts, None, entry.seq, entry.hash)
        rows.head_seq, rows.head_hash = entry.seq, entry.hash
        if body.get("action") == "closed":
            rows.closed_at = entry.ts
    return found


def seance_accounts(journal: Journal) -> dict[str, Any]:
    """Every séance of the table (oldest first), with the table id and the journal head folded."""
    terms = journal_terms(journal)
    if terms is None:
        raise JournalError(f"{journal.path}: the journal does not say which rules it was played under")
    start = journal.start_checkpoint
    core = rebuild(journal, start)
    head = journal.last_seq
    last = next(iter(journal.entries(head - 1, limit=1)), None) if head else None
    rows = seance_rows(journal)
    return {"table_id": terms.table_id, "journal_id": journal.journal_id,
            "journal_head": {"seq": head, "hash": None if last is None else last.hash},
            "folded_from": 0 if start is None else start.seq,
            "seances": [{**account.view(), **(rows[account.number].to_json() if account.number in rows else {})}
                        for account in core.seances.all]}
