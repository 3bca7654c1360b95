"""The floor and the pit page read both shapes of ``events`` (version 1, a row a message; version 2, JournalRows):
tables of each shape through a real Mosquitto into a real PostgreSQL, and a rows message holding a bad row."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from casino_floor.ingest import Ingest
from casino_floor.pit.feed_link import FeedLink
from casino_floor.service import FloorService
from casino_floor.store import Batch, FloorStore
from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.messages import Topics
from table_runtime.feed.row_batches import rows_message
from table_runtime.feed.settings import parse_broker_url
from tests.floor.journals import play, play_on
from tests.floor.support import commit, connected, floor_config, until_stored
from tests.floor.test_service import following, publishing

SHAPES = {"T1": 100, "T2": 7, "T3": 1}  # rows a message: T3 sends version 1, as a table of an older version


class RowsSeen:
    """A read model of the pit's kind (`FoldsFeed`) that keeps the seqs of the rows it folds, by table."""

    def __init__(self) -> None:
        self.rows: dict[str, list[int]] = {}
        self.rounds: dict[str, int] = {}

    def apply_all(self, topic_name: str, payloads: list[dict[str, Any]]) -> set[str]:
        tables = set()
        for payload in payloads:
            table = str(payload["table_id"])
            if topic_name == "events":
                assert payload["schema_version"] == 1 and "kind" in payload  # always a version 1 row
                self.rows.setdefault(table, []).append(payload["seq"])
            elif topic_name == "rounds":
                self.rounds[table] = self.rounds.get(table, 0) + 1
            tables.add(table)
        return tables


async def test_tables_of_both_shapes_are_stored_once_and_seen_row_by_row_by_the_pit(
        tmp_path: Path, floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    journals = {table: play(tmp_path / f"{table}.db", table, 4, seed=index) for index, table in enumerate(SHAPES)}
    service = FloorService(floor_config(database, [floor_broker.url], prefix), store)
    observed: dict[str, list[int]] = {}

    def observe(name: str, payloads: list[dict[str, Any]]) -> None:
        for payload in payloads if name == "events" else ():
            observed.setdefault(payload["table_id"], []).append(payload["seq"])

    service.observers.append(observe)
    pit, changed = RowsSeen(), set[str]()
    link = FeedLink(parse_broker_url(floor_broker.url)[0], pit, changed.add, prefix=prefix)
    linking = asyncio.create_task(link.run())
    try:
        async with asyncio.timeout(10):
            await link.subscribed.wait()
        async with following(service), contextlib.AsyncExitStack() as stack:
            for table, rows in SHAPES.items():
                await stack.enter_async_context(publishing(floor_broker.url, prefix, {table: journals[table]},
                                                           rows_per_message=rows))
            await asyncio.gather(*(asyncio.to_thread(play_on, journal, table, 3, seed=7)  # table steps, live
                                   for table, journal in journals.items()))
            expected = {table: journal.last_seq for table, journal in journals.items()}
            held = await until_stored(database, expected)
            async with asyncio.timeout(10):
                while any(len(pit.rows.get(table, ())) < seq for table, seq in expected.items()):
                    await asyncio.sleep(0.05)
        assert held == {table: (seq, seq) for table, seq in expected.items()}
        assert service.counters.stored == sum(expected.values())
        # Far fewer messages than rows for the batching tables (the counter counts messages received).
        assert service.counters.received < sum(expected.values())
        for table, seq in expected.items():
            assert sorted(set(observed[table])) == list(range(1, seq + 1))
            assert pit.rows[table][:seq] == list(range(1, seq + 1))  # in order, each row
            assert pit.rounds[table] == sum(1 for _ in journals[table].entries(kinds=("round",)))
        assert changed == set(SHAPES)
        async with connected(database) as connection:
            assert await connection.fetchval("SELECT count(*) FROM floor_alarms") == 0
            assert await connection.fetchval("SELECT count(*) FROM quarantine") == 0
            assert await connection.fetchval("SELECT count(*) - count(DISTINCT (table_id, seq)) FROM events") == 0
    finally:
        linking.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await linking
        for journal in journals.values():
            journal.close()


async def test_a_bad_row_in_a_rows_message_is_set_aside_alone_and_its_neighbours_are_stored(
        tmp_path: Path, store: FloorStore, database: str) -> None:
    with play(tmp_path / "t1.db", "T1", 2) as journal:
        entries = list(journal.entries())
        topics = Topics("casino", "T1")
        payload: dict[str, Any] = json.loads(rows_message(topics, entries[:20], journal.journal_id).encode())
    payload["rows"][4]["body"] = {**payload["rows"][4]["body"], "forged": True}  # its hash no longer matches
    payload["rows"][9]["seq"] = "ten"  # not a journal row
    ingest = Ingest(await store.load_tracks())
    batch = Batch()
    raw = json.dumps(payload).encode()
    taken = ingest.take_rows(payload, batch, topic=topics.events, raw=raw)
    assert [row["seq"] for row in taken] == [seq for seq in range(1, 21) if seq not in (5, 10)]
    elsewhere = ingest.take_rows(payload, batch, topic=Topics("casino", "T9").events, raw=raw)
    assert elsewhere == []  # another table's topic: the message kept as evidence, no row taken
    await commit(store, ingest, batch, now=0.0)
    async with connected(database) as connection:
        stored = [row["seq"] for row in await connection.fetch("SELECT seq FROM events ORDER BY seq")]
        evidence = [(row["table_id"], row["kind"], row["seq"]) for row in await connection.fetch(
            "SELECT table_id, kind, seq FROM evidence ORDER BY id")]
        quarantine = [row["reason"] for row in await connection.fetch("SELECT reason FROM quarantine")]
        alarms = {row["kind"] for row in await connection.fetch("SELECT kind FROM floor_alarms")}
    assert stored == [seq for seq in range(1, 21) if seq not in (5, 10)]
    assert evidence == [("T1", "hash_mismatch", 5), ("T9", "misrouted", 20)]
    assert len(quarantine) == 1 and "wrong type" in quarantine[0]
    assert {"chain_broken", "quarantined", "misrouted"} <= alarms
