"""Fixtures of the floor's tests: one real PostgreSQL per session (xdist worker) with a fresh database per test,
real Mosquitto."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from casino_floor.store import FloorStore
from simulators.mosquitto import MOSQUITTO, MosquittoBroker
from simulators.postgres import PostgresServer, find_bin
from tests.floor.support import fresh_database


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    if find_bin() is None:
        pytest.skip("PostgreSQL is not installed: no initdb under /usr/lib/postgresql/*/bin, on PATH or in PG_BIN")
    with PostgresServer() as server:
        yield server


@pytest.fixture
async def database(postgres: PostgresServer, request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """The DSN of a database no other test uses (dropped after the test): empty, or for a test that also asks for
    `store`, a copy of the cluster's migrated template (the schema built once per session, not once per test)."""
    async with fresh_database(postgres, migrated="store" in request.fixturenames) as dsn:
        yield dsn


@pytest.fixture
async def store(database: str) -> AsyncIterator[FloorStore]:
    opened = await FloorStore.open(database)
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
def floor_broker(tmp_path: Path) -> Iterator[MosquittoBroker]:
    """A broker keeping sessions across a restart, with room for what the floor acknowledges after its commit."""
    if not Path(MOSQUITTO).exists():  # pragma: no cover - CI installs it
        pytest.skip(f"{MOSQUITTO} is not installed")
    directory = tmp_path / "floor-broker"
    directory.mkdir()
    with MosquittoBroker(directory=directory, persistence=True, max_inflight_messages=0) as running:
        yield running


@pytest.fixture
def prefix() -> str:
    return f"floor-{uuid.uuid4().hex[:10]}"
