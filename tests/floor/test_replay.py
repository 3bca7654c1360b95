"""The floor asks a table to replay the rows it misses: signed as the shared brief says, retried until they come.

The table's side here answers as the brief specifies (the MAC checked with its own HMAC code, the rows sent as
the table's real ``events`` payloads to `reply_to`, then ``ReplayDone``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import tomllib
from pathlib import Path
from typing import Any

import aiomqtt

from casino_floor.config import config_from_mapping
from casino_floor.replay import MAX_ROWS, pieces, replay_request
from casino_floor.service import FloorService
from casino_floor.store import FloorStore
from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.messages import Topics, event_message
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import FeedSettings
from table_runtime.journal import JournalEntry
from tests.floor.journals import journal_id, play
from tests.floor.support import connected, floor_toml, until_stored
from tests.polling import until

SECRET = "shared-replay-secret"  # 20 bytes: the tables ask for 16 at least


def _mac(request: dict[str, Any]) -> str:
    unsigned = json.dumps({k: v for k, v in request.items() if k != "mac"}, sort_keys=True, separators=(",", ":"))
    return hmac.new(SECRET.encode(), unsigned.encode(), hashlib.sha256).hexdigest()


def test_a_request_is_signed_over_its_canonical_json_and_cut_in_pieces() -> None:
    request = replay_request(prefix="casino", floor_id="floor-a", journal="j" * 32, from_seq=5, to_seq=9,
                             secret=SECRET, new_id=lambda: "r1")
    assert request == {"type": "ReplayRequest", "journal": "j" * 32, "from_seq": 5, "to_seq": 9, "request_id": "r1",
                       "floor_id": "floor-a", "reply_to": "casino/floor/floor-a/replay", "mac": _mac(request)}
    assert pieces(1, 12_001) == [(1, MAX_ROWS), (MAX_ROWS + 1, 2 * MAX_ROWS), (2 * MAX_ROWS + 1, 12_001)]


async def _table_side(url_port: int, prefix: str, entries: list[JournalEntry], ident: str,
                      requests: list[dict[str, Any]], ready: asyncio.Event) -> None:
    topics = Topics(prefix, "T1")
    async with aiomqtt.Client("127.0.0.1", url_port) as client:
        await client.subscribe(f"{prefix}/tables/T1/replay/request", qos=1)
        ready.set()
        async for message in client.messages:
            assert isinstance(message.payload, bytes)
            request = json.loads(message.payload)
            requests.append(request)
            if request.get("mac") != _mac(request):
                continue
            for entry in entries[request["from_seq"] - 1:request["to_seq"]]:
                payload = event_message(topics, entry, ident).payload
                await client.publish(request["reply_to"], json.dumps(payload), qos=1)
            await client.publish(request["reply_to"], json.dumps(
                {"type": "ReplayDone", "request_id": request["request_id"], "journal": request["journal"],
                 "from_seq": request["from_seq"], "to_seq": request["to_seq"]}), qos=1)


async def test_a_gap_is_asked_for_and_filled_by_the_table(
        tmp_path: Path, floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    with play(tmp_path / "t1.db", "T1", 3) as journal:
        entries, ident = list(journal.entries()), journal_id(journal)
    config = config_from_mapping(tomllib.loads(floor_toml(database, [floor_broker.url], prefix, gap_grace=0.5,
                                                          replay_retry=1.0)),
                                 environ={"FLOOR_REPLAY_SECRET": SECRET})
    service = FloorService(config, store)
    requests: list[dict[str, Any]] = []
    ready = asyncio.Event()
    async with asyncio.TaskGroup() as tasks:
        floor = tasks.create_task(service.run())
        table = tasks.create_task(_table_side(floor_broker.port, prefix, entries, ident, requests, ready))
        await asyncio.wait_for(ready.wait(), 10)
        await asyncio.wait_for(service.connected.wait(), 10)
        topics = Topics(prefix, "T1")
        async with aiomqtt.Client("127.0.0.1", floor_broker.port) as publisher:  # rows 20..39 lost on the way
            for entry in entries:
                if not 20 <= entry.seq <= 39:
                    payload = event_message(topics, entry, ident).payload
                    await publisher.publish(topics.events, json.dumps(payload), qos=1)
        await until_stored(database, {"T1": entries[-1].seq}, seconds=30)
        await until(lambda: service.counters.replay_done >= 1, "the table's ReplayDone taken", 10)  # after the rows
        floor.cancel()
        table.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(floor, table)
    async with connected(database) as connection:
        alarms = await connection.fetch("SELECT kind, first_seq, last_seq, cleared_at FROM floor_alarms")
        count = await connection.fetchval("SELECT count(*) FROM events")
    assert count == entries[-1].seq
    assert requests and requests[0]["journal"] == ident and (requests[0]["from_seq"], requests[0]["to_seq"]) == (20, 39)
    assert requests[0]["reply_to"] == f"{prefix}/floor/floor-test/replay" and requests[0]["floor_id"] == "floor-test"
    assert [(a["kind"], a["first_seq"], a["last_seq"]) for a in alarms] == [("gap", 20, 39)]
    assert all(alarm["cleared_at"] is not None for alarm in alarms)
    assert service.counters.replay_done >= 1


async def test_a_floor_joining_late_gets_the_rows_from_the_tables_own_replay(
        tmp_path: Path, floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    """The table's real publisher (with its replay secret) published before the floor existed; the floor sees
    the retained head, asks, and the table's own responder answers."""
    journal = play(tmp_path / "t1.db", "T1", 3)
    last_seq = journal.last_seq
    feed_settings = FeedSettings.from_mapping(
        {"url": floor_broker.url, "prefix": prefix, "table_id": "T1", "backoff_initial": 0.05, "backoff_max": 0.4,
         "poll_interval": 0.05, "replay_secret_env": "TABLE_REPLAY_SECRET"}, environ={"TABLE_REPLAY_SECRET": SECRET})
    config = config_from_mapping(tomllib.loads(floor_toml(database, [floor_broker.url], prefix, gap_grace=0.3,
                                                          replay_retry=1.0)),
                                 environ={"FLOOR_REPLAY_SECRET": SECRET})
    try:
        async with FeedPublisher(feed_settings, journal) as feed, asyncio.TaskGroup() as tasks:
            publishing = tasks.create_task(feed.run())
            async with asyncio.timeout(30):
                await feed.wait_published(last_seq)
            service = FloorService(config, store)
            floor = tasks.create_task(service.run())
            await until_stored(database, {"T1": last_seq}, seconds=60)
            # ReplayDone follows the rows: stored rows alone do not say it was taken yet.
            await until(lambda: service.counters.replay_done >= 1, "the table's ReplayDone taken", 10)
            floor.cancel()
            feed.stop()
            await publishing
    finally:
        journal.close()
    async with connected(database) as connection:
        count = await connection.fetchval("SELECT count(*) FROM events")
        gaps = await connection.fetch("SELECT first_seq, cleared_at FROM floor_alarms WHERE kind = 'gap'")
    assert count == last_seq and service.counters.replay_requests >= 1 and service.counters.replay_done >= 1
    assert gaps and all(gap["cleared_at"] is not None for gap in gaps) and gaps[0]["first_seq"] == 1
