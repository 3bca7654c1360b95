"""Rated sessions in the floor's store (a real PostgreSQL): the contract's messages checked, upserted by session,
each round's line once, whatever the order and however often they arrive; a bad message is one line and counted."""

from __future__ import annotations

import datetime as dt
import logging
import random
from typing import Any

import pytest

from casino_floor.ingest import Ingest
from casino_floor.ratings import RatingError, parse_rating
from casino_floor.store import FloorStore
from tests.floor.rating_messages import Played, session_messages
from tests.floor.support import connected, store_messages

START = dt.datetime(2026, 12, 1, 21, 4, 5, 123000, tzinfo=dt.UTC)
ROUNDS = [Played("T01-r41", 5000, -5000, 26, 31), Played("T01-r42", 10000, 10000, 52, 118),
          Played("T01-r43", 5000, 7500, 26, 40, seconds=95)]


def messages() -> list[dict[str, Any]]:
    return [*session_messages("T01", 100, "p-3f9a0c1b2d4e", 3, START, ROUNDS, buy_in_cents=100_000),
            *session_messages("T01", 130, None, 5, START + dt.timedelta(minutes=2), ROUNDS[:2])]


async def sessions(dsn: str) -> dict[str, dict[str, Any]]:
    async with connected(dsn) as connection:
        return {row["session"]: dict(row) for row in await connection.fetch("SELECT * FROM rated_sessions")}


async def lines(dsn: str) -> list[tuple[str, str, int, int]]:
    async with connected(dsn) as connection:
        return [tuple(row.values()) for row in await connection.fetch(
            "SELECT session, round_id, stake_cents, theo_skill_cents FROM rated_rounds ORDER BY session, round_id")]


async def test_each_session_is_stored_once_with_its_last_totals_however_often_and_in_whatever_order(
        store: FloorStore, database: str) -> None:
    sent = messages()
    delivered = [*sent, *random.Random(7).sample(sent, len(sent)), *sent[:3]]  # QoS 1 duplicates, a replay
    await store_messages(store, Ingest(), [("ratings", message) for message in delivered], now=0.0, batch_rows=4)
    held = await sessions(database)
    assert set(held) == {"T01-100", "T01-130"}
    rated = held["T01-100"]
    closed = sent[4]
    assert closed["type"] == "session_closed"
    assert (rated["player"], rated["box"], rated["rounds"], rated["hands"], rated["handle_cents"],
            rated["average_bet_cents"], rated["buy_in_cents"], rated["win_cents"], rated["theo_cents"],
            rated["theo_skill_cents"], rated["seconds_played"], rated["last_seq"]) == (
        "p-3f9a0c1b2d4e", 3, 3, 3, 20_000, 6666, 100_000, 12_500, 104, 189, 215, closed["seq"])
    assert rated["started_at"] == START
    assert rated["ended_at"] == START + dt.timedelta(seconds=245)
    anonymous = held["T01-130"]
    assert anonymous["player"] is None and anonymous["box"] == 5 and anonymous["ended_at"] is not None
    assert await lines(database) == [("T01-100", "T01-r41", 5000, 31), ("T01-100", "T01-r42", 10000, 118),
                                     ("T01-100", "T01-r43", 5000, 40), ("T01-130", "T01-r41", 5000, 31),
                                     ("T01-130", "T01-r42", 10000, 118)]


async def test_any_order_of_delivery_with_duplicates_leaves_the_last_message(store: FloorStore, database: str
                                                                            ) -> None:
    """Twenty tables each get one session's messages in another order, some twice, in batches of 3: each ends with
    the closing message's totals and every round line once."""
    expected = {}
    delivered: list[tuple[str, dict[str, Any]]] = []
    for seed in range(20):
        sent = session_messages(f"P{seed}", 10, f"p-{seed}", 1 + seed % 7, START, ROUNDS)
        rng = random.Random(seed)
        order = rng.sample(sent, len(sent)) + rng.choices(sent, k=3)
        delivered += [("ratings", message) for message in order]
        expected[f"P{seed}-10"] = (sent[-1]["seq"], sent[-1]["rounds"], sent[-1]["theo_skill_cents"], True)
    await store_messages(store, Ingest(), delivered, now=0.0, batch_rows=3)
    held = await sessions(database)
    assert {key: (row["last_seq"], row["rounds"], row["theo_skill_cents"], row["ended_at"] is not None)
            for key, row in held.items()} == expected
    async with connected(database) as connection:
        assert await connection.fetchval("SELECT count(*) FROM rated_rounds") == 20 * len(ROUNDS)


