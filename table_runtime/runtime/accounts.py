"""The séances of a table as its journal holds them: the one fold, from the newest checkpoint the journal verified.

The séances are a part of the one table state (core/seance.py): a checkpoint carries every séance closed before
it and the one open, so the fold from the checkpoint the journal verified when it opened (else from the first
row) has them all. Each séance's figures are `SeanceAccount.view`'s; the answer carries the journal head it was
made from (its row and hash), so anyone can check it against the record (docs/accounts.md).
"""

from __future__ import annotations

from typing import Any

from table_runtime.errors import JournalError
from table_runtime.journal import Journal
from table_runtime.runtime.checkpointing import rebuild
from table_runtime.runtime.terms import journal_terms


def seance_accounts(journal: Journal) -> dict[str, Any]:
    """Every séance of the table (oldest first), with the table id and the journal head folded."""
    terms = journal_terms(journal)
    if terms is None:
        raise JournalError(f"{journal.path}: the journal does not say which rules it was played under")
    start = journal.start_checkpoint
    core = rebuild(journal, start)
    head = journal.last_seq
    last = next(iter(journal.entries(head - 1, limit=1)), None) if head else None
    return {"table_id": terms.table_id, "journal_id": journal.journal_id,
            "journal_head": {"seq": head, "hash": None if last is None else last.hash},
            "folded_from": 0 if start is None else start.seq,
            "seances": [account.view() for account in core.seances.all]}
