"""A head's time is taken before its row is read: every row journaled before that time is in the head, so a floor
never reads a head published after rows it does not name as a cut tail (casino_floor/integrity.py)."""

from __future__ import annotations

from pathlib import Path

from table_runtime.feed.publisher import FeedPublisher
from table_runtime.journal import Journal, journal_path
from tests.feed.support import settings


def test_a_row_journaled_while_the_head_is_taken_is_in_it_or_after_its_time(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        journal.append("status", {"type": "Started"}, ts=1_800_000_000.0)
        now = 1_800_000_010.0

        def clock() -> float:  # the table journals a row at that very moment, dated a millisecond earlier
            journal.append("status", {"type": "DeviceStatus"}, ts=now - 0.001)
            return now

        publisher = FeedPublisher(settings("mqtt://127.0.0.1:1", "head-time"), journal, clock=clock)
        seq, hash_, ts = publisher._journal_head()
        rows = list(journal.entries())
    assert (seq, hash_, ts) == (rows[-1].seq, rows[-1].hash, now)  # the row dated before the head is in it
    assert all(row.seq <= seq for row in rows if row.ts < ts)
