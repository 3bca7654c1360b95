"""The Prometheus endpoint, scraped over HTTP while a demo table runs: the values follow the table.

A real table (simulated shoe on a pty, simulated readers behind pyusb) with a feed to a Mosquitto that
is not running yet: the scrape shows the devices online, the feed's backlog growing while the broker
is away, a shoe unplugged (offline, its alarm open), plugged back (a reconnect), then the broker
started (connected, backlog drained); journal commits are timed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from simulators.mosquitto import MOSQUITTO, MosquittoBroker, free_port
from table_runtime.config import load_config
from table_runtime.metrics import TableMetrics
from table_runtime.runtime.assembly import assemble
from tests.deploy.support import demo_table

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.skipif(not Path(MOSQUITTO).exists(), reason=f"{MOSQUITTO} is not installed")]

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def scrape(session: aiohttp.ClientSession, port: int) -> Samples:
    async with session.get(f"http://127.0.0.1:{port}/metrics") as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain; version=")
        text = await response.text()
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, tuple(sorted(labels.items()))))


async def scrape_until(session: aiohttp.ClientSession, port: int, what: str,
                       condition: Callable[[Samples], bool], seconds: float = 30.0) -> Samples:
    samples: Samples = {}
    try:
        async with asyncio.timeout(seconds):
            while True:
                try:
                    samples = await scrape(session, port)
                except aiohttp.ClientConnectorError:  # not listening yet
                    samples = {}
                if condition(samples):
                    return samples
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f"no {what} within {seconds}s: {samples}") from None


async def test_a_scrape_follows_devices_alarms_feed_and_journal(tmp_path: Path) -> None:
    broker = MosquittoBroker(port=free_port(), directory=tmp_path / "mosquitto")
    config = load_config(demo_table(tmp_path, mqtt_url=broker.url), environ={})
    async with assemble(config, with_display=False) as table:
        metrics = TableMetrics(table.app, clock_synchronised=lambda: False)
        assert table.simulated_shoe is not None
        async with metrics.serving("127.0.0.1", 0) as port, aiohttp.ClientSession() as session:
            running = asyncio.create_task(table.app.run())
            try:
                up = await scrape_until(session, port, "devices online", lambda s: (
                    value(s, "table_device_online", device="shoe") == 1
                    and value(s, "table_device_online", device="chips") == 1))
                head = value(up, "table_journal_seq")
                assert head is not None and head > 0
                assert value(up, "table_broker_connected") == 0
                assert value(up, "table_device_online", device="broker") == 0
                backlog = value(up, "table_feed_backlog_rows")
                assert backlog is not None and backlog > 0  # nothing acknowledged: the broker is not there
                assert backlog == head - (value(up, "table_feed_published_seq") or 0)
                commits = value(up, "table_journal_commit_seconds_count")
                assert commits is not None and commits > 0
                assert value(up, "table_reconnects_total", device="shoe") == 0
                assert value(up, "table_clock_synchronised") == 0

                await asyncio.to_thread(table.simulated_shoe.unplug)
                down = await scrape_until(session, port, "the shoe offline", lambda s: (
                    value(s, "table_device_online", device="shoe") == 0
                    and value(s, "table_alarms_open", kind="shoe_offline") == 1))
                assert (value(down, "table_feed_backlog_rows") or 0) > backlog  # the alarm's rows wait too
                assert (value(down, "table_journal_commit_seconds_count") or 0) > commits

                await asyncio.to_thread(table.simulated_shoe.replug)
                await scrape_until(session, port, "the shoe back", lambda s: (
                    value(s, "table_device_online", device="shoe") == 1
                    and value(s, "table_reconnects_total", device="shoe") == 1))

                await asyncio.to_thread(broker.start)
                await scrape_until(session, port, "the backlog published", lambda s: (
                    value(s, "table_broker_connected") == 1 and value(s, "table_feed_backlog_rows") == 0
                    and value(s, "table_device_online", device="broker") == 1), seconds=60)
            finally:
                table.app.stop("test")
                await asyncio.wait_for(running, 30)
                broker.close()


async def test_the_endpoint_says_what_a_table_without_a_feed_has(tmp_path: Path) -> None:
    config = load_config(demo_table(tmp_path), environ={})
    async with assemble(config, with_display=False) as table:
        metrics = TableMetrics(table.app)
        text = metrics.exposition().decode()
    assert "table_feed_backlog_rows" not in text and "table_broker_connected" not in text
    assert 'table_device_online{device="broker"}' not in text  # disabled: no feed configured
    assert "table_clock_synchronised" not in text  # unknown
    assert 'table_device_online{device="shoe"} 0.0' in text


async def test_run_serves_the_endpoint_configured_and_refuses_a_port_in_use(tmp_path: Path) -> None:
    from table_runtime.commands.run import serve
    from table_runtime.config import DisplayConfig, MetricsConfig
    from table_runtime.errors import ConfigError

    config = load_config(demo_table(tmp_path), environ={})
    port = free_port()
    config = config.replace(metrics=MetricsConfig(host="127.0.0.1", port=port))
    tables: list[object] = []
    server = asyncio.create_task(serve(config, clock_probe=lambda: None, on_assembled=tables.append))
    try:
        async with aiohttp.ClientSession() as session:
            samples = await scrape_until(session, port, "the endpoint of `run`",
                                         lambda s: value(s, "table_device_online", device="shoe") == 1)
        assert value(samples, "table_journal_seq")
        # A second table on the same port: refused at start, naming the key (exit 2, not restarted).
        other = config.replace(data_dir=tmp_path / "other", display=DisplayConfig(port=free_port()))
        with pytest.raises(ConfigError) as refused:
            await serve(other, clock_probe=lambda: None)
        assert refused.value.key == "metrics.port" and f"127.0.0.1:{port}" in refused.value.message
    finally:
        for table in tables:
            table.app.stop("test")  # type: ignore[attr-defined]
        assert await asyncio.wait_for(server, 30) == 0
