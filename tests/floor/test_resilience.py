"""Nothing lost, nothing twice: the floor killed with SIGKILL, its broker restarted, a bridge cut mid-stream.

(The `store` fixture only brings the schema up before the floor process starts.)"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from casino_floor.store import FloorStore
from simulators.mosquitto import MosquittoBroker
from table_runtime.journal import Journal
from tests.floor.journals import play, play_on
from tests.floor.support import connected, floor_toml, stored, until_stored
from tests.floor.tcp_proxy import TcpProxy
from tests.floor.test_service import publishing

TABLES = ("R1", "R2", "R3", "R4")


def _size(log: Path) -> int:
    return log.stat().st_size if log.exists() else 0


def _read(log: Path) -> bytes:
    return log.read_bytes()


@contextlib.asynccontextmanager
async def floor_process(config: Path, log: Path) -> AsyncIterator[asyncio.subprocess.Process]:
    """`table-floor run` as its own process (killed with SIGKILL by the test, or at the end)."""
    start = _size(log)
    with log.open("ab") as out:
        process = await asyncio.create_subprocess_exec(sys.executable, "-m", "casino_floor", "run", "--config",
                                                       str(config), stdout=out, stderr=out)
    try:
        async with asyncio.timeout(30):  # subscribed: from now on its session holds whatever is published
            while b"following the tables on" not in _read(log)[start:]:
                await asyncio.sleep(0.05)
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def _until_some_rows(dsn: str, minimum: int) -> None:
    async with asyncio.timeout(60):
        while sum(count for count, _ in (await stored(dsn)).values()) < minimum:
            await asyncio.sleep(0.05)


async def _check_once_and_no_alarm(dsn: str, journals: dict[str, Journal]) -> None:
    expected = {table: journal.last_seq for table, journal in journals.items()}
    held = await until_stored(dsn, expected, seconds=90)
    assert held == {table: (seq, seq) for table, seq in expected.items()}  # every row, none twice
    async with connected(dsn) as connection:
        alarms = await connection.fetch("SELECT kind, message FROM floor_alarms WHERE cleared_at IS NULL")
    assert [dict(alarm) for alarm in alarms] == []


@pytest.mark.slow
async def test_a_floor_killed_and_its_broker_restarted_mid_stream_lose_nothing(
        tmp_path: Path, floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    config = tmp_path / "floor.toml"
    config.write_text(floor_toml(database, [floor_broker.url], prefix), encoding="utf-8")
    journals = {table: play(tmp_path / f"{table}.db", table, 2, seed=index) for index, table in enumerate(TABLES)}
    try:
        async with contextlib.AsyncExitStack() as stack:
            first = await stack.enter_async_context(floor_process(config, tmp_path / "floor.log"))
            await stack.enter_async_context(publishing(floor_broker.url, prefix, journals))
            playing = asyncio.gather(*(asyncio.to_thread(play_on, journal, table, 25, seed=3)
                                       for table, journal in journals.items()))
            try:
                await _until_some_rows(database, 500)
                first.send_signal(signal.SIGKILL)
                await first.wait()
                await stack.enter_async_context(floor_process(config, tmp_path / "floor.log"))
                await _until_some_rows(database, 1500)
                floor_broker.stop()
                await asyncio.sleep(0.3)
                floor_broker.start()
            finally:
                await playing
            await _check_once_and_no_alarm(database, journals)
    finally:
        for journal in journals.values():
            journal.close()


@pytest.mark.slow
async def test_a_pit_broker_bridged_to_the_floor_broker_loses_nothing_when_the_bridge_is_cut(
        tmp_path: Path, floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    proxy = TcpProxy(floor_broker.port)
    await proxy.start()
    bridge = (f"connection pit-to-floor-{prefix}", f"address 127.0.0.1:{proxy.port}", f"topic {prefix}/# out 1",
              f"topic {prefix}/tables/+/replay/request in 1", "cleansession false", f"clientid bridge-{prefix}",
              "restart_timeout 1", "keepalive_interval 5", "try_private true")
    pit_directory = tmp_path / "pit-broker"
    pit_directory.mkdir()
    config = tmp_path / "floor.toml"
    config.write_text(floor_toml(database, [floor_broker.url], prefix), encoding="utf-8")
    journals = {table: play(tmp_path / f"{table}.db", table, 2, seed=index) for index, table in enumerate(TABLES)}
    try:
        with MosquittoBroker(directory=pit_directory, max_inflight_messages=1000, extra_config=bridge) as pit:
            async with floor_process(config, tmp_path / "floor.log"), publishing(pit.url, prefix, journals):
                playing = asyncio.gather(*(asyncio.to_thread(play_on, journal, table, 25, seed=4)
                                           for table, journal in journals.items()))
                try:
                    await _until_some_rows(database, 500)
                    await proxy.cut()
                    cut_at = sum(count for count, _ in (await stored(database)).values())
                    await asyncio.sleep(1.0)
                    await proxy.start()
                finally:
                    await playing
                await _check_once_and_no_alarm(database, journals)
        assert proxy.connections >= 2 and cut_at < sum(journal.last_seq for journal in journals.values())
    finally:
        await proxy.cut()
        for journal in journals.values():
            journal.close()
