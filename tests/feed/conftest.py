"""Fixtures of the feed tests: a real Mosquitto per test, a journal, a unique topic prefix."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from simulators.mosquitto import MOSQUITTO, MosquittoBroker
from table_runtime.journal import Journal

if not Path(MOSQUITTO).exists():  # pragma: no cover - CI installs it
    pytest.skip(f"{MOSQUITTO} is not installed", allow_module_level=True)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[MosquittoBroker]:
    """A broker that forgets everything when restarted (persistence false)."""
    directory = tmp_path / "broker-plain"
    directory.mkdir()
    with MosquittoBroker(directory=directory) as running:
        yield running


@pytest.fixture
def persistent_broker(tmp_path: Path) -> Iterator[MosquittoBroker]:
    """A broker that keeps sessions and queued messages across a clean restart."""
    directory = tmp_path / "broker-persistent"
    directory.mkdir()
    with MosquittoBroker(directory=directory, persistence=True) as running:
        yield running


@pytest.fixture
def prefix() -> str:
    """A topic prefix no other test uses."""
    return f"test-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    opened = Journal.open(tmp_path / "journal.db")
    try:
        yield opened
    finally:
        opened.close()
