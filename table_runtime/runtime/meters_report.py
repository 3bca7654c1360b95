"""The lifetime meters as a table's journal holds them: the one fold from the newest checkpoint, and the snapshots.

The meters are part of the one table state (core/meters.py): a checkpoint carries them, so the fold from the
checkpoint the journal verified when it opened (else from its first row) has them whole, as the running table
has them. The snapshots are the journal's `meters` rows (core/meters_snapshots.py), read as written. The answer
carries the journal head it was made from (its row and hash), so anyone can check it against the record.
"""

from __future__ import annotations

from typing import Any

from table_runtime.core.meters import Meters
from table_runtime.core.row_kinds import RowKind
from table_runtime.journal import Journal
from table_runtime.runtime.checkpointing import rebuild
from table_runtime.runtime.terms import journal_terms


def table_meters(journal: Journal) -> dict[str, Any]:
    """The table id, the journal's id and head, where the fold started, and the meters (`Meters.view`). A journal
    no table has started on yet (a RAM clear's new journal: core/meters_snapshots.py) has every meter at 0."""
    terms = journal_terms(journal)
    start = journal.start_checkpoint
    meters = Meters().view() if terms is None else rebuild(journal, start).meters.view()
    head = journal.last_seq
    last = next(iter(journal.entries(head - 1, limit=1)), None) if head else None
    return {"table_id": None if terms is None else terms.table_id, "journal_id": journal.journal_id,
            "journal_head": {"seq": head, "hash": None if last is None else last.hash},
            "folded_from": 0 if start is None else start.seq, "meters": meters}


def meters_snapshots(journal: Journal) -> list[dict[str, Any]]:
    """Every `meters` row of the journal, oldest first: its row, time and body (reason, day, meters, ...)."""
    return [{"seq": entry.seq, "ts": entry.ts, **entry.body}
            for entry in journal.entries(kinds=(RowKind.METERS,))]


def last_metered_ts(journal: Journal) -> float | None:
    """When the journal's last input or `meters` row was written (the gaming day its meters are in; None: no such
    row). Read back from the head in growing steps: a start finds it in the last few rows."""
    head = journal.last_seq
    for back in (64, 4096, 262_144, head):
        rows = list(journal.entries(max(0, head - back), kinds=(RowKind.INPUT, RowKind.METERS)))
        if rows:
            return rows[-1].ts
        if back >= head:
            break
    return None
