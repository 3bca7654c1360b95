"""One message stops nothing: what PostgreSQL cannot hold is set aside in quarantine and the floor goes on.

Real Mosquitto, real PostgreSQL, the floor service as `table-floor run` runs it, and the tables' real feed payloads;
the poisoned messages are the ones that stopped the floor before (issue 30): a row with seq 2^63, a round whose
players' net is past 2^63 cents, a buy-in whose player holds U+0000 (journaled by a real journal, so its hash is
right), and more a hostile client could send (not JSON, nested past any stack, NaN, a megabyte and more).
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import aiomqtt

from casino_floor.bounds import MAX_MESSAGE_BYTES, Refused, plain
from casino_floor.integrity import decode_payload
from casino_floor.store import FloorStore
from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.messages import Topics, encode_payload, messages_for_entry
from table_runtime.journal import Journal
from tests.floor.journals import play
from tests.floor.support import connected, until_stored
from tests.floor.test_service import floor


def _poisoned(journal: Journal, prefix: str) -> list[tuple[str, bytes]]:
    """What the table T1 "publishes" after its real rows: (topic, payload)."""
    topics, ident = Topics(prefix, "T1"), journal.journal_id
    last = journal.last_seq
    huge_net = journal.append("round", {"round": 999, "shoe_id": "S-9", "result": "settled", "payouts": [
        {"box": 1, "hand": 0, "owner": "seat1", "kind": "original", "staked_cents": 100, "outcome": "win",
         "net_cents": 2**63 + 5}]}, ts=time.time())
    nul_player = journal.append("event", {"type": "BuyInRecorded", "round": 3, "cents": 5000, "tender": "cash",
                                          "box": 1, "player": "p-\u0000evil", "by": "dealer"}, ts=time.time())
    rows = [m for entry in (huge_net, nul_player) for m in messages_for_entry(topics, entry, ident)
            if m.topic == topics.events]
    past_bigint = {**rows[0].payload, "seq": 2**63, "prev_hash": "0" * 64}
    assert huge_net.seq == last + 1
    return [
        *((m.topic, m.encode()) for m in rows),
        (topics.events, encode_payload(past_bigint)),
        (topics.events, b"{not json"),
        (topics.events, b"[" * 100_000 + b"1" * 19 + b"]" * 100_000),  # past the JSON decoder's recursion
        (topics.events, b'{"table_id": "T1", "seq": NaN}'),
        # A time of 400 digits is JSON, and past any double: refused, not an error that ends the session.
        (topics.events, encode_payload({**rows[0].payload, "seq": last + 3, "ts": 10**400})),
        (topics.status, encode_payload({"table_id": "T1", "status": "online", "ts": -(10**400)})),
        (topics.head, encode_payload({"table_id": "T1", "journal": ident, "seq": 1, "hash": "0" * 64,
                                      "ts": 10**400})),
        (topics.state, b'{"table_id": "T1", "journal": "", "seq": 1, "snapshot": {"x": 1e400}}'),
        (topics.status, b'{"table_id": "T1", "status": "online", "reason": "\\ud800"}'),
        (topics.events, b'{"table_id": "T1", "pad": "' + b"x" * MAX_MESSAGE_BYTES + b'"}'),
        (topics.state, encode_payload({"schema_version": 1, "table_id": "T1", "journal": ident, "seq": 2**62,
                                       "ts": 1.0, "type": "TableState", "snapshot": {"seq": 2**62}})),
    ]


async def test_the_floor_stores_the_other_tables_rows_while_a_poisoned_message_waits_in_quarantine(
        tmp_path: Path, floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    t1, t2 = play(tmp_path / "T1.db", "T1", 3, seed=1), play(tmp_path / "T2.db", "T2", 3, seed=2)
    try:
        clean_t1 = t1.last_seq
        poison = _poisoned(t1, prefix)
        async with floor(store, (database, [floor_broker.url], prefix)) as service, \
                aiomqtt.Client("127.0.0.1", floor_broker.port) as table:
            for entry in t1.entries(0, clean_t1):
                for message in messages_for_entry(Topics(prefix, "T1"), entry, t1.journal_id):
                    await table.publish(message.topic, message.encode(), qos=1)
            for topic, payload in poison:
                await table.publish(topic, payload, qos=1)
            for entry in t2.entries():
                for message in messages_for_entry(Topics(prefix, "T2"), entry, t2.journal_id):
                    await table.publish(message.topic, message.encode(), qos=1)
            held = await until_stored(database, {"T1": clean_t1, "T2": t2.last_seq}, seconds=60)

            async def quarantined() -> list[Any]:
                async with connected(database) as connection:
                    return list(await connection.fetch("SELECT table_id, topic, reason FROM quarantine ORDER BY id"))

            async with asyncio.timeout(30):
                while len(rows := await quarantined()) < len(poison):
                    await asyncio.sleep(0.1)
            reasons = [row["reason"] for row in rows]
            assert service.counters.sessions == 1, service.counters.last_error  # the session never ended
        assert held["T2"] == (t2.last_seq, t2.last_seq)
        assert held["T1"] == (clean_t1, clean_t1)
        assert any("win_cents" in reason and "out of range" in reason for reason in reasons), reasons
        assert any("U+0000" in reason for reason in reasons), reasons
        assert any(str(2**63) in reason for reason in reasons), reasons
        assert any("not JSON" in reason for reason in reasons), reasons
        assert any("bytes (at most" in reason for reason in reasons), reasons
        assert any("the state's seq" in reason for reason in reasons), reasons
        assert any("double's range" in reason for reason in reasons), reasons
        assert any("lone surrogate" in reason for reason in reasons), reasons
        async with connected(database) as connection:
            alarms = await connection.fetch("SELECT table_id, kind, message FROM floor_alarms")
            stored_players = await connection.fetchval("SELECT count(*) FROM buy_ins WHERE player LIKE 'p-%evil'")
            state = await connection.fetchval("SELECT state_seq FROM table_state WHERE table_id = 'T1'")
        assert {(row["table_id"], row["kind"]) for row in alarms} >= {("T1", "quarantined")}
        assert all(row["table_id"] == "T1" for row in alarms if row["kind"] == "quarantined")
        assert stored_players == 0
        assert state is None or state < 2**62
    finally:
        t1.close()
        t2.close()


def test_decoding_refuses_what_no_table_sends_with_a_value_error() -> None:
    for raw in (b"[" * 100_000 + b"]" * 100_000 + b"1234567890123456789", b'{"a": NaN}', b'{"a": -Infinity}'):
        try:
            decode_payload(raw)
        except ValueError:
            continue
        raise AssertionError(f"{raw[:20]!r} decoded")
    deep: Any = 1
    for _ in range(100):
        deep = [deep]
    cases: list[tuple[dict[str, Any], str | None]] = [
        ({"a": ["x\u0000"]}, json.dumps({"a": ["x\u0000"]})), ({"k\u0000": 1}, None),
        ({"a": deep}, json.dumps({"a": deep}))]
    for payload, text in cases:
        try:
            plain(payload, text)
        except Refused:
            continue
        raise AssertionError(f"{payload!r} passed")
    plain({"a": "\\u0000 escaped, not a NUL"}, json.dumps({"a": "\\u0000 escaped, not a NUL"}))


async def test_a_value_the_store_refuses_anyway_is_found_and_quarantined_and_the_rest_stored(
        tmp_path: Path, floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    # A rule of the casino's own on its database, which the floor's bounds do not know: the store refuses the batch.
    async with connected(database) as connection:
        await connection.execute("ALTER TABLE buy_ins ADD CONSTRAINT buy_in_cap CHECK (cents <= 100000000)")
    t1, t2 = play(tmp_path / "T1.db", "T1", 2, seed=5), play(tmp_path / "T2.db", "T2", 2, seed=6)
    try:
        clean_t1 = t1.last_seq
        big = t1.append("event", {"type": "BuyInRecorded", "round": 2, "cents": 10**12, "tender": "marker", "box": 1,
                                  "player": "", "by": "supervisor"}, ts=time.time())
        async with floor(store, (database, [floor_broker.url], prefix)) as service, \
                aiomqtt.Client("127.0.0.1", floor_broker.port) as table:
            for journal, table_id in ((t1, "T1"), (t2, "T2")):
                for entry in journal.entries():
                    for message in messages_for_entry(Topics(prefix, table_id), entry, journal.journal_id):
                        await table.publish(message.topic, message.encode(), qos=1)
            held = await until_stored(database, {"T1": clean_t1, "T2": t2.last_seq}, seconds=60)
            async with asyncio.timeout(30):
                while True:
                    async with connected(database) as connection:
                        reason = await connection.fetchval("SELECT reason FROM quarantine WHERE table_id = 'T1'")
                    if reason is not None:
                        break
                    await asyncio.sleep(0.1)
            assert service.counters.sessions == 1, service.counters.last_error
        assert held["T2"] == (t2.last_seq, t2.last_seq) and held["T1"][1] == clean_t1
        assert "the store refused it" in reason and "buy_in_cap" in reason
        async with connected(database) as connection:
            assert await connection.fetchval("SELECT count(*) FROM events WHERE table_id = 'T1' AND seq = $1",
                                             big.seq) == 0
            assert await connection.fetchval("SELECT count(*) FROM floor_alarms WHERE kind = 'quarantined' "
                                             "AND table_id = 'T1'") == 1
    finally:
        t1.close()
        t2.close()
