"""The tables' lifetime meters at the floor, through its PostgreSQL: each séance close's snapshot a table journals
is stored as the table wrote it, and `table-floor query meters` lists them (issue 35)."""

from __future__ import annotations

import itertools
from pathlib import Path

import asyncpg

from casino_floor.ingest import Ingest
from casino_floor.meters import snapshots
from casino_floor.store import FloorStore
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from tests.floor.journals import feed_messages
from tests.floor.support import store_messages
from tests.table_runtime.test_meters_snapshots import OPENER, ok, play_round, shuffle


async def test_each_seance_close_s_meters_are_stored_and_listed_by_table_and_time(tmp_path: Path, store: FloorStore,
                                                                                  database: str) -> None:
    ticks = itertools.count()
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                                     clock=lambda: 1_800_000_000.0 + next(ticks))
        shuffle(controller)
        for _ in range(2):
            ok(controller, "SEANCE_OPEN", {"chips": OPENER})
            ok(controller, "BUY_IN", {"cents": 30000, "box": 1})
            play_round(controller)
            ok(controller, "TIP", {"box": 1, "cents": 500})
            ok(controller, "SEANCE_CLOSE", {"chips": OPENER})
        written = [entry for entry in journal.entries(kinds=("meters",))]
        messages = [(name, payload) for _, name, payload in feed_messages(journal, "casino", "T1")]
    await store_messages(store, Ingest(await store.load_tracks()), messages, now=1_800_000_100.0)
    connection = await asyncpg.connect(database)
    try:
        listed = await snapshots(connection, "T1", 0.0, 4e9)
        other = await snapshots(connection, "T9", 0.0, 4e9)
    finally:
        await connection.close()
    assert [(row["seq"], row["reason"], row["seance"]) for row in listed] == [
        (entry.seq, "seance_closed", number) for entry, number in zip(written, (1, 2), strict=True)]
    assert [row["meters"] for row in listed] == [entry.body["meters"] for entry in written]
    assert [(row["rounds"], row["drop_cents"]) for row in listed] == [(1, 30000), (2, 60000)]
    assert listed[1]["meters"]["tips_cents"] == 1000 and other == []
