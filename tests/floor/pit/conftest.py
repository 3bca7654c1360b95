"""Fixtures of the floor tests: a real Mosquitto per test, a topic prefix, the display tests' Chromium."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from simulators.mosquitto import MOSQUITTO, MosquittoBroker
from tests.display.conftest import browser, page

__all__ = ["broker", "browser", "page", "prefix"]

if not Path(MOSQUITTO).exists():  # pragma: no cover - CI installs it
    pytest.skip(f"{MOSQUITTO} is not installed", allow_module_level=True)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[MosquittoBroker]:
    directory = tmp_path / "broker"
    directory.mkdir()
    with MosquittoBroker(directory=directory) as running:
        yield running


@pytest.fixture
def prefix() -> str:
    """A topic prefix no other test uses."""
    return f"test-{uuid.uuid4().hex[:10]}"
