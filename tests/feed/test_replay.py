"""The table's side of a replay, against a real Mosquitto: a signed request is answered from the journal on its
reply_to, a wrong MAC gets nothing, a range the table cannot serve gets ReplayRefused."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from simulators.mosquitto import MosquittoBroker
from table_runtime.errors import ConfigError
from table_runtime.feed.messages import event_payload
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.replay_messages import MAX_ROWS, build_request, request_mac, request_topic
from table_runtime.feed.settings import FeedSettings, Secret
from table_runtime.journal import Journal

from .support import Heard, append_entries, listen, settings, validators_by_message

pytestmark = pytest.mark.timeout(90)

SECRET = "the pit's replay secret, 32 bytes"


@asynccontextmanager
async def floor(broker: MosquittoBroker, journal: Journal, prefix: str) -> AsyncIterator[tuple[Heard, FeedPublisher]]:
    """A table publishing `journal` with replay on, and a floor listening on its reply topic."""
    heard, ready = Heard(), asyncio.Event()
    listener = asyncio.create_task(listen(broker.port, f"{prefix}/floor/floor1/replay", heard, ready))
    async with asyncio.timeout(5):
        await ready.wait()
    feed_settings = dataclasses.replace(settings(broker.url, prefix), replay_secret=Secret(SECRET))
    async with FeedPublisher(feed_settings, journal) as feed:
        runner = asyncio.create_task(feed.run())
        async with asyncio.timeout(20):
            await feed.wait_published(journal.last_seq)
        try:
            yield heard, feed
        finally:
            feed.stop("test over")
            async with asyncio.timeout(10):
                await runner
            listener.cancel()


async def ask(broker: MosquittoBroker, prefix: str, request: dict[str, Any]) -> None:
    async with aiomqtt.Client("127.0.0.1", broker.port) as client:
        await client.publish(request_topic(prefix, "T1"), json.dumps(request).encode(), qos=1)


def signed(prefix: str, journal: Journal, first: int, last: int, request_id: str) -> dict[str, Any]:
    return build_request(SECRET.encode(), prefix=prefix, journal=journal.journal_id, from_seq=first, to_seq=last,
                         request_id=request_id, floor_id="floor1")


async def answers(heard: Heard, count: int) -> list[dict[str, Any]]:
    async with asyncio.timeout(20):
        while sum(payload.get("type") in ("ReplayDone", "ReplayRefused") for _, payload, _ in heard.messages) < count:
            await asyncio.sleep(0.02)
    return [payload for _, payload, _ in heard.messages]


async def test_a_signed_request_gets_its_rows_as_on_events_then_done(
        broker: MosquittoBroker, journal: Journal, prefix: str) -> None:
    await append_entries(journal, 0, 300)
    async with floor(broker, journal, prefix) as (heard, feed):
        await ask(broker, prefix, signed(prefix, journal, 91, 240, "r-1"))
        received = await answers(heard, 1)
    *rows, done = received
    assert rows == [event_payload("T1", journal.journal_id, entry) for entry in journal.entries(90, 150)]
    assert done == {"type": "ReplayDone", "request_id": "r-1", "journal": journal.journal_id, "from_seq": 91,
                    "to_seq": 240}
    validators = validators_by_message()
    for row in rows:
        validators["JournalEntry"].validate(row)
    validators["ReplayDone"].validate(done)
    assert feed.replay is not None and feed.replay.served == 1


async def test_a_wrong_mac_gets_nothing_and_a_range_past_the_limit_or_the_end_is_refused(
        broker: MosquittoBroker, journal: Journal, prefix: str) -> None:
    await append_entries(journal, 0, 40)
    async with floor(broker, journal, prefix) as (heard, feed):
        forged = signed(prefix, journal, 1, 40, "forged")
        forged["to_seq"] = 39  # changed after signing
        await ask(broker, prefix, forged)
        other_key = build_request(b"someone else's secret key", prefix=prefix, journal=journal.journal_id,
                                  from_seq=1, to_seq=2, request_id="other-key", floor_id="floor1")
        await ask(broker, prefix, other_key)
        await ask(broker, prefix, signed(prefix, journal, 1, MAX_ROWS + 1, "too-many"))
        await ask(broker, prefix, signed(prefix, journal, 30, 41, "past-the-end"))
        await ask(broker, prefix, signed(prefix, journal, 5, 6, "fine"))
        received = await answers(heard, 3)
    answered = [payload for payload in received if "kind" not in payload]  # not a row
    assert answered == [
        {"type": "ReplayRefused", "request_id": "too-many",
         "reason": f"{MAX_ROWS + 1} rows asked, at most {MAX_ROWS} per request"},
        {"type": "ReplayRefused", "request_id": "past-the-end",
         "reason": "to_seq 41 is past the journal's last row 40"},
        {"type": "ReplayDone", "request_id": "fine", "journal": journal.journal_id, "from_seq": 5, "to_seq": 6},
    ]  # fmt: skip
    assert [payload["seq"] for payload in received if "kind" in payload] == [5, 6]  # the only rows sent
    assert feed.replay is not None and (feed.replay.ignored, feed.replay.refused) == (2, 2)
    for payload in answered[:2]:
        validators_by_message()["ReplayRefused"].validate(payload)


async def test_requests_over_the_rate_limit_or_repeated_are_refused(
        broker: MosquittoBroker, journal: Journal, prefix: str) -> None:
    await append_entries(journal, 0, 10)
    async with floor(broker, journal, prefix) as (heard, feed):
        assert feed.replay is not None
        for index in range(10):  # the limit: 10 a minute
            await ask(broker, prefix, signed(prefix, journal, 1, 1, f"r-{index}"))
        await answers(heard, 10)
        await ask(broker, prefix, signed(prefix, journal, 1, 1, "r-10"))
        refused = [payload for payload in await answers(heard, 11) if payload["type"] == "ReplayRefused"]
    assert refused == [{"type": "ReplayRefused", "request_id": "r-10",
                        "reason": "rate limit: at most 10 requests a minute"}]


async def test_another_journal_is_refused_and_a_repeated_request_id_too(
        broker: MosquittoBroker, journal: Journal, prefix: str, tmp_path: Path) -> None:
    await append_entries(journal, 0, 10)
    async with floor(broker, journal, prefix) as (heard, _):
        await ask(broker, prefix, signed(prefix, journal, 1, 2, "once"))
        await answers(heard, 1)
        await ask(broker, prefix, signed(prefix, journal, 1, 2, "once"))
        elsewhere = signed(prefix, journal, 1, 2, "elsewhere")
        elsewhere["journal"] = "f" * 32
        elsewhere["mac"] = request_mac(SECRET.encode(), elsewhere)
        await ask(broker, prefix, elsewhere)
        refused = [payload for payload in await answers(heard, 3) if payload["type"] == "ReplayRefused"]
    assert refused == [
        {"type": "ReplayRefused", "request_id": "once", "reason": "request_id once was already answered"},
        {"type": "ReplayRefused", "request_id": "elsewhere",
         "reason": f"journal {'f' * 32} is not this table's journal ({journal.journal_id})"},
    ]  # fmt: skip


def test_the_secret_comes_from_the_variable_the_configuration_names() -> None:
    mapping = {"url": "mqtt://h", "table_id": "T1", "replay_secret_env": "PIT_REPLAY"}
    found = FeedSettings.from_mapping(mapping, environ={"PIT_REPLAY": SECRET})
    assert found.replay_secret == Secret(SECRET) and SECRET not in repr(found)
    for environ, message in (({}, r"PIT_REPLAY \(the replay secret\) is not set"),
                             ({"PIT_REPLAY": "short"}, "at least 16 bytes")):
        with pytest.raises(ConfigError, match=message) as error:
            FeedSettings.from_mapping(mapping, environ=environ)
        assert error.value.key == "feed.replay_secret_env"
