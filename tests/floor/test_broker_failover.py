"""A broker that can fail: the tables publish to a preferred broker with a fallback, the floor follows both.

Two real Mosquittos; the preferred one is killed with SIGKILL under the playing tables (nothing it held is saved),
the tables go on through the fallback at once, then the preferred is started again and the tables go back to it.
At the floor (`table-floor run`, its own process, on both brokers): every row of every journal once, no alarm.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from casino_floor.store import FloorStore
from simulators.mosquitto import MOSQUITTO, MosquittoBroker
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import FeedSettings
from table_runtime.journal import Journal
from tests.feed.support import settings
from tests.floor.journals import play, play_on
from tests.floor.support import floor_toml, stored
from tests.floor.test_resilience import _check_once_and_no_alarm, _until_some_rows, floor_process

TABLES = ("F1", "F2", "F3")


@pytest.fixture
def brokers(tmp_path: Path) -> Iterator[tuple[MosquittoBroker, MosquittoBroker]]:
    if not Path(MOSQUITTO).exists():  # pragma: no cover - CI installs it
        pytest.skip(f"{MOSQUITTO} is not installed")
    with contextlib.ExitStack() as stack:
        pair = []
        for name in ("preferred", "fallback"):
            (tmp_path / name).mkdir()
            pair.append(stack.enter_context(MosquittoBroker(directory=tmp_path / name, persistence=True,
                                                            max_inflight_messages=0)))
        yield pair[0], pair[1]


def failover_settings(preferred: MosquittoBroker, fallback: MosquittoBroker, prefix: str, table_id: str
                      ) -> FeedSettings:
    return settings(preferred.url, prefix, table_id, fallback_urls=[fallback.url], failback_interval=0.3)


@contextlib.asynccontextmanager
async def publishers(preferred: MosquittoBroker, fallback: MosquittoBroker, prefix: str,
                     journals: dict[str, Journal]) -> AsyncIterator[dict[str, FeedPublisher]]:
    async with contextlib.AsyncExitStack() as stack, asyncio.TaskGroup() as tasks:
        feeds = {}
        for table_id, journal in journals.items():
            feeds[table_id] = await stack.enter_async_context(
                FeedPublisher(failover_settings(preferred, fallback, prefix, table_id), journal))
            tasks.create_task(feeds[table_id].run())
        yield feeds
        await stack.aclose()


async def until_on(feeds: dict[str, FeedPublisher], port: int) -> None:
    async with asyncio.timeout(30):
        while not all(feed.connected and feed.broker.port == port for feed in feeds.values()):
            await asyncio.sleep(0.05)


@pytest.mark.slow
async def test_the_preferred_broker_killed_under_playing_tables_loses_and_doubles_nothing(
        tmp_path: Path, brokers: tuple[MosquittoBroker, MosquittoBroker], store: FloorStore, database: str,
        prefix: str) -> None:
    preferred, fallback = brokers
    config = tmp_path / "floor.toml"
    config.write_text(floor_toml(database, [preferred.url, fallback.url], prefix), encoding="utf-8")
    journals = {table: play(tmp_path / f"{table}.db", table, 2, seed=index) for index, table in enumerate(TABLES)}
    try:
        async with floor_process(config, tmp_path / "floor.log"), \
                publishers(preferred, fallback, prefix, journals) as feeds:
            await until_on(feeds, preferred.port)
            playing = asyncio.gather(*(asyncio.to_thread(play_on, journal, table, 30, seed=7)
                                       for table, journal in journals.items()))
            try:
                await _until_some_rows(database, 400)
                preferred.kill()
                killed_at = sum(count for count, _ in (await stored(database)).values())
                await until_on(feeds, fallback.port)  # at once: no backoff while a broker is left to try
                await _until_some_rows(database, killed_at + 300)  # the rows go on through the fallback
                preferred.start()
                await until_on(feeds, preferred.port)  # and back once the preferred answers again
            finally:
                await playing
            await _check_once_and_no_alarm(database, journals)
        assert killed_at < sum(journal.last_seq for journal in journals.values())
        assert all(feed.connections >= 3 for feed in feeds.values())  # preferred, fallback, preferred again
    finally:
        for journal in journals.values():
            journal.close()


def test_fallback_urls_are_checked_with_their_key() -> None:
    from table_runtime.errors import ConfigError

    with pytest.raises(ConfigError) as raised:
        settings("mqtt://127.0.0.1:1883", "casino", "T1", fallback_urls=["http://127.0.0.1:1884"])
    assert raised.value.key == "feed.fallback_urls[0]"
    with pytest.raises(ConfigError) as raised:
        settings("mqtt://127.0.0.1:1883", "casino", "T1", fallback_urls=["mqtt://user@127.0.0.1:1884"])
    assert raised.value.key == "feed.fallback_urls[0]"
    both = settings("mqtt://127.0.0.1:1883", "casino", "T1", fallback_urls=["mqtt://127.0.0.1:1884"])
    assert [broker.port for broker in both.brokers] == [1883, 1884]
