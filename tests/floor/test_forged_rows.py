"""Only a table speaks for itself: a forged or misrouted row changes no figure of `table-floor query money`.

The table's own publisher signs its heads with its head key (feed/heads.py); the floor holds that key and counts a
row only once a signed head covers it. A forger on the broker (no ACL here: the broker's ACL is the first fence,
tests/floor/test_broker_acl.py) sends what issue 30 found counted before: a round with a right hash chained onto the
table's last row, a round with a wrong hash, a row on T1's topic naming T2, and an unsigned head naming its forged
row. Each is a floor alarm; the money is what the table played.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiomqtt

from casino_floor.config import load_config
from casino_floor.money import ShiftMoney
from casino_floor.service import FloorService
from casino_floor.shifts import Shifts
from casino_floor.store import FloorStore
from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.messages import Topics, encode_payload, event_payload
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import Secret
from table_runtime.journal import JournalEntry, encode_body, entry_hash
from tests.feed.support import settings
from tests.floor.journals import play, play_on
from tests.floor.support import connected, floor_toml
from tests.floor.test_service import following

KEY = "T1-head-key-of-at-least-16-bytes"
ROOT = Path(__file__).resolve().parents[2]


def _money(config: Path, shift: str) -> list[dict[str, Any]]:
    """`table-floor query money` as a casino runs it."""
    done = subprocess.run([sys.executable, "-m", "casino_floor", "query", "money", "--shift", shift, "--config",
                           str(config), "--format", "json"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "FLOOR_HEAD_KEY_T1": KEY})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert isinstance(result, list)
    return result


async def _signed_seq(dsn: str) -> int | None:
    async with connected(dsn) as connection:
        value = await connection.fetchval("SELECT signed_seq FROM journals WHERE table_id = 'T1'")
    return value if isinstance(value, int) else None


async def test_a_forged_or_misrouted_row_changes_no_figure_of_query_money(
        tmp_path: Path, floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    journal = play(tmp_path / "T1.db", "T1", 4, seed=3)
    config = tmp_path / "floor.toml"
    config.write_text(floor_toml(database, [floor_broker.url], prefix) + '[head_keys]\nT1 = "FLOOR_HEAD_KEY_T1"\n')
    shift = Shifts().name_of(time.time())
    try:
        last = journal.last_seq
        floor_config = load_config(config, environ={"FLOOR_HEAD_KEY_T1": KEY})
        async with following(FloorService(floor_config, store)):
            table = dataclasses.replace(settings(floor_broker.url, prefix, "T1"), head_key=Secret(KEY))
            async with FeedPublisher(table, journal) as feed, asyncio.TaskGroup() as tasks:
                publisher = tasks.create_task(feed.run())
                async with asyncio.timeout(30):
                    while await _signed_seq(database) != last:
                        await asyncio.sleep(0.1)
                publisher.cancel()
            before = _money(config, shift)
            assert before and before[0]["table_id"] == "T1" and before[0]["rounds"] == 4

            topics, ident = Topics(prefix, "T1"), journal.journal_id
            tail = next(iter(journal.entries(last - 1, 1)))
            chained = _round_row(last + 1, tail.hash, players_win_cents=100_000_000)  # the house loses 1,000,000.00
            wrong_hash = {**event_payload("T1", ident, _round_row(last + 2, chained.hash,
                                                                  players_win_cents=50_000_000)), "hash": "e" * 64}
            misrouted = event_payload("T2", ident, _round_row(1, "0" * 64, players_win_cents=7_000))
            unsigned_head = {"schema_version": 1, "table_id": "T1", "journal": ident, "seq": last + 1,
                             "ts": time.time(), "type": "JournalHead", "hash": chained.hash}
            async with aiomqtt.Client("127.0.0.1", floor_broker.port) as forger:
                for topic, payload in ((topics.events, event_payload("T1", ident, chained)),
                                       (topics.events, wrong_hash), (topics.events, misrouted),
                                       (topics.head, {**unsigned_head, "mac": "0" * 64}), (topics.head, unsigned_head)):
                    await forger.publish(topic, encode_payload(payload), qos=1)

            async def kinds() -> set[str]:
                async with connected(database) as connection:
                    return {row["kind"] for row in await connection.fetch("SELECT kind FROM floor_alarms")}

            async with asyncio.timeout(30):
                while not {"chain_broken", "misrouted", "bad_signature"} <= await kinds():
                    await asyncio.sleep(0.1)
        after = _money(config, shift)
        assert after == before
        assert await _signed_seq(database) == last
        async with connected(database) as connection:
            evidence = {(row["kind"], row["seq"]) for row in await connection.fetch("SELECT kind, seq FROM evidence")}
            t2 = await connection.fetchval("SELECT count(*) FROM events WHERE table_id = 'T2'")
            chained_stored = await connection.fetchval("SELECT count(*) FROM rounds WHERE seq = $1", last + 1)
        assert {("hash_mismatch", last + 2), ("misrouted", 1), ("bad_signature", last + 1)} <= evidence
        assert t2 == 0  # a row on T1's topic is never stored as T2's
        assert chained_stored == 1  # kept with T1's rows (its chain is right), but no signed head covers it
    finally:
        journal.close()


def _round_row(seq: int, prev_hash: str, *, players_win_cents: int) -> JournalEntry:
    """A round record row with a right hash, chained onto `prev_hash`: what anyone can make without the key."""
    body = {"round": 900 + seq, "shoe_id": "S-forged", "result": "settled", "alarms": [], "payouts": [
        {"box": 1, "hand": 0, "owner": "seat1", "kind": "original", "staked_cents": 1000, "outcome": "win",
         "net_cents": players_win_cents}]}
    ts = time.time()
    return JournalEntry(seq=seq, ts=ts, kind="round", body=body, prev_hash=prev_hash,
                        hash=entry_hash(prev_hash, seq, ts, "round", encode_body(body)))


async def test_a_row_forged_onto_a_playing_tables_end_is_set_aside_when_the_tables_own_rows_come(
        tmp_path: Path, floor_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    """The forger takes the next seq first; the table's own row of that seq is then a duplicate to the floor and
    the one after it is off the chain. The unsigned rows since the last signed head go to evidence with it, the
    floor asks the table for them, and what counts is the table's own play, round for round."""
    journal = play(tmp_path / "T1.db", "T1", 3, seed=7)
    config = tmp_path / "floor.toml"
    config.write_text(floor_toml(database, [floor_broker.url], prefix, gap_grace=0.5, replay_retry=1.0)
                      + '[head_keys]\nT1 = "FLOOR_HEAD_KEY_T1"\n')
    shift = Shifts().name_of(time.time())
    secret = "replay-secret-of-the-pit"
    table = dataclasses.replace(settings(floor_broker.url, prefix, "T1"), head_key=Secret(KEY),
                                replay_secret=Secret(secret))
    try:
        last = journal.last_seq
        floor_config = load_config(config, environ={"FLOOR_HEAD_KEY_T1": KEY, "FLOOR_REPLAY_SECRET": secret})
        async with following(FloorService(floor_config, store)):
            async with FeedPublisher(table, journal) as feed, asyncio.TaskGroup() as tasks:
                publisher = tasks.create_task(feed.run())
                async with asyncio.timeout(30):
                    while await _signed_seq(database) != last:
                        await asyncio.sleep(0.1)
                publisher.cancel()
            tail = next(iter(journal.entries(last - 1, 1)))
            forged = _round_row(last + 1, tail.hash, players_win_cents=100_000_000)
            async with aiomqtt.Client("127.0.0.1", floor_broker.port) as forger:
                await forger.publish(Topics(prefix, "T1").events,
                                     encode_payload(event_payload("T1", journal.journal_id, forged)), qos=1)
            await asyncio.to_thread(play_on, journal, "T1", 3, seed=8)  # the table plays on
            async with FeedPublisher(table, journal) as feed, asyncio.TaskGroup() as tasks:
                publisher = tasks.create_task(feed.run())
                async with asyncio.timeout(60):
                    while await _signed_seq(database) != journal.last_seq:
                        await asyncio.sleep(0.1)
                publisher.cancel()
        expected = ShiftMoney()
        for entry in journal.entries(kinds=("round",)):
            expected.add_round(entry.body)
        [money] = _money(config, shift)
        assert (money["rounds"], money["handle_cents"], money["win_cents"]) == (
            expected.rounds, expected.handle_cents, expected.win_cents)
        async with connected(database) as connection:
            assert await connection.fetchval("SELECT count(*) FROM evidence WHERE kind = 'off_chain' AND seq = $1 "
                                             "AND payload LIKE '%S-forged%'", last + 1) == 1
            assert await connection.fetchval("SELECT hash FROM events WHERE table_id = 'T1' AND seq = $1",
                                             last + 1) == next(iter(journal.entries(last, 1))).hash
    finally:
        journal.close()
