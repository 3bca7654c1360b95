"""The reference consumer on the topics that are not ``events``: their seqs are not a gapless count."""

from __future__ import annotations

import asyncio

import pytest

from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.consumer import FeedConsumer, Received
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import parse_broker_url
from table_runtime.journal import Journal

from .support import append_entries, settings

pytestmark = pytest.mark.timeout(60)


async def consume(consumer: FeedConsumer, into: list[Received]) -> None:
    async for received in consumer.messages():
        into.append(received)


async def test_status_offline_after_online_at_the_same_seq_is_not_dropped_as_a_repeat(
    broker: MosquittoBroker, journal: Journal, prefix: str
) -> None:
    await append_entries(journal, 0, 3)
    consumer = FeedConsumer(parse_broker_url(broker.url)[0], prefix=prefix, table_id="T1", topic="status")
    heard: list[Received] = []
    async with asyncio.TaskGroup() as tasks:
        listener = tasks.create_task(consume(consumer, heard))
        async with asyncio.timeout(10):
            await consumer.subscribed.wait()
        async with FeedPublisher(settings(broker.url, prefix), journal) as feed:
            runner = tasks.create_task(feed.run())
            async with asyncio.timeout(10):
                await feed.wait_published(3)
            feed.stop("closing time")  # nothing journaled since: offline carries the seq online had
            async with asyncio.timeout(10):
                await runner
        async with asyncio.timeout(10):
            while len(heard) < 2:
                await asyncio.sleep(0.02)
        listener.cancel()
    assert [(r.message["status"], r.message["seq"]) for r in heard] == [("online", 3), ("offline", 3)]
    assert consumer.tracker.duplicates == 0


async def test_alarms_topic_seqs_jump_between_alarms_without_a_gap_being_flagged(
    broker: MosquittoBroker, journal: Journal, prefix: str
) -> None:
    await append_entries(journal, 0, 200)  # alarms at seq 42 and 139 (see support.entry_for), cleared at 43 and 140
    consumer = FeedConsumer(parse_broker_url(broker.url)[0], prefix=prefix, table_id="T1", topic="alarms")
    heard: list[Received] = []
    async with asyncio.TaskGroup() as tasks:
        listener = tasks.create_task(consume(consumer, heard))
        async with asyncio.timeout(10):
            await consumer.subscribed.wait()
        async with FeedPublisher(settings(broker.url, prefix), journal) as feed:
            runner = tasks.create_task(feed.run())
            async with asyncio.timeout(10):
                await feed.wait_published(200)
            feed.stop("test over")
            async with asyncio.timeout(10):
                await runner
        async with asyncio.timeout(10):
            while len(heard) < 4:
                await asyncio.sleep(0.02)
        listener.cancel()
    assert [r.message["seq"] for r in heard] == [42, 43, 139, 140]
    assert [r.observation.verdict for r in heard] == ["new"] * 4
    assert consumer.tracker.gaps == 0
