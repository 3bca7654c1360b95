"""A RAM clear: the table starts a new journal over its old one, and both journals say so (docs/meters.md).

`clear_journal` holds the journal's writer claim for the whole change (a table cannot start on it meanwhile),
then:

1. appends to the old journal its last row, a `journal_closed` meters snapshot (core/meters_snapshots.py): who
   cleared it, and the meters it closes with (the one fold, from the newest checkpoint);
2. sets the old journal aside, renamed, never deleted: `journal.db` (and its write-ahead files and its rated
   sessions' checkpoints, `journal.ratings.db`) become `journal.cleared-<UTC time>-<journal id>.db`;
3. starts the new journal with the `journal_cleared` snapshot as its first row: who cleared it, the old journal's
   id, head (row and hash) and file, and the meters it closed. The next start writes the configured terms after
   it (runtime/terms.py `settle_terms`): a RAM clear is how a table changes its rules or limits.

The new journal's meters start at 0; the old ones stay in the old journal and in the new one's first row.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_runtime.core.meters_snapshots import SnapshotReason, gaming_day, snapshot_body
from table_runtime.core.row_kinds import RowKind
from table_runtime.errors import JournalError
from table_runtime.journal import Journal, journal_path
from table_runtime.journal.rating_checkpoints import ratings_path
from table_runtime.journal.writer_claim import claim
from table_runtime.runtime.meters_report import table_meters

_SIDE_FILES = ("-wal", "-shm")  # SQLite's files beside a database, moved with it when they are there


@dataclass(frozen=True, slots=True)
class Cleared:
    """What a RAM clear did: the old journal's id, its head and where it is now; the new journal's id."""

    previous_journal: str
    previous_head: dict[str, Any]
    previous_file: Path
    journal: str
    meters: dict[str, Any]


def set_aside_name(path: Path, journal_id: str, now: float) -> Path:
    stamp = dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    return path.with_name(f"{path.stem}.cleared-{stamp}-{journal_id}{path.suffix}")


def _move(source: Path, target: Path) -> None:
    for suffix in ("", *_SIDE_FILES):
        moved = source.with_name(source.name + suffix)
        if moved.exists():
            moved.rename(target.with_name(target.name + suffix))


def clear_journal(data_dir: str | Path, *, employee: str, now: float) -> Cleared:
    """Start a new journal in `data_dir` over the one there, by `employee` (a staff registry's id), at `now`."""
    path = journal_path(data_dir)
    if not path.is_file():
        raise JournalError(f"{path}: no journal here to clear")
    claim_handle = claim(path)  # no table starts on it while it is set aside
    try:
        day = gaming_day(now)
        with Journal.open(path) as old:
            report = table_meters(old)
            previous = old.journal_id
            target = set_aside_name(path, previous, now)
            last = old.append(RowKind.METERS, snapshot_body(report["meters"], SnapshotReason.JOURNAL_CLOSED, day=day,
                                                            employee=employee, next_file=target.name), ts=now)
            head = {"seq": last.seq, "hash": last.hash}
        ratings = ratings_path(path)
        _move(path, target)
        if ratings.exists():
            _move(ratings, ratings_path(target))
        with Journal.open(path) as new:
            new.append(RowKind.METERS, snapshot_body(report["meters"], SnapshotReason.JOURNAL_CLEARED, day=day,
                                                     employee=employee, previous_journal=previous,
                                                     previous_head=head, previous_file=target.name), ts=now)
            journal_id = new.journal_id
    finally:
        claim_handle.close()
    return Cleared(previous_journal=previous, previous_head=head, previous_file=target, journal=journal_id,
                   meters=report["meters"])
