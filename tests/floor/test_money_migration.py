"""Migration 0002 on a real PostgreSQL: a store written by the floor before it (rounds with the stake sum called
`drop_cents`, a table's buy-ins already in `events`) keeps every value under its right name (`handle_cents`),
derives the buy-ins, and the floor then answers the money questions as finance names them."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from casino_floor import queries
from casino_floor.ingest import Ingest
from casino_floor.migrate import migrate, migrations
from casino_floor.shifts import Shifts
from casino_floor.store import FloorStore
from simulators.fast_table import FastTable
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from tests.floor.journals import feed_messages
from tests.floor.support import connected, store_messages

START = 1_800_000_000.0  # 2027-01-15T08:00Z, in the shift that starts at 06:00
SHIFTS = Shifts((6, 14, 22))


def played(directory: Path) -> list[tuple[str, dict[str, object]]]:
    """A real journal: a buy-in, 8 rounds of the fast table, a marker: its `events` messages."""
    with Journal.open(journal_path(directory)) as journal:
        ticks = itertools.count()
        controller = TableController(table_id="T01", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: START + next(ticks))
        assert controller.press("BUY_IN", {"cents": 30_000}, role="dealer", source="display")["ok"]
        FastTable(controller, seed=3, error_rate=0.0).run(8)
        assert controller.press("BUY_IN", {"cents": 100_000, "tender": "marker", "box": 2}, role="dealer",
                                source="display")["ok"]
        return [(name, payload) for _, name, payload in feed_messages(journal, "casino", "T01") if name == "events"]


async def test_a_store_of_the_earlier_release_is_migrated_with_its_data(tmp_path: Path, database: str) -> None:
    messages = played(tmp_path)
    rounds = [payload for _, payload in messages if payload["kind"] == "round"]
    async with connected(database) as connection:  # the floor as it was released: migration 0001 only
        await connection.execute("CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, "
                                 "applied_at timestamptz NOT NULL DEFAULT now())")
        first = migrations()[0]
        await connection.execute(first.sql)
        await connection.execute("INSERT INTO schema_migrations (version, name) VALUES (1, $1)", first.name)
        await connection.executemany(
            "INSERT INTO events (table_id, journal, seq, ts, kind, type, body, prev_hash, hash) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            [("T01", p["journal"], p["seq"], p["ts"], p["kind"], p["type"], json.dumps(p["body"]), p["prev_hash"],
              p["hash"]) for _, p in messages])
        await connection.execute(  # a row whose amount is not a number (a forged one): kept, counts nothing
            "INSERT INTO events (table_id, journal, seq, ts, kind, type, body, prev_hash, hash) VALUES "
            "('T09', '', 1, $1, 'event', 'BuyInRecorded', '{\"type\": \"BuyInRecorded\", \"cents\": \"lots\"}', "
            "$2, $3)", START, "0" * 64, "1" * 64)
        old = {}  # what the earlier floor wrote as drop_cents: the sum of every stake
        for payload in rounds:
            record = payload["body"]
            assert isinstance(record, dict)
            old[record["round"]] = sum(p["staked_cents"] for p in record["payouts"])
            await connection.execute(
                "INSERT INTO rounds (table_id, journal, round, seq, ts, result, shoe_id, drop_cents, win_cents, "
                "record) VALUES ('T01', $1, $2, $3, $4, $5, 'S', $6, $7, $8::jsonb)", payload["journal"],
                record["round"], payload["seq"], payload["ts"], record["result"], old[record["round"]],
                -sum(p["net_cents"] for p in record["payouts"]), json.dumps(record))
        assert len(old) == 8 and sum(old.values()) > 0

        assert await migrate(connection) == [migration.version for migration in migrations()][1:]  # 0002 on
        columns = {row["column_name"] for row in await connection.fetch(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'rounds'")}
        assert "handle_cents" in columns and "drop_cents" not in columns
        migrated = {row["round"]: row["handle_cents"] for row in await connection.fetch(
            "SELECT round, handle_cents FROM rounds")}
        assert migrated == old
        buy_ins = [tuple(row) for row in await connection.fetch(
            "SELECT round, cents, tender, box, player, by_role FROM buy_ins ORDER BY seq")]
        assert buy_ins == [(0, 30_000, "cash", None, "", "dealer"), (8, 100_000, "marker", 2, "", "dealer")]
        money = await queries.shift_money(connection, SHIFTS, SHIFTS.name_of(START))
    win = -sum(p["net_cents"] for r in rounds for p in r["body"]["payouts"])  # type: ignore[index]
    assert money == [{"shift": "2027-01-15T06", "table_id": "T01", "rounds": 8, "handle_cents": sum(old.values()),
                      "buy_ins": 2, "drop_cents": 130_000, "win_cents": win,
                      "hold_pct": round(100 * win / 130_000, 2),
                      "win_to_handle_pct": round(100 * win / sum(old.values()), 2)}]  # T09: nothing

    # The floor of this release opens the migrated store and takes the same rows again: nothing counts twice.
    store = await FloorStore.open(database)
    try:
        await store_messages(store, Ingest(await store.load_tracks()), messages, now=START + 100)
        async with store.pool.acquire() as connection:
            again = await queries.shift_money(connection, SHIFTS, SHIFTS.name_of(START))
            assert await connection.fetchval("SELECT count(*) FROM buy_ins") == 2
    finally:
        await store.close()
    assert again == money
