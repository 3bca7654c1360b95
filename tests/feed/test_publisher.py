"""The publisher against a real Mosquitto: topic tree, retained status and state, schemas; and without one:
the feed never stops the table (a failure that is not the broker's is retried like a lost broker)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.game import citations
from table_runtime.journal import Journal

from .support import Heard, append_entries, listen, retained, settings, validators_by_topic

pytestmark = pytest.mark.timeout(60)

SNAPSHOT = {
    "schema_version": 1, "table_id": "T1", "seq": 0, "round": 1, "phase": "betting", "profile": "fr-casino",
    "limits": {"min_cents": 500, "max_cents": 500000}, "turn": None, "allowed": ["CONFIRM"], "next_card": "none",
    "bank": {"cards": [], "total": 0, "soft": False, "blackjack": False, "busted": False, "must_draw": False},
    "boxes": [], "held_cards": [], "alarms": [], "recovered": False,
    "devices": {"shoe": "online", "chips": "online", "broker": "online"},
}  # fmt: skip


async def test_topic_tree_every_entry_on_events_and_routed_kinds_on_their_topics(
    broker: MosquittoBroker, journal: Journal, prefix: str
) -> None:
    heard, ready = Heard(), asyncio.Event()
    async with asyncio.TaskGroup() as tasks:
        listener = tasks.create_task(listen(broker.port, f"{prefix}/#", heard, ready))
        async with asyncio.timeout(5):
            await ready.wait()
        await append_entries(journal, 0, 300)
        async with FeedPublisher(settings(broker.url, prefix), journal) as feed:
            runner = tasks.create_task(feed.run())
            async with asyncio.timeout(20):
                await feed.wait_published(300)
            feed.offer_state({**SNAPSHOT, "seq": 299, "phase": "dealing"})
            feed.offer_state({**SNAPSHOT, "seq": 300})  # coalesced: the latest wins
            async with asyncio.timeout(10):
                while not heard.on("state"):
                    await asyncio.sleep(0.02)
            feed.stop("test over")
            async with asyncio.timeout(10):
                await runner
        async with asyncio.timeout(10):
            while not any(message["status"] == "offline" for message in heard.on("status")):
                await asyncio.sleep(0.02)
        listener.cancel()

    topics = {topic.rsplit("/", 1)[0] for topic, _, _ in heard.messages}
    assert topics == {f"{prefix}/tables/T1"}
    events = heard.on("events")
    assert [event["seq"] for event in events] == list(range(1, 301))
    entries = list(journal.entries())
    assert [(event["kind"], event["body"], event["hash"]) for event in events] == [
        (entry.kind, entry.body, entry.hash) for entry in entries
    ]
    assert [event["type"] for event in events[:2]] == ["CardAssigned", "CardDrawn"]
    alarms = heard.on("alarms")
    assert [(alarm["type"], alarm["seq"]) for alarm in alarms] == [
        ("AlarmRaised" if entry.kind == "alarm" else "AlarmCleared", entry.seq)
        for entry in entries
        if entry.kind in ("alarm", "alarm_cleared")
    ]
    assert alarms[0]["alarm"]["rule"] == citations.BANK_STANDS
    rounds = heard.on("rounds")
    assert [record["round"]["round"] for record in rounds] == [1, 2, 3, 4, 5, 6]
    states = heard.on("state")
    assert states[-1]["snapshot"]["seq"] == 300 and states[-1]["seq"] == 300
    assert len(states) <= 2
    statuses = heard.on("status")
    assert [status["status"] for status in statuses] == ["online", "offline"]
    assert statuses[-1]["reason"] == "test over" and statuses[-1]["seq"] == 300

    # Everything that went out validates against the schema the AsyncAPI document names for its topic.
    validators = validators_by_topic()
    for topic, payload, _ in heard.messages:
        validators[topic.rsplit("/", 1)[1]].validate(payload)

    # A late subscriber finds the retained status and state.
    assert (await retained(broker.port, f"{prefix}/tables/T1/status"))["reason"] == "test over"
    assert (await retained(broker.port, f"{prefix}/tables/T1/state"))["snapshot"]["seq"] == 300
    assert journal.get_meta("feed.mqtt.cursor") == "300"


async def test_online_is_retained_while_running_and_new_entries_follow_notify(
    broker: MosquittoBroker, journal: Journal, prefix: str
) -> None:
    async with FeedPublisher(settings(broker.url, prefix, poll_interval=30.0), journal) as feed:
        async with asyncio.TaskGroup() as tasks:
            runner = tasks.create_task(feed.run())
            async with asyncio.timeout(10):
                while not feed.connected:
                    await asyncio.sleep(0.01)
            status = await retained(broker.port, f"{prefix}/tables/T1/status")
            assert (status["status"], status["reason"]) == ("online", None)
            # The poll interval is 30 s: only notify() can make this prompt.
            await append_entries(journal, 0, 5, after_chunk=feed.notify)
            async with asyncio.timeout(5):
                await feed.wait_published(5)
            runner.cancel()
    status = await retained(broker.port, f"{prefix}/tables/T1/status")
    assert (status["status"], status["reason"]) == ("offline", "cancelled")


async def test_the_table_runs_on_with_no_broker_and_the_backlog_goes_out_when_it_comes(
    journal: Journal, prefix: str
) -> None:
    delays: list[float] = []

    async def sleep(delay: float) -> None:
        delays.append(delay)
        await asyncio.sleep(0.01)

    broker = MosquittoBroker()
    try:
        feed_settings = settings(broker.url, prefix, backoff_initial=0.5, backoff_max=4.0)
        async with FeedPublisher(feed_settings, journal, rng=random.Random(7), sleep=sleep) as feed:
            async with asyncio.TaskGroup() as tasks:
                runner = tasks.create_task(feed.run())
                await append_entries(journal, 0, 50, after_chunk=feed.notify)
                async with asyncio.timeout(10):
                    while len(delays) < 8:
                        await asyncio.sleep(0.01)
                assert feed.cursor == 0 and not feed.connected
                broker.start()
                async with asyncio.timeout(10):
                    await feed.wait_published(50)
                feed.stop("done")
                await runner
    finally:
        broker.close()
    # Capped, jittered: each delay within [half, full] of min(cap, 0.5 * 2**n).
    for attempt, delay in enumerate(delays[:8]):
        ceiling = min(4.0, 0.5 * 2**attempt)
        assert ceiling / 2 <= delay <= ceiling
    assert delays[6] != delays[7]  # jitter, not a fixed schedule


async def test_leaving_the_context_stops_run_promptly_even_with_the_broker_down(journal: Journal, prefix: str) -> None:
    broker = MosquittoBroker()  # never started
    try:
        await append_entries(journal, 0, 10)
        async with asyncio.timeout(5):
            async with asyncio.TaskGroup() as tasks, FeedPublisher(settings(broker.url, prefix), journal) as feed:
                runner = tasks.create_task(feed.run())
                async with asyncio.timeout(5):
                    while feed.last_error is None:
                        await asyncio.sleep(0.01)
            assert runner.done() and feed.cursor == 0
    finally:
        broker.close()
    assert journal.get_meta("feed.mqtt.cursor") is None


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
