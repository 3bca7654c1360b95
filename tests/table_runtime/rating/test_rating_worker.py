"""The rating watch's worker process: it folds the rows it is handed, says which row it refused, holds no journal
file, and is gone once closed (runtime/rating_worker.py)."""

from __future__ import annotations

import os

import pytest

from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import JournalEntry
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.runtime.rating_worker import RatingWorker, RatingWorkerError


def _entry(seq: int, kind: str, body: dict[str, object]) -> JournalEntry:
    return JournalEntry(seq=seq, ts=1_800_000_000.0 + seq, kind=kind, body=body, prev_hash="", hash="")


def test_the_worker_folds_what_it_is_handed_names_a_refused_row_and_ends_when_closed() -> None:
    worker = RatingWorker("T01", profile("fr-casino"), TableLimits(), AdviceSettings(), nice=0)
    try:
        assert worker.step([], 1_800_000_000.0) == (0, [], [])
        seated = _entry(1, "input", {"type": "PlayerSeated", "box": 3, "player": "A", "by": "dealer",
                                     "schema_version": 1, "source": "display"})
        last, _, advice = worker.step([seated], 1_800_000_010.0)
        assert (last, advice) == (1, [])
        with pytest.raises(RatingWorkerError, match=r"row 2 does not fold: .*"):
            worker.step([_entry(2, "no-such-kind", {})], 1_800_000_020.0)
        pid = worker._process.pid
        assert pid is not None
        open_files = os.listdir(f"/proc/{pid}/fd")
        assert not [name for name in open_files if os.readlink(f"/proc/{pid}/fd/{name}").endswith(".db")]
    finally:
        worker.close()
    assert not worker._process.is_alive()
    with pytest.raises(RatingWorkerError, match="the rating worker ended"):
        worker.step([], 1_800_000_030.0)
