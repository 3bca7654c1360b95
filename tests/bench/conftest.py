"""Fixtures of the bench tests: one Mosquitto per test process, started only if a scenario needs the feed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from simulators.bench.runner import SharedBroker


@pytest.fixture(scope="session")
def shared_broker() -> Iterator[SharedBroker]:
    broker = SharedBroker()
    yield broker
    broker.close()
