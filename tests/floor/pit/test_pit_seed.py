"""A restarted floor does not start the shift from zero: the pit's figures begin with the rounds the store holds,
and a round both stored and heard on the feed counts once."""

from __future__ import annotations

import time
from pathlib import Path

from casino_floor.ingest import Ingest
from casino_floor.pit.picture import FloorPicture
from casino_floor.pit.serve import seed_shift
from casino_floor.store import FloorStore
from tests.floor.journals import feed_messages, play
from tests.floor.support import store_messages


async def test_the_shift_starts_from_the_stored_rounds_and_counts_each_round_once(
    store: FloorStore, tmp_path: Path
) -> None:
    journal = play(tmp_path / "T01.db", "T01", 6)
    try:
        messages = list(feed_messages(journal, "casino", "T01"))
    finally:
        journal.close()
    now = time.time()
    await store_messages(store, Ingest(), ((name, payload) for _, name, payload in messages
                                           if name in ("events", "state", "status")), now=now)
    live = FloorPicture(clock=lambda: now)  # what a page following the feed from the start shows
    for _, name, payload in messages:
        live.apply(name, payload)
    expected = live.overview()["pit"]
    assert expected["rounds"] == 6 and expected["handle_cents"] > 0

    restarted = FloorPicture(clock=lambda: now)
    assert await seed_shift(restarted, store, now) == 6
    assert restarted.overview()["pit"] == expected
    for _, name, payload in messages:  # the same rounds heard again on the feed
        restarted.apply(name, payload)
    assert restarted.overview()["pit"] == expected
