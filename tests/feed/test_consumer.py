"""The reference consumer (table_runtime/feed/consumer.py) on the topics that are not ``events``: their seqs are
not a gapless count."""

from __future__ import annotations

import asyncio

import pytest

from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.consumer import FeedConsumer, Received
from table_runtime.feed.messages import TopicName
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import parse_broker_url
from table_runtime.journal import Journal

from .support import append_entries, settings

pytestmark = pytest.mark.timeout(60)


async def hear(broker: MosquittoBroker, journal: Journal, prefix: str, topic: TopicName, *, rows: int,
               messages: int, stop: str) -> tuple[FeedConsumer, list[Received]]:
    """Publish `rows` journal rows, stop the publisher with `stop`; what the consumer of `topic` heard."""
    await append_entries(journal, 0, rows)
    consumer = FeedConsumer(parse_broker_url(broker.url)[0], prefix=prefix, table_id="T1", topic=topic)
    heard: list[Received] = []

    async def consume() -> None:
        async for received in consumer.messages():
            heard.append(received)

    async with asyncio.TaskGroup() as tasks:
        listener = tasks.create_task(consume())
        async with asyncio.timeout(10):
            await consumer.subscribed.wait()
        async with FeedPublisher(settings(broker.url, prefix), journal) as feed:
            runner = tasks.create_task(feed.run())
            async with asyncio.timeout(10):
                await feed.wait_published(rows)
            feed.stop(stop)
            async with asyncio.timeout(10):
                await runner
        async with asyncio.timeout(10):
            while len(heard) < messages:
                await asyncio.sleep(0.02)
        listener.cancel()
    return consumer, heard


async def test_status_offline_after_online_at_the_same_seq_is_not_dropped_as_a_repeat(
    broker: MosquittoBroker, journal: Journal, prefix: str
) -> None:
    # Nothing journaled after the 3 rows: offline carries the seq online had.
    consumer, heard = await hear(broker, journal, prefix, "status", rows=3, messages=2, stop="closing time")
    assert [(r.message["status"], r.message["seq"]) for r in heard] == [("online", 3), ("offline", 3)]
    assert consumer.tracker.duplicates == 0


async def test_alarms_topic_seqs_jump_between_alarms_without_a_gap_being_flagged(
    broker: MosquittoBroker, journal: Journal, prefix: str
) -> None:
    # Alarms at seq 42 and 139 (see support.entry_for), cleared at 43 and 140.
    consumer, heard = await hear(broker, journal, prefix, "alarms", rows=200, messages=4, stop="test over")
    assert [r.message["seq"] for r in heard] == [42, 43, 139, 140]
    assert [r.observation.verdict for r in heard] == ["new"] * 4
    assert consumer.tracker.gaps == 0
