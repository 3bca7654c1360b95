"""The feed never stops the table: a failure that is not the broker's is retried like a lost broker."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from table_runtime.feed.publisher import FeedPublisher
from table_runtime.journal import Journal

from .support import append_entries, settings

pytestmark = pytest.mark.timeout(60)


async def test_an_unusable_ca_file_is_retried_and_named_not_raised_out_of_run(
    journal: Journal, prefix: str, tmp_path: Path
) -> None:
    ca_file = tmp_path / "ca.pem"
    ca_file.write_text("not a certificate\n")  # e.g. replaced by a half-written file after the table started
    await append_entries(journal, 0, 3)
    feed_settings = settings("mqtts://127.0.0.1:1", prefix, ca_file=str(ca_file))
    async with FeedPublisher(feed_settings, journal) as feed:
        runner = asyncio.create_task(feed.run())
        async with asyncio.timeout(10):
            while not runner.done() and not (feed.last_error and "TLS" in feed.last_error):
                await asyncio.sleep(0.01)
        assert not runner.done(), runner.exception()
        assert feed.last_error is not None and "TLS" in feed.last_error and not feed.connected
        feed.stop("test over")
        async with asyncio.timeout(10):
            await runner  # returns, does not raise
    assert feed.cursor == 0
