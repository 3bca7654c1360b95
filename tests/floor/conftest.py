"""Fixtures of the floor's tests: one real PostgreSQL per session (a fresh database per test), real Mosquitto."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest

from casino_floor.store import FloorStore
from simulators.postgres import PostgresServer, find_bin


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    if find_bin() is None:
        pytest.skip("PostgreSQL is not installed: no initdb under /usr/lib/postgresql/*/bin, on PATH or in PG_BIN")
    with PostgresServer() as server:
        yield server


@pytest.fixture
async def database(postgres: PostgresServer) -> AsyncIterator[str]:
    """The DSN of a database no other test uses (dropped after the test)."""
    name = f"floor_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(postgres.dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    yield postgres.dsn_for(name)
    admin = await asyncpg.connect(postgres.dsn)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture
async def store(database: str) -> AsyncIterator[FloorStore]:
    opened = await FloorStore.open(database)
    try:
        yield opened
    finally:
        await opened.close()
