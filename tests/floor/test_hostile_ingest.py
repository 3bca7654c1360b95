"""Hostile messages at ingest, on a real PostgreSQL: bounded replays, a state that cannot freeze the pit, a row off
the chain set apart after it was stored, signed heads and the configuration of the keys."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from casino_floor.config import config_from_mapping
from casino_floor.ingest import MAX_STATE_AHEAD, SET_ASIDE_CAP, Ingest
from casino_floor.integrity import FloorAlarmKind
from casino_floor.pit.feed_link import FeedLink
from casino_floor.service import describe
from casino_floor.store import Batch, FloorStore
from table_runtime.errors import ConfigError
from table_runtime.feed.heads import signed, signed_by
from table_runtime.feed.settings import BrokerAddress
from table_runtime.journal import encode_body, entry_hash
from tests.floor.journals import feed_messages, play
from tests.floor.support import store_messages

Message = tuple[str, dict[str, Any]]
KEY = b"a-head-key-16-bytes-or-more"


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> list[Message]:
    with play(tmp_path_factory.mktemp("journal") / "t1.db", "T1", 3) as journal:
        return [(name, payload) for _, name, payload in feed_messages(journal, "casino", "T1") if name == "events"]


def _row(payload: dict[str, Any], seq: int, prev_hash: str) -> dict[str, Any]:
    """A row with a right hash of its own at `seq`, chained onto `prev_hash`."""
    body = {"type": "Note", "text": "forged"}
    hash_ = entry_hash(prev_hash, seq, payload["ts"], "event", encode_body(body))
    return {**payload, "seq": seq, "kind": "event", "type": "Note", "body": body, "prev_hash": prev_hash,
            "hash": hash_}


async def _kinds(store: FloorStore) -> list[tuple[str, int, int]]:
    async with store.pool.acquire() as connection:
        return [(r["kind"], r["first_seq"], r["last_seq"]) for r in await connection.fetch(
            "SELECT kind, first_seq, last_seq FROM floor_alarms ORDER BY id")]


async def test_a_row_far_past_the_end_is_an_alarm_not_forty_thousand_replay_requests(
        store: FloorStore, events: list[Message]) -> None:
    last = events[-1][1]["seq"]
    far = _row(events[-1][1], 10**8, "f" * 64)
    ingest = Ingest(await store.load_tracks(), gap_grace=1.0, replay_max_gap=100_000)
    await store_messages(store, ingest, [*events, ("events", far)], now=0.0)
    await store_messages(store, ingest, [], now=2.0)
    assert ("gap_too_large", last + 1, 10**8 - 1) in await _kinds(store)
    assert "gap" not in {kind for kind, _, _ in await _kinds(store)}
    assert ingest.missing() == []  # nothing to ask: the service publishes no request
    ingest.replay_max_gap = 10**9  # a limit past the gap: it is asked for (in pieces of 5,000)
    assert [(first, last_) for _, first, last_ in ingest.missing()] == [(last + 1, 10**8 - 1)]


async def test_a_state_with_an_absurd_seq_is_quarantined_and_the_next_true_state_is_taken(
        store: FloorStore, events: list[Message]) -> None:
    ingest = Ingest(await store.load_tracks())
    await store_messages(store, ingest, events, now=0.0)
    last, journal = events[-1][1]["seq"], events[-1][1]["journal"]

    def state(seq: int) -> Message:
        return "state", {"schema_version": 1, "table_id": "T1", "journal": journal, "seq": seq, "ts": time.time(),
                         "type": "TableState", "snapshot": {"seq": seq, "phase": "betting"}}

    await store_messages(store, ingest, [state(2**62)], now=1.0)
    await store_messages(store, ingest, [state(last)], now=2.0)
    async with store.pool.acquire() as connection:
        assert await connection.fetchval("SELECT state_seq FROM table_state WHERE table_id = 'T1'") == last
        reason = await connection.fetchval("SELECT reason FROM quarantine")
    assert f"the state's seq {2**62}" in reason and str(MAX_STATE_AHEAD) in reason
    assert ("quarantined", 2**62, 2**62) in await _kinds(store)


async def test_a_row_held_above_a_gap_and_found_off_the_chain_leaves_the_journals_rows_for_evidence(
        store: FloorStore, events: list[Message]) -> None:
    ingest = Ingest(await store.load_tracks(), gap_grace=100.0)
    forged = _row(events[20][1], 21, "d" * 64)  # row 21 with a right hash of its own, off the chain
    await store_messages(store, ingest, [*events[:19], ("events", forged)], now=0.0)  # 20 missing: 21 held
    async with store.pool.acquire() as connection:
        assert await connection.fetchval("SELECT count(*) FROM events WHERE seq = 21") == 1
    await store_messages(store, ingest, [events[19]], now=1.0)  # 20 comes: the prefix reaches the forged 21
    async with store.pool.acquire() as connection:
        assert await connection.fetchval("SELECT count(*) FROM events WHERE seq = 21") == 0
        assert await connection.fetchval("SELECT kind FROM evidence WHERE seq = 21") == "off_chain"
        assert await connection.fetchval("SELECT contiguous_seq FROM journals") == 20
    assert ("chain_broken", 21, 21) in await _kinds(store)
    await store_messages(store, ingest, events[20:], now=2.0)  # the table's own rows, replayed
    async with store.pool.acquire() as connection:
        assert await connection.fetchval("SELECT contiguous_seq FROM journals") == events[-1][1]["seq"]


async def test_only_a_signed_head_moves_what_counts(store: FloorStore, events: list[Message]) -> None:
    ingest = Ingest(await store.load_tracks(), head_keys={"T1": (b"the-old-key-16-bytes", KEY)})
    head = {"schema_version": 1, "table_id": "T1", "journal": events[30][1]["journal"], "seq": 31,
            "hash": events[30][1]["hash"], "ts": events[30][1]["ts"], "type": "JournalHead"}
    await store_messages(store, ingest, [*events[:40], ("head", head)], now=0.0)  # unsigned
    await store_messages(store, ingest, [("head", signed(head, b"not-the-table-key-at-all"))], now=1.0)
    async with store.pool.acquire() as connection:
        assert await connection.fetchval("SELECT signed_seq FROM journals") == 0
        assert await connection.fetchval("SELECT count(*) FROM evidence WHERE kind = 'bad_signature'") == 2
    await store_messages(store, ingest, [("head", signed(head, KEY))], now=2.0)
    async with store.pool.acquire() as connection:
        assert await connection.fetchval("SELECT signed_seq FROM journals") == 31
    waiting = {**head, "seq": 45, "hash": events[44][1]["hash"]}  # signed beyond the prefix: applied on arrival
    await store_messages(store, ingest, [("head", signed(waiting, KEY))], now=3.0)
    await store_messages(store, ingest, events[40:50], now=4.0)
    again = Ingest(await store.load_tracks(), head_keys={"T1": (KEY,)})
    assert next(iter(again.tracks.values())).signed_seq == 45
    unkeyed = Ingest(await store.load_tracks())  # the casino removes the table's key: its rows count as they come
    await store_messages(store, unkeyed, events[50:52], now=5.0)
    async with store.pool.acquire() as connection:
        assert await connection.fetchval("SELECT signed_seq FROM journals") is None


def test_a_head_signature_covers_every_field() -> None:
    head = {"schema_version": 1, "table_id": "T1", "journal": "j" * 32, "seq": 9, "hash": "a" * 64, "ts": 1.5,
            "type": "JournalHead"}
    mac = signed(head, KEY)
    assert signed_by(mac, [KEY]) and signed(head, None) == head
    for name, value in (("seq", 10), ("hash", "b" * 64), ("table_id", "T2"), ("journal", "k" * 32), ("ts", 1.6)):
        assert not signed_by({**mac, name: value}, [KEY]), name
    assert not signed_by(mac, [b"another-key-of-16-bytes"]) and not signed_by(head, [KEY])


def test_the_floor_reads_each_tables_keys_from_the_environment(tmp_path: Path) -> None:
    base: dict[str, Any] = {"floor": {"dsn": "postgresql://floor@127.0.0.1/floor"},
                            "brokers": [{"url": "mqtt://127.0.0.1:1883"}]}
    env = {"K1": "k" * 16, "K2": "n" * 20}
    config = config_from_mapping({**base, "head_keys": {"T01": "K1", "T02": ["K1", "K2"]}}, environ=env)
    assert config.head_key_bytes == {"T01": (b"k" * 16,), "T02": (b"k" * 16, b"n" * 20)}
    assert "k" * 16 not in repr(config)
    for keys, named in (({"T01": "MISSING"}, "MISSING"), ({"T01": "SHORT"}, "16 bytes"), ({"T01": 3}, "variable")):
        with pytest.raises(ConfigError, match=named) as raised:
            config_from_mapping({**base, "head_keys": keys}, environ={**env, "SHORT": "x"})
        assert raised.value.key == "head_keys.T01"


def test_a_batch_counts_what_it_sets_aside() -> None:
    batch = Batch()
    Ingest().take("events", {"table_id": "T1", "seq": 2**64, "ts": 1.0, "kind": "event", "body": {},
                             "prev_hash": "", "hash": ""}, batch)
    assert len(batch.set_aside) == 1 and len(batch) == 2  # the message and its alarm


def test_every_floor_alarm_kind_is_named_on_the_pit_page_in_french_and_english() -> None:
    text = (Path(__file__).resolve().parents[2] / "casino_floor" / "pit" / "static" / "i18n.js").read_text("utf-8")
    french, english = text.split("\n  en: {", 1)
    for kind in FloorAlarmKind:
        assert f"    floor_alarm_{kind}: " in french and f"    floor_alarm_{kind}: " in english, kind


class _Folded:
    """A view that keeps what the pit's feed link hands it."""

    def __init__(self) -> None:
        self.applied: list[tuple[str, dict[str, Any]]] = []

    def apply_all(self, topic_name: str, payloads: list[dict[str, Any]]) -> set[str]:
        self.applied.extend((topic_name, payload) for payload in payloads)
        return set()


