"""Helpers of the feed tests: journal filling, a collecting subscriber, the published schemas."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt
import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment
import yaml

from table_runtime.feed.settings import FeedSettings
from table_runtime.game import citations
from table_runtime.journal import Journal

DOCS = Path(__file__).resolve().parents[2] / "docs" / "feed"
JOURNAL = "5f0c1e2d3b4a59687766554433221100"  # a journal id for messages made up by hand


def settings(url: str, prefix: str, table_id: str = "T1", **overrides: Any) -> FeedSettings:
    """Settings that retry quickly (tests stop the broker on purpose)."""
    mapping: dict[str, Any] = {
        "url": url, "prefix": prefix, "table_id": table_id,
        "backoff_initial": 0.05, "backoff_max": 0.4, "poll_interval": 0.05, "publish_timeout": 5.0,
    }  # fmt: skip
    mapping.update(overrides)
    return FeedSettings.from_mapping(mapping, environ={})


def entry_for(index: int) -> tuple[str, dict[str, Any]]:
    """The `index`-th entry of a made-up but realistic journal: mostly events, some alarms and rounds."""
    if index % 97 == 41:
        return "alarm", {
            "id": index, "kind": "bank_must_stand", "box": None, "message": "the bank drew on 17",
            "rule": citations.BANK_STANDS, "amounts": {"expected_cents": 1000, "seen_cents": 1500},
        }  # fmt: skip
    if index % 97 == 42:
        return "alarm_cleared", {"id": index - 1}
    if index % 50 == 49:
        return "round", {
            "round": index // 50 + 1, "shoe_id": "S-1", "result": "settled", "alarms": [],
            "payouts": [{"box": 1, "hand": 0, "owner": "seat1", "kind": "original", "staked_cents": 1000,
                         "outcome": "win", "net_cents": 1000}],
        }  # fmt: skip
    if index % 2:
        return "input", {"type": "CardDrawn", "card": "AS", "index": index}
    return "event", {"type": "CardAssigned", "card": "AS", "to": "box1.hand0", "index": index}


async def append_entries(
    journal: Journal, start: int, stop: int, *, chunk: int = 500, after_chunk: Callable[[], None] | None = None
) -> None:
    """Append entries `start`..`stop - 1` (see `entry_for`) in durable chunks."""
    for first in range(start, stop, chunk):
        items = [entry_for(index) for index in range(first, min(stop, first + chunk))]
        await asyncio.to_thread(journal.append_many, items, ts=time.time())
        if after_chunk is not None:
            after_chunk()


@dataclass
class Heard:
    """Everything a raw subscriber received, in arrival order."""

    messages: list[tuple[str, dict[str, Any], bool]] = field(default_factory=list)  # topic, payload, retained

    def on(self, suffix: str) -> list[dict[str, Any]]:
        return [payload for topic, payload, _ in self.messages if topic.endswith("/" + suffix)]


async def listen(url_port: int, topic_filter: str, heard: Heard, ready: asyncio.Event, **client: Any) -> None:
    """Subscribe and record messages until cancelled."""
    async with aiomqtt.Client("127.0.0.1", url_port, **client) as subscriber:
        await subscriber.subscribe(topic_filter, qos=1)
        ready.set()
        async for message in subscriber.messages:
            assert isinstance(message.payload, bytes)
            heard.messages.append((str(message.topic), json.loads(message.payload), message.retain))


async def retained(port: int, topic: str, **client: Any) -> dict[str, Any]:
    """The retained message of `topic` as a new subscriber sees it."""
    async with aiomqtt.Client("127.0.0.1", port, **client) as subscriber:
        await subscriber.subscribe(topic, qos=1)
        async with asyncio.timeout(5):
            async for message in subscriber.messages:
                assert message.retain, f"{topic}: not a retained message"
                assert isinstance(message.payload, bytes)
                payload: dict[str, Any] = json.loads(message.payload)
                return payload
    raise AssertionError("unreachable")


def asyncapi() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load((DOCS / "asyncapi.yaml").read_text(encoding="utf-8"))
    return document


def resolve(document: Mapping[str, Any], reference: str) -> Any:
    assert reference.startswith("#/"), reference
    node: Any = document
    for part in reference[2:].split("/"):
        node = node[part]
    return node


TABLE_TOPIC = "{prefix}/tables/{tableId}/"


def validators_by_topic() -> dict[str, jsonschema.protocols.Validator]:
    """Topic name of a table (`events`, `status`...) → validator of its messages, found through the AsyncAPI
    document (the replay channels are `validators_by_message`'s)."""
    document = asyncapi()
    validators: dict[str, jsonschema.protocols.Validator] = {}
    for channel in document["channels"].values():
        name = channel["address"].removeprefix(TABLE_TOPIC)
        if name == channel["address"] or "/" in name:
            continue
        for message_ref in channel["messages"].values():  # the first: `events` also carries JournalRows
            validators.setdefault(name, _validator(document, resolve(document, message_ref["$ref"])))
    return validators


def validators_by_message() -> dict[str, jsonschema.protocols.Validator]:
    """Message name (`JournalHead`, `ReplayRequest`, `ReplayDone`...) → validator of its payload."""
    document = asyncapi()
    return {name: _validator(document, message) for name, message in document["components"]["messages"].items()}


def _validator(document: Mapping[str, Any], message: Mapping[str, Any]) -> jsonschema.protocols.Validator:
    schema = json.loads((DOCS / message["payload"]["$ref"]).read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
