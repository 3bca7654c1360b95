"""The `ratings` channel through a real Mosquitto: the table's publisher sends the rated sessions of its journal,
each valid by the schema the AsyncAPI document names, the same messages a fold of the journal gives, as the table's
rating fold journaled them (`rating` rows); a publisher started again on the same journal resends the same messages
for the rows it sends again; the floor's reading of the contract takes every message."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from casino_floor.ratings import parse_rating
from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.messages import encode_payload
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.ratings import rating_messages
from table_runtime.game.inputs import Next

from ..table_runtime.rating.rated_table import RatedTable
from .support import Heard, listen, settings, validators_by_topic

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[RatedTable]:
    rated = RatedTable(tmp_path)
    yield rated
    rated.close()


def _play(table: RatedTable) -> None:
    """Player A seated on box 1 for two rounds (a pause between), box 3 anonymous for the first, then A leaves."""
    table.at = 5
    table.press("SEAT", box=1, player="A")
    table.press("BUY_IN", cents=20_000, box=1)
    table.at = 10
    table.lock({1: 1000, 3: 500})
    table.draw("TH 5C 6S 9D 9C")  # box1 T 9, box3 5 9, bank 6
    table.submit(Next())
    table.draw("2H")  # box3 hits 14: 16
    table.submit(Next())
    table.draw("TC 8C")  # bank 6 T 8: bust
    table.confirm()
    table.at = 40
    table.press("PAUSE", box=1)
    table.at = 70
    table.press("RESUME", box=1)
    table.lock({1: 2000})  # box 3 empty: its anonymous player left
    table.draw("TD 7S 7D")
    table.submit(Next())
    table.draw("KS")  # a push
    table.confirm()
    table.at = 100
    table.press("SEAT_CLEAR", box=1)


async def _published(broker: MosquittoBroker, prefix: str, table: RatedTable, expect: int,
                     **overrides: Any) -> list[dict[str, Any]]:
    """What one publisher run over the table's journal sends on `ratings`: it runs until `expect` of them came,
    then stops; its `offline` status, published after them on the same connection, closes the count."""
    heard, ready = Heard(), asyncio.Event()
    async with asyncio.TaskGroup() as tasks:
        listener = tasks.create_task(listen(broker.port, f"{prefix}/tables/T01/#", heard, ready))
        async with asyncio.timeout(5):
            await ready.wait()
        async with FeedPublisher(settings(broker.url, prefix, table_id="T01", **overrides), table.journal) as feed:
            runner = tasks.create_task(feed.run())
            async with asyncio.timeout(30):
                while len(heard.on("ratings")) < expect:
                    await asyncio.sleep(0.02)
            feed.stop("test over")
            await runner
        async with asyncio.timeout(10):
            while not any(status["status"] == "offline" for status in heard.on("status")):
                await asyncio.sleep(0.02)
        listener.cancel()
    return heard.on("ratings")


async def test_the_table_publishes_its_rated_sessions_as_the_fold_makes_them(
    broker: MosquittoBroker, prefix: str, table: RatedTable
) -> None:
    _play(table)
    assert table.journal_ratings() == len(table.messages())  # the table's rating fold journals what it makes
    sent = await _published(broker, prefix, table, len(table.messages()))
    assert sent == table.messages()  # the fold of the journal, in journal order
    validator = validators_by_topic()["ratings"]
    for message in sent:
        validator.validate(message)
        parsed = parse_rating(message)  # the floor's reading of the shared contract takes it as sent
        assert (parsed.session, parsed.seq, parsed.theo_skill_cents) == (
            message["session"], message["seq"], message["theo_skill_cents"])
    assert [(m["type"], m["player"], m["box"]) for m in sent] == [
        ("session_started", "A", 1), ("session_started", None, 3), ("session_updated", "A", 1),
        ("session_updated", None, 3), ("session_updated", "A", 1), ("session_updated", "A", 1),
        ("session_closed", None, 3), ("session_updated", "A", 1), ("session_closed", "A", 1)]
    closed = sent[-1]
    assert (closed["seconds_played"], closed["rounds"], closed["handle_cents"], closed["win_cents"],
            closed["buy_in_cents"], closed["ended_at"]) == (65, 2, 3000, 1000, 20_000, "2027-01-15T08:01:40.000Z")
    assert not validator.is_valid({**closed, "handle_cents": "3000"})
    assert not validator.is_valid({**closed, "type": "session_paused"})
    # Started again with a cursor at the journal's head, the publisher resends its last rows: the `rating` rows
    # among them send the same messages again, byte for byte, with no fold of the rows before.
    last = table.journal.last_seq
    resent = [sent[index] for index, entry in enumerate(table.journal.entries(kinds=("rating",)))
              if entry.seq > last - 4]
    assert len(resent) == 4 and resent[0]["seq"] > sent[0]["seq"]
    assert await _published(broker, prefix, table, len(resent), resend_on_connect=4) == resent


def test_a_rating_row_sends_the_bytes_of_the_message_the_fold_made(table: RatedTable) -> None:
    """The journal keeps a body's keys sorted; the feed sends the message in the order the fold made it."""
    _play(table)
    table.journal_ratings()
    topics = settings("mqtt://127.0.0.1:1", "p", table_id="T01").topics
    rows = list(table.journal.entries(kinds=("rating",)))
    sent = [message for row in rows for message in rating_messages(topics, row)]
    assert [message.encode() for message in sent] == [encode_payload(made) for made in table.messages()]
    assert {message.topic for message in sent} == {topics.ratings}
    assert rating_messages(topics, next(table.journal.entries(kinds=("input",)))) == []
