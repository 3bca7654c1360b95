"""A buy-in on the feed: the table's own publisher sends its input (`BuyIn`) and its event (`BuyInRecorded`)
on `events` through a real Mosquitto, each valid by the schema the AsyncAPI document names; a body the table
never writes (no amount, a cheque, a box 8) is refused by that schema."""

from __future__ import annotations

import asyncio
import itertools
import json

import pytest

from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.messages import Topics, messages_for_entry
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import GENESIS_HASH, Journal, JournalEntry
from table_runtime.runtime.controller import TableController

from .support import JOURNAL, Heard, listen, settings, validators_by_topic

pytestmark = pytest.mark.timeout(60)


async def test_the_table_publishes_a_buy_in_and_its_event_valid_by_the_schema(
    broker: MosquittoBroker, journal: Journal, prefix: str
) -> None:
    ticks = itertools.count()
    controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                                 clock=lambda: 1_800_000_000.0 + next(ticks))
    for args in ({"cents": 50_000, "tender": "cash", "box": 2}, {"cents": 100_000, "tender": "marker",
                                                                 "player": "p-4471ab09cd3e"}):
        assert controller.press("BUY_IN", args, role="dealer", source="display")["ok"]
    last = journal.last_seq
    heard, ready = Heard(), asyncio.Event()
    async with asyncio.TaskGroup() as tasks:
        listener = tasks.create_task(listen(broker.port, f"{prefix}/tables/T1/events", heard, ready))
        async with asyncio.timeout(5):
            await ready.wait()
        async with FeedPublisher(settings(broker.url, prefix), journal) as feed:
            runner = tasks.create_task(feed.run())
            async with asyncio.timeout(20):
                await feed.wait_published(last)
                while len(heard.on("events")) < last:
                    await asyncio.sleep(0.02)
            feed.stop("test over")
            await runner
        listener.cancel()
    events = heard.on("events")
    validator = validators_by_topic()["events"]
    for event in events:
        validator.validate(event)
    buy_ins = [(event["kind"], event["type"], event["body"]["cents"], event["body"]["tender"])
               for event in events if event["type"].startswith("BuyIn")]
    assert buy_ins == [("input", "BuyIn", 50_000, "cash"), ("event", "BuyInRecorded", 50_000, "cash"),
                       ("input", "BuyIn", 100_000, "marker"), ("event", "BuyInRecorded", 100_000, "marker")]
    recorded = [event["body"] for event in events if event["type"] == "BuyInRecorded"]
    assert [(body["box"], body["player"], body["round"]) for body in recorded] == [
        (2, "", 0), (None, "p-4471ab09cd3e", 0)]


@pytest.mark.parametrize("change", [{"cents": 0}, {"cents": "500"}, {"tender": "cheque"}, {"box": 8},
                                    {"player": "x" * 65}])
def test_the_schema_refuses_a_buy_in_the_table_never_writes(change: dict[str, object]) -> None:
    validator = validators_by_topic()["events"]
    good = {"type": "BuyInRecorded", "cents": 500, "tender": "cash", "box": None, "player": "", "by": "dealer",
            "round": 3, "schema_version": 1}
    topics = Topics("casino", "T1")

    def message(body: dict[str, object]) -> dict[str, object]:
        (sent,) = messages_for_entry(topics, JournalEntry(9, 1.5, "event", body, GENESIS_HASH, "a" * 64), JOURNAL)
        return dict(json.loads(sent.encode()))

    validator.validate(message(good))
    assert not validator.is_valid(message({**good, **change}))
    without_amount = {key: value for key, value in good.items() if key != "cents"}
    assert not validator.is_valid(message(without_amount))
