"""The journal's sealed checkpoints on the feed, against a real Mosquitto: each sent just before the head that
covers it, only the newest at a connect, as the journal sealed it and valid against the published schema (the
floor's round record starts from them: tests/floor/test_round_terms.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.journal import Journal, journal_path

from .support import Heard, append_entries, listen, settings, validators_by_topic

pytestmark = pytest.mark.timeout(60)


async def heard_until(heard: Heard, seq: int) -> None:
    async with asyncio.timeout(20):
        while not any(payload["seq"] == seq for payload in heard.on("checkpoints")):
            await asyncio.sleep(0.02)


async def test_the_newest_checkpoint_at_a_connect_then_each_new_one_before_its_head(
        tmp_path: Path, broker: MosquittoBroker, prefix: str) -> None:
    heard, ready = Heard(), asyncio.Event()
    listener = asyncio.create_task(listen(broker.port, f"{prefix}/tables/T1/#", heard, ready))
    async with asyncio.timeout(10):
        await ready.wait()
    with Journal.open(journal_path(tmp_path)) as journal:
        await append_entries(journal, 0, 300)
        journal.write_checkpoint(100, {"at": 100})
        journal.write_checkpoint(200, {"at": 200})
        async with FeedPublisher(settings(broker.url, prefix, head_interval=0.2), journal) as feed:
            runner = asyncio.create_task(feed.run())
            async with asyncio.timeout(20):
                await feed.wait_published(300)
            await heard_until(heard, 200)
            await append_entries(journal, 300, 400)
            journal.write_checkpoint(350, {"at": 350})
            async with asyncio.timeout(20):
                await feed.wait_published(400)
            await heard_until(heard, 350)
            feed.stop("table stopped")
            async with asyncio.timeout(10):
                await runner
        sealed = {checkpoint.seq: checkpoint for checkpoint in journal.checkpoints_until(400)}
    listener.cancel()
    checkpoints = heard.on("checkpoints")
    assert [payload["seq"] for payload in checkpoints] == [200, 350]  # 100: older than the newest at the connect
    validator = validators_by_topic()["checkpoints"]
    for payload in checkpoints:
        validator.validate(payload)
        checkpoint = sealed[payload["seq"]]
        assert (payload["chain_hash"], payload["state"], payload["seal"], payload["journal"]) == (
            checkpoint.chain_hash, checkpoint.state_text, checkpoint.seal, journal.journal_id)
    order = [(topic.rsplit("/", 1)[1], payload["seq"]) for topic, payload, _ in heard.messages
             if topic.endswith(("/checkpoints", "/head"))]
    for index, (name, seq) in enumerate(order):
        if name == "checkpoints":  # the next head covers it
            head = next(later for later in order[index + 1:] if later[0] == "head")
            assert head[1] >= seq, order
