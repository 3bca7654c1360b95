"""Many journal rows in one ``events`` message (version 2, ``JournalRows``): the shape, its schema, its cuts, and
the publisher sending it through a real Mosquitto; the default still sends version 1."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from simulators.mosquitto import MosquittoBroker
from table_runtime.errors import ConfigError
from table_runtime.feed.consumer import FeedConsumer
from table_runtime.feed.messages import Topics, messages_for_entry
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.row_batches import (
    MAX_ROWS_BYTES,
    ROWS_TYPE,
    RowsMessageError,
    chunks,
    event_rows,
    messages_for_entries,
    rows_message,
)
from table_runtime.feed.settings import parse_broker_url
from table_runtime.journal import Journal, JournalEntry

from .support import (
    JOURNAL,
    Heard,
    append_entries,
    entry_for,
    listen,
    settings,
    validators_by_message,
    validators_by_topic,
)

pytestmark = pytest.mark.timeout(60)

TOPICS = Topics("casino", "T1")


def entries(count: int) -> list[JournalEntry]:
    """`count` chained rows of the made-up journal (`entry_for`), as the journal returns them."""
    out, previous = [], "0" * 64
    for index in range(count):
        kind, body = entry_for(index)
        entry = JournalEntry(seq=index + 1, ts=1000.0 + index / 10, kind=kind, body=body, prev_hash=previous,
                             hash=f"{index + 1:064x}")
        out.append(entry)
        previous = entry.hash
    return out


def decoded(payload: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(payload))
    return result


def test_a_rows_message_gives_back_exactly_the_version_1_payloads_and_validates() -> None:
    rows = entries(120)
    message = rows_message(TOPICS, rows, JOURNAL)
    payload = json.loads(message.encode())
    assert (payload["schema_version"], payload["type"], payload["seq"], payload["ts"]) == (2, ROWS_TYPE, 120,
                                                                                          rows[-1].ts)
    assert message.topic == TOPICS.events and message.qos == 1 and not message.retain
    validators_by_message()["JournalRows"].validate(payload)
    expected = [json.loads(messages_for_entry(TOPICS, entry, JOURNAL)[0].encode()) for entry in rows]
    assert event_rows(payload) == expected
    assert [list(row) for row in event_rows(payload)] == [list(row) for row in expected]  # the same key order too
    version_1 = validators_by_topic()["events"]
    for row in event_rows(payload):
        version_1.validate(row)
    assert not version_1.is_valid(payload)  # a version 1 reader's schema refuses it: it must know the version
    assert event_rows(expected[0]) == [expected[0]]  # a version 1 message is its own one row


@pytest.mark.parametrize("rows", [None, [], "rows", [1, 2]])
def test_a_rows_message_without_readable_rows_is_one_clear_error(rows: object) -> None:
    payload = {**decoded(rows_message(TOPICS, entries(2), JOURNAL).payload), "rows": rows}
    with pytest.raises(RowsMessageError, match="JournalRows"):
        event_rows(payload)
    assert not validators_by_message()["JournalRows"].is_valid(payload)


def test_the_rows_are_cut_by_count_and_by_bytes_and_a_large_row_goes_alone() -> None:
    rows = entries(250)
    assert [len(run) for run in chunks(rows, 100)] == [100, 100, 50]
    large = JournalEntry(seq=251, ts=2000.0, kind="event", body={"type": "Note", "text": "x" * MAX_ROWS_BYTES},
                         prev_hash=rows[-1].hash, hash="f" * 64)
    runs = chunks([*rows[:10], large, *rows[10:20]], 100)
    assert [len(run) for run in runs] == [10, 1, 10]
    assert [entry.seq for run in runs for entry in run] == [*range(1, 11), 251, *range(11, 21)]
    for run in chunks(rows, 1000, max_bytes=4096):
        assert len(rows_message(TOPICS, run, JOURNAL).encode()) < 4096 + 2048


def test_one_row_a_message_is_version_1_as_before_and_more_keeps_each_topic_in_order() -> None:
    rows = entries(200)
    old = [[message.encode() for message in messages_for_entry(TOPICS, entry, JOURNAL)] for entry in rows]
    groups = messages_for_entries(TOPICS, rows, JOURNAL, rows_per_message=1)
    assert [[message.encode() for message in messages] for messages, _ in groups] == old
    assert [seq for _, seq in groups] == list(range(1, 201))
    batched = messages_for_entries(TOPICS, rows, JOURNAL, rows_per_message=64)
    assert [seq for _, seq in batched] == [64, 128, 192, 200]
    sent = [message for messages, _ in batched for message in messages]
    by_topic = {name: [json.loads(m.encode()) for m in sent if m.topic == TOPICS.topic(name)]
                for name in ("events", "alarms", "rounds")}
    assert [row["seq"] for payload in by_topic["events"] for row in event_rows(payload)] == list(range(1, 201))
    for name in ("alarms", "rounds"):  # the same messages, in the same order, as one row a message sends
        assert by_topic[name] == [json.loads(message.encode()) for entry in rows
                                  for message in messages_for_entry(TOPICS, entry, JOURNAL)[1:]
                                  if message.topic == TOPICS.topic(name)]
    assert len(by_topic["alarms"]) == sum(1 for entry in rows if entry.kind.startswith("alarm")) > 0
    assert len(by_topic["rounds"]) == sum(1 for entry in rows if entry.kind == "round") > 0


def test_rows_per_message_is_a_checked_setting_defaulting_to_version_1() -> None:
    assert settings("mqtt://127.0.0.1:1883", "p").rows_per_message == 1
    assert settings("mqtt://127.0.0.1:1883", "p", rows_per_message=200).rows_per_message == 200
    for bad in (0, 1001, 2.5, "50"):
        with pytest.raises(ConfigError, match=r"feed\.rows_per_message"):
            settings("mqtt://127.0.0.1:1883", "p", rows_per_message=bad)


async def test_the_publisher_sends_pending_rows_as_rows_messages_and_the_consumer_reads_each_row(
        broker: MosquittoBroker, journal: Journal, prefix: str) -> None:
    heard, ready = Heard(), asyncio.Event()
    consumer = FeedConsumer(parse_broker_url(broker.url)[0], prefix=prefix, table_id="T1", verify=True)
    read: list[int] = []
    findings: list[str] = []

    async def consume() -> None:
        async for received in consumer.messages():
            if received.topic.endswith("/events"):
                read.append(received.message["seq"])
            findings.extend(finding.kind for finding in received.findings)

    async with asyncio.TaskGroup() as tasks:
        listener = tasks.create_task(listen(broker.port, f"{prefix}/#", heard, ready))
        reader = tasks.create_task(consume())
        async with asyncio.timeout(5):
            await ready.wait()
            await consumer.subscribed.wait()
        await append_entries(journal, 0, 300)  # a backlog: the publisher finds 300 rows pending
        async with FeedPublisher(settings(broker.url, prefix, rows_per_message=100), journal) as feed:
            tasks.create_task(feed.run())
            async with asyncio.timeout(20):
                await feed.wait_published(300)
            for step in range(3):  # table steps of 3 rows each: one message a step
                await append_entries(journal, 300 + 3 * step, 303 + 3 * step)
                feed.notify()
                async with asyncio.timeout(10):
                    await feed.wait_published(303 + 3 * step)
            async with asyncio.timeout(10):
                while len(read) < 309:
                    await asyncio.sleep(0.02)
        listener.cancel()
        reader.cancel()

    events = heard.on("events")
    assert all(payload["schema_version"] == 2 and payload["type"] == ROWS_TYPE for payload in events)
    assert [len(payload["rows"]) for payload in events] == [100, 100, 100, 3, 3, 3]
    rows = [row for payload in events for row in event_rows(payload)]
    assert [(row["seq"], row["kind"], row["body"], row["hash"]) for row in rows] == [
        (entry.seq, entry.kind, entry.body, entry.hash) for entry in journal.entries()]
    for payload in events:
        validators_by_message()["JournalRows"].validate(payload)
    assert len(heard.on("alarms")) == sum(1 for entry in journal.entries() if entry.kind.startswith("alarm"))
    assert read == list(range(1, 310)) and not findings  # each row once, its hash chain checked
