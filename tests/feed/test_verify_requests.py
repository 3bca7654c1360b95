"""The floor asks a table to authenticate its program, against a real Mosquitto (feed/verify_requests.py): a signed
request with a seed is checked, journaled as a `verification` row (published on ``events``) and answered with
VerifyDone carrying the HMAC under the seed; a wrong MAC gets nothing; a request id answered already is refused."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import Secret
from table_runtime.feed.verify_requests import VerifyResponder, build_request, request_topic
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal
from table_runtime.release.manifest import Manifest, manifest_dir, seeded_digest
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.program_watch import ProgramWatch
from tests.release.installation import signed_installation

from .support import Heard, listen, settings, validators_by_message

pytestmark = pytest.mark.timeout(90)

SECRET = "the pit's replay secret, 32 bytes"


async def answers(heard: Heard, count: int) -> list[dict[str, Any]]:
    async with asyncio.timeout(30):
        while len(heard.messages) < count:
            await asyncio.sleep(0.02)
    return [payload for _, payload, _ in heard.messages]


async def test_a_signed_request_with_a_seed_is_checked_journaled_and_answered(
        broker: MosquittoBroker, journal: Journal, prefix: str, tmp_path: Path) -> None:
    installed, key = signed_installation(tmp_path)
    ticks = itertools.count()
    controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                                 clock=lambda: 1_700_000_000.0 + next(ticks))
    watch = ProgramWatch(controller, public_key=key, prefix=installed)
    heard, ready = Heard(), asyncio.Event()
    listener = asyncio.create_task(listen(broker.port, f"{prefix}/floor/floor1/verify", heard, ready))
    async with asyncio.timeout(5):
        await ready.wait()
    feed_settings = dataclasses.replace(settings(broker.url, prefix), replay_secret=Secret(SECRET))
    async with FeedPublisher(feed_settings, journal) as feed:
        feed.verification = VerifyResponder(SECRET.encode(), feed.topics, watch.verify)
        runner = asyncio.create_task(feed.run())
        async with asyncio.timeout(20):
            await feed.wait_published(journal.last_seq)
        seed = bytes.fromhex("5eed0001")
        request = build_request(SECRET.encode(), prefix=prefix, request_id="v-1", floor_id="floor1", seed=seed)
        forged = {**build_request(b"not the floor's secret, 32 bytes", prefix=prefix, request_id="v-0",
                                  floor_id="floor1")}
        async with aiomqtt.Client("127.0.0.1", broker.port) as client:
            await client.publish(request_topic(prefix, "T1"), json.dumps(forged).encode(), qos=1)
            await client.publish(request_topic(prefix, "T1"), json.dumps(request).encode(), qos=1)
            [done] = await answers(heard, 1)
            await client.publish(request_topic(prefix, "T1"), json.dumps(request).encode(), qos=1)  # again
            _, refused = await answers(heard, 2)
        async with asyncio.timeout(20):
            await feed.wait_published(journal.last_seq)
        feed.stop("test over")
        async with asyncio.timeout(10):
            await runner
    listener.cancel()

    manifest = Manifest.parse((manifest_dir(installed) / "manifest.sha256").read_bytes())
    assert done["type"] == "VerifyDone" and done["request_id"] == "v-1" and done["intact"] is True
    assert done["hmac_sha256"] == seeded_digest(installed, manifest, seed)
    assert done["manifest_sha256"] == manifest.digest
    [row] = [entry for entry in journal.entries() if entry.kind == "verification"]  # the forged one made none
    assert done["seq"] == row.seq and row.body["by"] == "floor" and row.body["request_id"] == "v-1"
    assert refused == {"type": "VerifyRefused", "request_id": "v-1", "reason": "request_id v-1 was already answered"}
    validators = validators_by_message()
    validators["VerifyRequest"].validate(request)
    validators["VerifyDone"].validate(done)
    validators["VerifyRefused"].validate(refused)
