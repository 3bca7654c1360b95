"""The store on a real PostgreSQL: every row once whatever the delivery, the contiguous prefix, the floor alarms."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from casino_floor.ingest import Ingest
from casino_floor.integrity import FloorAlarmKind, Row
from casino_floor.migrate import migrate, migrations
from casino_floor.store import _COLUMNS, FloorStore, WriteMethod
from table_runtime.journal import Journal, encode_body
from tests.floor.journals import feed_messages, journal_id, play
from tests.floor.support import store_messages

Message = tuple[str, dict[str, Any]]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Message], int, str, int]:
    """The messages of a real journal of 20 rounds at T1: (messages, last seq, journal id, rounds closed)."""
    with play(tmp_path_factory.mktemp("journal") / "t1.db", "T1", 20) as journal:
        messages = [(name, payload) for _, name, payload in feed_messages(journal, "casino", "T1")]
        return messages, journal.last_seq, journal_id(journal), _rounds(journal)


def _rounds(journal: Journal) -> int:
    return sum(1 for _ in journal.entries(kinds=("round",)))


def _events(messages: list[Message]) -> list[Message]:
    return [message for message in messages if message[0] == "events"]


def _head(payload: dict[str, Any], *, hash_: str | None = None, ts: float | None = None) -> dict[str, Any]:
    """The head naming the row of `payload` (published when that row was journaled, unless `ts`)."""
    return {"schema_version": 1, "table_id": payload["table_id"], "journal": payload["journal"],
            "seq": payload["seq"], "hash": payload["hash"] if hash_ is None else hash_,
            "ts": payload["ts"] if ts is None else ts, "type": "JournalHead"}


async def _alarms(store: FloorStore) -> list[tuple[str, int, int, bool]]:
    async with store.pool.acquire() as connection:
        rows = await connection.fetch("SELECT kind, first_seq, last_seq, cleared_at IS NOT NULL AS cleared "
                                      "FROM floor_alarms ORDER BY id")
    return [(row["kind"], row["first_seq"], row["last_seq"], row["cleared"]) for row in rows]


async def test_every_row_once_whatever_the_order_and_the_repeats(
        store: FloorStore, played: tuple[list[Message], int, str, int]) -> None:
    messages, last_seq, ident, rounds = played
    delivered = _events(messages) * 3
    random.Random(7).shuffle(delivered)
    ingest = Ingest(await store.load_tracks(), gap_grace=60.0)
    events = _events(messages)
    await store_messages(store, ingest, [*delivered, ("head", _head(events[-1][1]))], now=100.0, batch_rows=300)
    async with store.pool.acquire() as connection:
        stored = await connection.fetchval("SELECT count(*) FROM events")
        distinct = await connection.fetchval("SELECT count(DISTINCT (table_id, journal, seq)) FROM events")
        journal = await connection.fetchrow("SELECT * FROM journals")
        stored_rounds = await connection.fetchval("SELECT count(*) FROM rounds")
    assert stored == distinct == last_seq
    assert (journal["table_id"], journal["journal"], journal["contiguous_seq"]) == ("T1", ident, last_seq)
    assert journal["contiguous_hash"] == events[-1][1]["hash"] and journal["head_seq"] == last_seq
    assert stored_rounds == rounds > 0
    assert await _alarms(store) == []
    # A second floor process starting on the same store knows the prefix and stores nothing twice.
    again = Ingest(await store.load_tracks())
    await store_messages(store, again, delivered[:200], now=101.0)
    async with store.pool.acquire() as connection:
        assert await connection.fetchval("SELECT count(*) FROM events") == last_seq


async def test_a_gap_is_an_alarm_naming_the_rows_and_clears_when_they_arrive(
        store: FloorStore, played: tuple[list[Message], int, str, int]) -> None:
    messages, last_seq, _, _ = played
    events = _events(messages)
    held_back = [message for message in events if 40 <= message[1]["seq"] <= 59]
    ingest = Ingest(await store.load_tracks(), gap_grace=5.0)
    await store_messages(store, ingest, [m for m in events if m not in held_back], now=10.0)
    assert await _alarms(store) == []  # within the grace period: rows may still be on their way
    assert [(first, last) for _, first, last in ingest.missing()] == [(40, 59)]
    await store_messages(store, ingest, [], now=16.0)
    assert await _alarms(store) == [("gap", 40, 59, False)]
    await store_messages(store, ingest, held_back, now=17.0)
    assert await _alarms(store) == [("gap", 40, 59, True)]
    async with store.pool.acquire() as connection:
        assert await connection.fetchval("SELECT contiguous_seq FROM journals") == last_seq


async def test_a_gap_at_the_end_is_seen_from_the_head(
        store: FloorStore, played: tuple[list[Message], int, str, int]) -> None:
    messages, last_seq, _, _ = played
    events = _events(messages)
    ingest = Ingest(await store.load_tracks(), gap_grace=1.0)
    await store_messages(store, ingest, [*events[:-5], ("head", _head(events[-1][1]))], now=0.0)
    await store_messages(store, ingest, [], now=2.0)
    assert await _alarms(store) == [("gap", last_seq - 4, last_seq, False)]


async def test_altered_rows_rewritten_heads_truncated_tails_and_new_journals_are_alarms(
        store: FloorStore, played: tuple[list[Message], int, str, int]) -> None:
    messages, last_seq, ident, _ = played
    events = [(name, dict(payload)) for name, payload in _events(messages)]
    original = dict(events[29][1])
    altered = events[29][1]
    altered["body"] = {**altered["body"], "forged": True}  # row 30 changed, its hash left alone
    ingest = Ingest(await store.load_tracks(), gap_grace=100.0)
    await store_messages(store, ingest, events[:50], now=0.0)
    assert await _alarms(store) == [("chain_broken", 30, 30, False)]
    async with store.pool.acquire() as connection:  # kept apart as evidence, never among the journal's rows
        assert await connection.fetchval("SELECT count(*) FROM events WHERE seq = 30") == 0
        assert await connection.fetchval("SELECT seq FROM evidence WHERE kind = 'hash_mismatch'") == 30
        assert await connection.fetchval("SELECT contiguous_seq FROM journals") == 29
    await store_messages(store, ingest, [("events", original)], now=0.5)  # the table's own row 30 (a replay)
    async with store.pool.acquire() as connection:
        assert await connection.fetchval("SELECT contiguous_seq FROM journals") == 50
    await store_messages(store, ingest, [("head", _head(events[39][1], hash_="f" * 64))], now=1.0)
    assert (await _alarms(store))[-1] == (str(FloorAlarmKind.HEAD_REWRITTEN), 40, 40, False)
    await store_messages(store, ingest, [("head", _head(events[44][1]))], now=2.0)  # an old retained copy
    assert [alarm[0] for alarm in await _alarms(store)] == ["chain_broken", "head_rewritten"]
    await store_messages(store, ingest, [("head", _head(events[44][1], ts=events[49][1]["ts"] + 1))], now=2.0)
    assert (await _alarms(store))[-1] == ("tail_truncated", 46, 50, False)
    other = {**events[0][1], "journal": "b" * 32}
    await store_messages(store, ingest, [("events", other)], now=3.0)
    kinds = [alarm[0] for alarm in await _alarms(store)]
    assert kinds[-1] == "new_journal" and ident
    async with store.pool.acquire() as connection:
        message = await connection.fetchval("SELECT message FROM floor_alarms WHERE kind = 'new_journal'")
    assert f"{ident} (last row 50)" in message and "T1" in message and last_seq > 50


async def test_the_migrations_apply_once_in_order(store: FloorStore) -> None:
    async with store.pool.acquire() as connection:
        assert await migrate(connection) == []
        versions = [row["version"] for row in await connection.fetch("SELECT version FROM schema_migrations")]
    assert versions == [migration.version for migration in migrations()] == list(range(1, len(versions) + 1))


def test_the_journals_played_are_real(tmp_path: Path) -> None:
    with play(tmp_path / "j.db", "T9", 2) as journal:
        assert journal.verify().ok


@pytest.mark.parametrize("method", ["copy", "unnest", "executemany"])
async def test_each_write_method_stores_every_row_once(
        database: str, method: WriteMethod, played: tuple[list[Message], int, str, int]) -> None:
    messages, last_seq, _, _ = played
    store = await FloorStore.open(database, method=method)
    try:
        delivered = _events(messages)[:400] * 2
        random.Random(1).shuffle(delivered)
        await store_messages(store, Ingest(await store.load_tracks(), gap_grace=60.0), delivered, now=0.0,
                             batch_rows=150)
        async with store.pool.acquire() as connection:
            assert await connection.fetchval("SELECT count(*) FROM events") == 400
            assert await connection.fetchval("SELECT contiguous_seq FROM journals") == 400 < last_seq
    finally:
        await store.close()


def test_a_body_sent_with_its_keys_in_another_order_still_matches_its_hash(
        played: tuple[list[Message], int, str, int]) -> None:
    payload = dict(_events(played[0])[20][1])
    payload["body"] = dict(reversed(list(payload["body"].items())))
    row = Row.from_payload(payload)
    assert row.hash_ok and row.body == encode_body(payload["body"])
    forged = Row.from_payload({**payload, "body": {**payload["body"], "extra": 1}})
    assert not forged.hash_ok


def test_a_row_begins_with_the_columns_the_store_copies_in_their_order() -> None:
    """`FloorStore._insert_rows` copies each row's first fields as the `events` columns."""
    assert Row._fields[:len(_COLUMNS)] == _COLUMNS