async def test_a_late_update_never_reopens_a_closed_session(store: FloorStore, database: str) -> None:
    sent = session_messages("T02", 10, "p-aa", 1, START, ROUNDS)
    await store_messages(store, Ingest(), [("ratings", message) for message in sent], now=0.0)
    await store_messages(store, Ingest(), [("ratings", sent[1]), ("ratings", sent[0])], now=0.0)
    rated = (await sessions(database))["T02-10"]
    assert rated["ended_at"] is not None and rated["rounds"] == 3 and rated["last_seq"] == sent[-1]["seq"]


async def test_a_session_id_a_new_journal_numbers_again_is_another_session(store: FloorStore, database: str
                                                                          ) -> None:
    before = session_messages("T04", 10, "p-dd", 1, START, ROUNDS)  # the old journal: rows up to seq 34
    after = session_messages("T04", 10, "p-ee", 2, START + dt.timedelta(days=1), ROUNDS[:1])  # the same id again
    await store_messages(store, Ingest(), [("ratings", message) for message in [*before, *after]], now=0.0)
    async with connected(database) as connection:
        held = [tuple(row.values()) for row in await connection.fetch(
            "SELECT player, rounds, (SELECT count(*) FROM rated_rounds r WHERE r.session = s.session "
            "AND r.started_at = s.started_at) FROM rated_sessions s ORDER BY started_at")]
    assert held == [("p-dd", 3, 3), ("p-ee", 1, 1)]


async def test_a_bad_message_is_one_line_counted_and_the_good_ones_beside_it_are_stored(
        store: FloorStore, database: str, caplog: pytest.LogCaptureFixture) -> None:
    sent = session_messages("T03", 10, "p-bb", 2, START, ROUNDS[:1])
    bad = {**sent[1], "handle_cents": "5000", "session": "T03-99"}
    ingest = Ingest()
    with caplog.at_level(logging.WARNING, logger="casino_floor.ingest"):
        await store_messages(store, ingest, [("ratings", sent[0]), ("ratings", bad), ("ratings", sent[1]),
                                             ("ratings", sent[2])], now=0.0)
    assert ingest.ratings_rejected == 1
    assert set(await sessions(database)) == {"T03-10"}
    assert (await sessions(database))["T03-10"]["ended_at"] is not None
    warned = [record for record in caplog.records if "ratings" in record.getMessage()]
    assert len(warned) == 1 and warned[0].exc_info is None
    assert "\n" not in warned[0].getMessage() and "handle_cents" in warned[0].getMessage()
    assert "'T03-99'" in warned[0].getMessage()


GOOD = session_messages("T01", 5, "p-cc", 4, START, ROUNDS[:1])[1]


@pytest.mark.parametrize(("change", "named"), [
    ({"type": "session_paused"}, "type"),
    ({"table": ""}, "table"),
    ({"session": None}, "session"),
    ({"player": 42}, "player"),
    ({"box": 0}, "box"),
    ({"box": True}, "box"),
    ({"started_at": "yesterday"}, "started_at"),
    ({"started_at": "2026-12-01T21:04:05"}, "started_at"),  # no time zone
    ({"type": "session_closed", "ended_at": None}, "ended_at"),
    ({"handle_cents": 12.5}, "handle_cents"),
    ({"rounds": -1}, "rounds"),
    ({"theo_cents": 2**64}, "theo_cents"),  # would not fit the store's bigint: refused before the batch
    ({"seq": None}, "seq"),
    ({"edge_pct": "high"}, "edge_pct"),
    ({"round": [1, 2]}, "round"),
    ({"round": {"round_id": "", "stake_cents": 1, "win_cents": 0, "theo_cents": 0, "theo_skill_cents": 0}},
     "round_id"),
    ({"round": {"round_id": "r", "stake_cents": 1, "win_cents": 0, "theo_cents": 0}}, "theo_skill_cents"),
])
def test_a_message_off_the_contract_is_refused_naming_the_field(change: dict[str, Any], named: str) -> None:
    parse_rating(GOOD)
    with pytest.raises(RatingError, match=named):
        parse_rating({**GOOD, **change})


def test_the_contract_message_reads_as_given() -> None:
    message = parse_rating({**GOOD, "player": None, "win_cents": -12_500, "theo_skill_cents": -3})
    assert message.player is None and message.win_cents == -12_500 and message.theo_skill_cents == -3
    assert message.started_at == START and message.round is not None and message.round.round_id == "T01-r41"
