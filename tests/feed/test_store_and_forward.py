"""Store and forward: a 10,000-event stream survives a broker restart and a killed publisher."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.consumer import FeedConsumer, Received
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import parse_broker_url
from table_runtime.journal import Journal
from tests.polling import until

from .support import Heard, append_entries, listen, settings

pytestmark = pytest.mark.timeout(120)

TOTAL = 10_000
ROOT = Path(__file__).resolve().parents[2]


class Collector:
    """Runs a consumer; keeps the seqs it accepted (duplicates already dropped) and the gaps it saw."""

    def __init__(self, consumer: FeedConsumer, until: int) -> None:
        self.consumer = consumer
        self.until = until
        self.seqs: list[int] = []
        self.gaps: list[tuple[int, int]] = []

    async def run(self) -> None:
        stream = self.consumer.messages()
        try:
            async for received in stream:
                self.take(received)
                if received.message["seq"] >= self.until:
                    return
        finally:
            await stream.aclose()

    def take(self, received: Received) -> None:
        self.seqs.append(received.message["seq"])
        if received.observation.missing is not None:
            self.gaps.append(received.observation.missing)

    async def wait_for(self, count: int, timeout: float) -> None:
        async with asyncio.timeout(timeout):
            while len(self.seqs) < count:
                await asyncio.sleep(0.01)


def consumer_for(broker: MosquittoBroker, prefix: str, **options: object) -> FeedConsumer:
    address, _ = parse_broker_url(broker.url)
    return FeedConsumer(address, prefix=prefix, table_id="T1", backoff_initial=0.02, backoff_max=0.2, **options)  # type: ignore[arg-type]


@pytest.mark.slow
async def test_broker_restarted_mid_stream_every_event_arrives_in_order(
    persistent_broker: MosquittoBroker, journal: Journal, prefix: str
) -> None:
    broker = persistent_broker
    # The surveillance consumer keeps a persistent session: the broker queues for it while it is away.
    collector = Collector(consumer_for(broker, prefix, client_id=f"{prefix}-surveillance", persistent=True), TOTAL)
    async with FeedPublisher(settings(broker.url, prefix, batch_size=250), journal) as feed:
        async with asyncio.TaskGroup() as tasks:
            consuming = tasks.create_task(collector.run())
            async with asyncio.timeout(10):
                await collector.consumer.subscribed.wait()
            runner = tasks.create_task(feed.run())

            async def stream() -> None:
                # Paced so the table is still journaling when the broker goes down: the publisher
                # cannot have sent what is not journaled yet, so it must reconnect to finish.
                for first in range(0, TOTAL, 100):
                    await append_entries(journal, first, first + 100, after_chunk=feed.notify)
                    await asyncio.sleep(0.03)

            streaming = tasks.create_task(stream())
            await collector.wait_for(3000, timeout=30)
            await asyncio.to_thread(broker.stop)
            assert len(collector.seqs) < TOTAL, "the stream ended before the outage: nothing was tested"
            at_outage = journal.last_seq
            # The outage lasts until the consumer has lost the broker and the table has journaled on meanwhile.
            await until(lambda: not collector.consumer.subscribed.is_set()
                        and (journal.last_seq > at_outage or streaming.done()),
                        "the consumer lost the stopped broker while the table journaled on")
            await asyncio.to_thread(broker.start)
            async with asyncio.timeout(60):
                await consuming
                await streaming
                await feed.wait_published(TOTAL)
            feed.stop("test over")
            await runner

    assert collector.seqs == list(range(1, TOTAL + 1))
    assert collector.gaps == []
    assert feed.connections >= 2 and collector.consumer.connections >= 2


async def test_broker_restart_without_persistence_resends_from_the_journal(
    broker: MosquittoBroker, journal: Journal, prefix: str
) -> None:
    """A broker that forgets everything: the journal alone makes up for it.

    A non-persistent consumer only gets what is published after it resubscribed,
    so the publisher's (injected) backoff waits for the consumer to be back.
    """
    collector = Collector(consumer_for(broker, prefix), TOTAL)

    async def sleep(delay: float) -> None:
        await asyncio.sleep(min(delay, 0.05))
        while collector.consumer.connections < 2:  # one outage: wait for the consumer's second session
            await asyncio.sleep(0.01)

    # What the broker acknowledged but had not yet passed on dies with it: the resend window must cover how far
    # the consumer lagged at the outage. The default (1,000 rows) is a deployment setting; under CI load this
    # consumer lagged by more (1,391 rows once), so the window here is the whole stream.
    async with FeedPublisher(settings(broker.url, prefix, resend_on_connect=TOTAL), journal, sleep=sleep) as feed:
        async with asyncio.TaskGroup() as tasks:
            consuming = tasks.create_task(collector.run())
            async with asyncio.timeout(10):
                await collector.consumer.subscribed.wait()
            runner = tasks.create_task(feed.run())
            await append_entries(journal, 0, TOTAL // 2, after_chunk=feed.notify)
            await collector.wait_for(2000, timeout=30)
            await asyncio.to_thread(broker.stop)
            await append_entries(journal, TOTAL // 2, TOTAL, after_chunk=feed.notify)
            await asyncio.to_thread(broker.start)
            async with asyncio.timeout(60):
                await consuming
                await feed.wait_published(TOTAL)
            feed.stop("test over")
            await runner

    assert collector.seqs == list(range(1, TOTAL + 1))
    assert collector.gaps == []
    assert feed.connections >= 2


@pytest.fixture
def publisher_processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    processes: list[subprocess.Popen[bytes]] = []
    yield processes
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def start_publisher(broker: MosquittoBroker, journal: Journal, prefix: str) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, "-m", "table_runtime", "feed", "publish", "--journal", str(journal.path),
        "--url", broker.url, "--prefix", prefix, "--table-id", "T1", "--poll-interval", "0.05",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


async def wait_status(heard: Heard, status: str, count: int) -> dict[str, object]:
    async with asyncio.timeout(20):
        while True:
            matching = [message for message in heard.on("status") if message["status"] == status]
            if len(matching) >= count:
                return matching[count - 1]
            await asyncio.sleep(0.01)


async def test_publisher_killed_then_restarted_with_a_backlog_loses_nothing(
    broker: MosquittoBroker, journal: Journal, prefix: str, publisher_processes: list[subprocess.Popen[bytes]]
) -> None:
    collector = Collector(consumer_for(broker, prefix), TOTAL)
    statuses, ready = Heard(), asyncio.Event()
    async with asyncio.TaskGroup() as tasks:
        consuming = tasks.create_task(collector.run())
        watching = tasks.create_task(listen(broker.port, f"{prefix}/tables/T1/status", statuses, ready))
        async with asyncio.timeout(10):
            await collector.consumer.subscribed.wait()
            await ready.wait()
        await append_entries(journal, 0, 4000)

        publisher_processes.append(start_publisher(broker, journal, prefix))
        await wait_status(statuses, "online", 1)
        await collector.wait_for(1000, timeout=30)
        publisher_processes[0].send_signal(signal.SIGKILL)
        await asyncio.to_thread(publisher_processes[0].wait, 10)
        # The broker publishes the will: retained offline, connection lost.
        will = await wait_status(statuses, "offline", 1)
        assert will["reason"] == "connection lost"

        await append_entries(journal, 4000, TOTAL)  # the backlog grows while no publisher runs
        publisher_processes.append(start_publisher(broker, journal, prefix))
        async with asyncio.timeout(60):
            await consuming
        publisher_processes[1].send_signal(signal.SIGTERM)
        returncode = await asyncio.to_thread(publisher_processes[1].wait, 20)
        assert returncode == 0, publisher_processes[1].stderr.read() if publisher_processes[1].stderr else ""
        final = await wait_status(statuses, "offline", 2)
        assert (final["reason"], final["seq"]) == ("stopped by SIGTERM", TOTAL)
        watching.cancel()

    assert collector.seqs == list(range(1, TOTAL + 1))
    assert collector.gaps == []
    assert journal.get_meta("feed.mqtt.cursor") == str(TOTAL)
