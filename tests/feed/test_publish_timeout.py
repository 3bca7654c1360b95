"""A broker that hangs (its process stopped, its connections open): the window's wait ends the session after
`publish_timeout`, the publisher reconnects once the broker answers again, and every entry is delivered."""

from __future__ import annotations

import asyncio

import pytest

from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.journal import Journal
from tests.polling import until

from .support import append_entries, settings

pytestmark = pytest.mark.timeout(60)


async def test_a_hung_broker_ends_the_session_after_the_publish_timeout_and_nothing_is_lost(
    broker: MosquittoBroker, journal: Journal, prefix: str
) -> None:
    # keepalive far beyond the timeout: only the unacknowledged window can end this session
    feed_settings = settings(broker.url, prefix, publish_timeout=0.5, keepalive=60)
    async with asyncio.TaskGroup() as tasks, FeedPublisher(feed_settings, journal) as feed:
        tasks.create_task(feed.run())
        await append_entries(journal, 0, 300, after_chunk=feed.notify)
        await until(lambda: feed.cursor == 300, "the first 300 entries acknowledged")
        first_connections = feed.connections
        broker.freeze()
        try:
            await append_entries(journal, 300, 500, chunk=50, after_chunk=feed.notify)
            await until(lambda: "no acknowledgement within 0.5 s" in (feed.last_error or ""),
                        "the session ended for want of an acknowledgement")
            assert feed.cursor < 500  # nothing counted as delivered while the broker was hung
        finally:
            broker.thaw()
        await until(lambda: feed.cursor == 500, "every entry acknowledged after the broker answered again", 20)
        assert feed.connections > first_connections
        feed.stop("test over")