def test_the_pit_page_on_its_own_session_skips_what_the_service_would_set_aside() -> None:
    folded = _Folded()
    link = FeedLink(BrokerAddress("127.0.0.1", 1883, False), folded, lambda _: None, prefix="casino")

    def send(topic: str, payload: dict[str, Any] | bytes) -> None:
        link.fold(f"casino/tables/{topic}", payload if isinstance(payload, bytes) else json.dumps(payload).encode())

    send("T1/head", {"table_id": "T1", "journal": "j", "seq": 500, "hash": "a" * 64})
    send("T1/state", {"table_id": "T1", "journal": "j", "seq": 2**62, "snapshot": {}})  # would freeze the view
    send("T1/state", {"table_id": "T2", "journal": "j", "seq": 400, "snapshot": {}})  # T2 on T1's topic
    send("T1/events", {"table_id": "T1", "journal": "j", "seq": 2**63, "kind": "event"})
    send("T1/events", b"[" * 100_000 + b"]" * 100_000)
    send("T1/state", {"table_id": "T1", "journal": "j", "seq": 499, "snapshot": {}})
    assert [(name, payload["seq"]) for name, payload in folded.applied] == [("head", 500), ("state", 499)]


def test_a_sessions_end_names_the_errors_inside_its_exception_group() -> None:
    try:
        raise ExceptionGroup("unhandled errors in a TaskGroup", [ValueError("value out of int64 range")])
    except ExceptionGroup as error:
        line = describe(error)
    assert line == "ValueError: value out of int64 range"


def test_what_is_set_aside_is_capped_per_table_and_session_so_garbage_cannot_fill_the_disk() -> None:
    ingest, batch = Ingest(), Batch()
    for index in range(SET_ASIDE_CAP + 5):
        ingest.take("events", {"table_id": "T2", "seq": index + 1}, batch, topic="casino/tables/T1/events")
    ingest.take("events", {"table_id": "T1", "seq": 2**64}, batch, topic="casino/tables/T9/events")
    assert len(batch.set_aside) == SET_ASIDE_CAP + 1  # T1's topic up to the cap, and T9's own
    assert ingest.set_aside == SET_ASIDE_CAP + 6 and ingest.set_aside_dropped == 5
