"""The floor service against a real Mosquitto and a real PostgreSQL, fed by the tables' real publishers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from casino_floor.service import FloorService
from casino_floor.store import FloorStore
from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.journal import Journal
from tests.feed.support import settings
from tests.floor.journals import play, play_on
from tests.floor.support import connected, floor_config, until_stored


@contextlib.asynccontextmanager
async def publishing(url: str, prefix: str, journals: dict[str, Journal], **overrides: Any
                     ) -> AsyncIterator[None]:
    """A real publisher per table (`overrides`: more of its settings), running until the block ends."""
    async with contextlib.AsyncExitStack() as stack, asyncio.TaskGroup() as tasks:
        for table_id, journal in journals.items():
            feed = await stack.enter_async_context(FeedPublisher(settings(url, prefix, table_id, **overrides), journal))
            tasks.create_task(feed.run())
        yield
        await stack.aclose()


@contextlib.asynccontextmanager
async def floor(store: FloorStore, config_args: tuple[str, list[str], str], **floor: Any
                ) -> AsyncIterator[FloorService]:
    async with following(FloorService(floor_config(*config_args, **floor), store)) as service:
        yield service


@contextlib.asynccontextmanager
async def following(service: FloorService) -> AsyncIterator[FloorService]:
    """The service running (connected to every broker) until the block ends."""
    task = asyncio.create_task(service.run())
    try:
        async with asyncio.timeout(10):
            await service.connected.wait()
        yield service
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_every_row_of_every_table_is_stored_once_while_tables_play_and_restart(
        tmp_path: Path, floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    journals = {table: play(tmp_path / f"{table}.db", table, 5, seed=index, checkpoint_rows=60)
                for index, table in enumerate(("T1", "T2", "T3"))}
    # The tables' checkpoints the floor gets: the newest at the feed's connect, then each one sealed since.
    before = {table: journal.latest_checkpoint(journal.last_seq) for table, journal in journals.items()}
    assert all(before.values())
    try:
        async with floor(store, (database, [floor_broker.url], prefix)) as service, \
                publishing(floor_broker.url, prefix, journals, head_interval=0.2):
            # The tables play on (a new controller on the journal: a table restart) while the feed runs.
            await asyncio.gather(*(asyncio.to_thread(play_on, journal, table, 5, seed=9, checkpoint_rows=60)
                                   for table, journal in journals.items()))
            expected = {table: journal.last_seq for table, journal in journals.items()}
            held = await until_stored(database, expected)
            sealed = {table: {(checkpoint.seq, checkpoint.seal) for checkpoint in
                              journal.checkpoints_until(journal.last_seq)} for table, journal in journals.items()}
            newest = {table: max(sealed[table]) for table in journals}
            async with connected(database) as connection, asyncio.timeout(20):
                while True:
                    stored = {table: {(row["seq"], row["seal"]) for row in await connection.fetch(
                        "SELECT seq, seal FROM checkpoints WHERE table_id = $1", table)} for table in journals}
                    if all(newest[table] in stored[table] for table in journals):
                        break
                    await asyncio.sleep(0.05)
        for table, first in before.items():  # from the first it got (the newest at its connect) on, every one
            assert first is not None and min(stored[table])[0] >= first.seq
            assert stored[table] == {found for found in sealed[table] if found[0] >= min(stored[table])[0]}
            assert newest[table] in stored[table]
        assert held == {table: (seq, seq) for table, seq in expected.items()}
        assert service.counters.stored == sum(expected.values())
        async with connected(database) as connection:
            assert await connection.fetchval("SELECT count(*) FROM floor_alarms") == 0
            states = await connection.fetch("SELECT table_id, status->>'status' AS status, state_seq "
                                            "FROM table_state ORDER BY table_id")
            rounds = await connection.fetchval("SELECT count(*) FROM rounds")
        assert [row["table_id"] for row in states] == ["T1", "T2", "T3"]
        assert all(row["status"] in ("online", "offline") for row in states)
        assert rounds == sum(sum(1 for _ in journal.entries(kinds=("round",))) for journal in journals.values())
    finally:
        for journal in journals.values():
            journal.close()


async def test_two_floor_processes_share_the_tables_by_partition(
        tmp_path: Path, floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    tables = [f"P{index}" for index in range(6)]
    journals = {table: play(tmp_path / f"{table}.db", table, 2, seed=index) for index, table in enumerate(tables)}
    args = (database, [floor_broker.url], prefix)
    try:
        async with floor(store, args, partition="1/2") as first, floor(store, args, partition="2/2") as second, \
                publishing(floor_broker.url, prefix, journals):
            await until_stored(database, {table: journal.last_seq for table, journal in journals.items()})
        mine = {table for table in tables if first.config.follows(table)}
        assert mine and mine != set(tables)
        assert first.counters.stored == sum(journals[table].last_seq for table in mine)
        assert second.counters.stored == sum(journals[table].last_seq for table in set(tables) - mine)
    finally:
        for journal in journals.values():
            journal.close()
