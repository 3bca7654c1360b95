"""The floor service takes the tables' ``ratings`` channel off a real Mosquitto into a real PostgreSQL, and erases
the months of rated sessions past the retention, at start and then daily by the clock it is given."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import json
import logging
from typing import Any

import aiomqtt
import pytest

from casino_floor.config import config_from_mapping
from casino_floor.ingest import Ingest
from casino_floor.partitions import make_months, months
from casino_floor.ratings import Retention
from casino_floor.service import FloorService
from casino_floor.store import FloorStore
from simulators.mosquitto import MosquittoBroker
from table_runtime.errors import ConfigError
from tests.floor.rating_messages import Played, session_messages
from tests.floor.support import connected, floor_config, store_messages
from tests.floor.test_service import following

DAY = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
ROUNDS = [Played("r1", 5000, -5000, 26, 31), Played("r2", 10000, 10000, 52, 118)]


async def until(database: str, query: str, expected: Any, seconds: float = 20.0) -> None:
    """Wait until `query` answers `expected`; fail with its last answer."""
    answer = None
    try:
        async with asyncio.timeout(seconds):
            while True:
                async with connected(database) as connection:
                    answer = await connection.fetchval(query)
                if answer == expected:
                    return
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"{query}: {answer!r}, never {expected!r}") from None


async def purged(service: FloorService, count: int) -> None:
    """Wait until the service has counted `count` sessions purged (it counts once the delete has answered)."""
    async with asyncio.timeout(10):
        while service.counters.ratings_purged != count:
            await asyncio.sleep(0.01)


async def test_the_service_stores_the_ratings_channel_and_drops_a_bad_message_in_one_line(
        floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str,
        caplog: pytest.LogCaptureFixture) -> None:
    first = session_messages("T01", 100, "p-3f9a0c1b2d4e", 3, DAY, ROUNDS, buy_in_cents=50_000)
    second = session_messages("T02", 8, None, 6, DAY, ROUNDS[:1])
    service = FloorService(floor_config(database, [floor_broker.url], prefix), store)
    with caplog.at_level(logging.WARNING):
        async with following(service), aiomqtt.Client("127.0.0.1", floor_broker.port) as table:
            # The bad ones before the last good one: once that is stored, every one before it was taken.
            await table.publish(f"{prefix}/tables/T02/ratings", b"\xff not json", qos=1)
            await table.publish(f"{prefix}/tables/T02/ratings", b"[1, 2]", qos=1)
            await table.publish(f"{prefix}/tables/T02/ratings", json.dumps({**second[0], "table": None}), qos=1)
            for message in [*first, first[1], second[0], {**second[1], "box": "six"}, *second[1:], first[0]]:
                await table.publish(f"{prefix}/tables/{message['table']}/ratings", json.dumps(message), qos=1)
            await until(database, "SELECT count(*) FROM rated_sessions WHERE ended_at IS NOT NULL", 2)
            await until(database, "SELECT count(*) FROM rated_rounds", 3)
            async with asyncio.timeout(10):  # counted once the write has returned, just after its commit
                while service.counters.ratings_stored != len(first) + 1 + len(second) + 1:
                    await asyncio.sleep(0.01)
    async with connected(database) as connection:
        rows = {row["session"]: row for row in await connection.fetch("SELECT * FROM rated_sessions")}
    assert rows["T01-100"]["handle_cents"] == 15_000 and rows["T01-100"]["buy_in_cents"] == 50_000
    assert rows["T01-100"]["last_seq"] == first[-1]["seq"]
    assert rows["T02-8"]["player"] is None and rows["T02-8"]["box"] == 6 and rows["T02-8"]["rounds"] == 1
    assert service.counters.ratings_rejected == 4  # the box in words, not JSON, not an object, no table
    dropped = [record.getMessage() for record in caplog.records if "ratings message" in record.getMessage()]
    assert dropped == ["table None: dropped a ratings message (session 'T02-8'): table must be a non-empty text, "
                       "not None", "table 'T02': dropped a ratings message (session 'T02-8'): box must be a whole "
                       "number, not 'six'"]
    assert not [record for record in caplog.records if record.exc_info]


async def test_the_retention_drops_the_months_past_it_at_start_and_then_daily_by_the_clock(
        floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    october, november = dt.datetime(2026, 10, 20, tzinfo=dt.UTC), dt.datetime(2026, 11, 3, tzinfo=dt.UTC)
    async with connected(database) as connection:  # the months made ahead, as the service had
        await make_months(connection, october.timestamp(), ahead=2)
    ended_october = session_messages("T01", 10, "p-old", 1, october, ROUNDS)
    open_november = session_messages("T01", 30, None, 3, november, ROUNDS, close=False)
    ended_december = session_messages("T01", 20, "p-kept", 2, DAY + dt.timedelta(days=10), ROUNDS)
    await store_messages(store, Ingest(), [("ratings", m) for m in [*ended_october, *ended_december,
                                                                     *open_november]], now=0.0)
    now = [(DAY + dt.timedelta(days=1)).timestamp()]  # 2 December
    config = dataclasses.replace(floor_config(database, [floor_broker.url], prefix), ratings_retention_days=30)
    service = FloorService(config, store, clock=lambda: now[0])
    async with following(service):
        # At start: 30 days before 2 December is 2 November; October ended before it and goes, with its lines.
        await until(database, "SELECT string_agg(session, ',' ORDER BY session) FROM rated_sessions",
                    "T01-20,T01-30")
        await until(database, "SELECT count(*) FROM rated_rounds WHERE session = 'T01-10'", 0)
        await purged(service, 1)
        now[0] += 30 * 86_400  # 1 January: the next run is due; November, with the session left open, goes
        await until(database, "SELECT string_agg(session, ',' ORDER BY session) FROM rated_sessions", "T01-20")
        await purged(service, 2)
        async with connected(database) as connection:  # the months of January to April made ahead by now
            assert (await months(connection, "rated_sessions"))[-1] == dt.date(2027, 4, 1)


def test_the_purge_is_due_at_the_first_look_and_then_once_a_day() -> None:
    retention = Retention(days=30)
    assert retention.due(1000.0)
    retention.done(1000.0)
    assert not retention.due(1000.0 + 86_399)
    assert retention.due(1000.0 + 86_400)


def test_the_retention_is_a_whole_number_of_days_in_the_config() -> None:
    base: dict[str, Any] = {"floor": {"dsn": "postgresql://floor@127.0.0.1/floor"},
                            "brokers": [{"url": "mqtt://127.0.0.1:1883"}]}
    assert config_from_mapping(base, environ={}).ratings_retention_days == 365
    assert config_from_mapping({**base, "ratings": {"retention_days": 90}}, environ={}).ratings_retention_days == 90
    for bad in (0, -3, 1.5, "a year", True):
        with pytest.raises(ConfigError, match=r"ratings\.retention_days"):
            config_from_mapping({**base, "ratings": {"retention_days": bad}}, environ={})
    with pytest.raises(ConfigError, match=r"ratings\.keep"):
        config_from_mapping({**base, "ratings": {"keep": 3}}, environ={})
