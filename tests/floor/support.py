"""Helpers of the floor's tests: run messages through `Ingest` into the store, batch by batch."""

from __future__ import annotations

import asyncio
import json
import tomllib
import uuid
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from casino_floor.config import FloorConfig, config_from_mapping
from casino_floor.ingest import Ingest
from casino_floor.migrate import migrate
from casino_floor.store import Batch, FloorStore
from simulators.postgres import PostgresServer


async def store_messages(store: FloorStore, ingest: Ingest, messages: Iterable[tuple[str, dict[str, Any]]], *,
                         now: float, batch_rows: int = 500) -> None:
    """(topic name, payload) pairs written in batches of `batch_rows`, as the service does."""
    batch = Batch()
    for name, payload in messages:
        ingest.take(name, payload, batch)
        if len(batch.rows) + len(batch.ratings) >= batch_rows:
            await commit(store, ingest, batch, now)
            batch = Batch()
    await commit(store, ingest, batch, now)


async def commit(store: FloorStore, ingest: Ingest, batch: Batch, now: float) -> None:
    for track, seq, hash_, ts in ingest.lookups:
        held = await store.hash_at(track.table_id, track.journal, seq)
        batch.alarms.extend(track.head(seq, hash_, held, ts=ts))
    ingest.lookups.clear()
    ingest.finish(batch, now)
    await store.write(batch)
    ingest.committed(batch)


def floor_toml(dsn: str, urls: list[str], prefix: str, **floor: Any) -> str:
    """A floor configuration file's text (quick retries: the tests cut brokers on purpose)."""
    settings = {"floor_id": "floor-test", "dsn": dsn, "check_interval": 0.2, "batch_ms": 20, **floor}
    lines = ["[floor]", *(f"{key} = {json.dumps(value)}" for key, value in settings.items())]
    for url in urls:
        lines += ["[[brokers]]", f'url = "{url}"', f'prefix = "{prefix}"']
    return "\n".join(lines) + "\n"


def floor_config(dsn: str, urls: list[str], prefix: str, **floor: Any) -> FloorConfig:
    return config_from_mapping(tomllib.loads(floor_toml(dsn, urls, prefix, **floor)), environ={})


@asynccontextmanager
async def connected(dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """One connection to the store's database, closed on the way out."""
    connection = await asyncpg.connect(dsn)
    try:
        yield connection
    finally:
        await connection.close()


async def stored(dsn: str) -> dict[str, tuple[int, int]]:
    """Per table: (rows stored, contiguous seq) over all its journals."""
    async with connected(dsn) as connection:
        rows = await connection.fetch(
            "SELECT j.table_id, sum(j.contiguous_seq)::bigint AS contiguous, "
            "(SELECT count(*) FROM events e WHERE e.table_id = j.table_id) AS count "
            "FROM journals j GROUP BY j.table_id")
    return {row["table_id"]: (row["count"], row["contiguous"]) for row in rows}


async def until_stored(dsn: str, expected: dict[str, int], seconds: float = 60.0) -> dict[str, tuple[int, int]]:
    """Wait until every table of `expected` has its rows 1..seq stored; fail with what the store holds."""
    now: dict[str, tuple[int, int]] = {}
    try:
        async with asyncio.timeout(seconds):
            while True:
                now = await stored(dsn)
                if all(now.get(table, (0, 0))[1] >= seq for table, seq in expected.items()):
                    return now
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f"never stored {expected} within {seconds:g} s: the store holds {now}") from None


MIGRATED_TEMPLATE = "floor_migrated_template"


async def migrated_template(postgres: PostgresServer) -> str:
    """A database of the cluster holding every migration, made once per cluster by the floor's own `migrate`, as
    `FloorStore.open` brings up an empty database; a test's database copied from it starts where `FloorStore.open`
    finds nothing left to apply (tests/README.md, "The suite")."""
    admin = await asyncpg.connect(postgres.dsn)
    try:
        if await admin.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", MIGRATED_TEMPLATE) is None:
            await admin.execute(f'CREATE DATABASE "{MIGRATED_TEMPLATE}"')
            async with connected(postgres.dsn_for(MIGRATED_TEMPLATE)) as connection:
                await migrate(connection)
            await admin.execute(f'ALTER DATABASE "{MIGRATED_TEMPLATE}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false')
    finally:
        await admin.close()
    return MIGRATED_TEMPLATE


@asynccontextmanager
async def fresh_database(postgres: PostgresServer, *, migrated: bool = False) -> AsyncIterator[str]:
    """The DSN of a database of its own on the session's PostgreSQL, made in the caller's loop and dropped after:
    empty, or with every migration applied (`migrated`: a copy of `migrated_template`)."""
    name = f"floor_{uuid.uuid4().hex[:12]}"
    template = f' TEMPLATE "{await migrated_template(postgres)}"' if migrated else ""
    admin = await asyncpg.connect(postgres.dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"{template}')
    finally:
        await admin.close()
    try:
        yield postgres.dsn_for(name)
    finally:
        admin = await asyncpg.connect(postgres.dsn)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
