"""Retention by partition on a real PostgreSQL: migration 0008 moves a store's rows into month partitions, a month
past its retention is detached and dropped (never a DELETE) and the other months and the queries are as before."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

import asyncpg

from casino_floor import partitions, queries, rating_queries
from casino_floor.ingest import Ingest
from casino_floor.migrate import migrate, migrations
from casino_floor.partitions import keep, make_months, months
from casino_floor.ratings import parse_rating, write_ratings
from casino_floor.shifts import Shifts
from casino_floor.store import FloorStore
from tests.floor.rating_messages import Played, session_messages
from tests.floor.support import connected, floor_toml, store_messages
from tests.floor.test_money_migration import played

SHIFTS = Shifts((6, 14, 22))
ROUNDS = [Played("r1", 5000, -5000, 26, 31), Played("r2", 10000, 10000, 52, 118)]
OCT, NOV, DEC = (dt.datetime(2026, month, 10, 20, tzinfo=dt.UTC) for month in (10, 11, 12))


def sessions() -> list[dict[str, Any]]:
    """Three closed sessions, one each in October, November and December 2026, and one left open in November."""
    return [*session_messages("T01", 10, "p-october0001", 1, OCT, ROUNDS),
            *session_messages("T01", 20, "p-november001", 2, NOV, ROUNDS),
            *session_messages("T02", 30, None, 3, NOV + dt.timedelta(days=5), ROUNDS, close=False),
            *session_messages("T01", 40, "p-december001", 4, DEC, ROUNDS)]


async def at_0007(connection: asyncpg.Connection) -> None:
    """The floor's schema as it was released before the partitions: migrations 0001 to 0007."""
    await connection.execute("CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, "
                             "applied_at timestamptz NOT NULL DEFAULT now())")
    for migration in migrations()[:7]:
        await connection.execute(migration.sql)
        await connection.execute("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", migration.version,
                                 migration.name)


async def partition_of(connection: asyncpg.Connection, table: str, key: str) -> dict[Any, str]:
    return {row[0]: row[1] for row in await connection.fetch(f"SELECT {key}, tableoid::regclass::text FROM {table}")}


async def no_delete(connection: asyncpg.Connection) -> None:
    """A trigger that fails any DELETE of a rated session, a round line or a journal row: the retention runs none."""
    await connection.execute(
        "CREATE FUNCTION refuse_delete() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN RAISE EXCEPTION 'DELETE FROM %', TG_TABLE_NAME; END $$")
    for table in ("rated_sessions", "rated_rounds", "events"):
        await connection.execute(f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} FOR EACH ROW "
                                 "EXECUTE FUNCTION refuse_delete()")


async def test_a_store_of_0007_is_migrated_into_month_partitions_with_every_row(tmp_path: Path,
                                                                                database: str) -> None:
    messages = played(tmp_path)  # a real journal played in January 2027
    extra = [("T09", "", seq, ts) for seq, ts in ((1, OCT.timestamp()), (2, NOV.timestamp()), (3, 5.0))]  # 1970
    async with connected(database) as connection:
        await at_0007(connection)
        await connection.executemany(
            "INSERT INTO events (table_id, journal, seq, ts, kind, type, body, prev_hash, hash) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            [("T01", p["journal"], p["seq"], p["ts"], p["kind"], p["type"], json.dumps(p["body"]), p["prev_hash"],
              p["hash"]) for _, p in messages]
            + [(*row, "event", "Note", "{}", "0" * 64, "1" * 64) for row in extra])
        await write_ratings(connection, [parse_rating(message) for message in sessions()])
        before = {table: await connection.fetch(f"SELECT * FROM {table} ORDER BY 1, 2, 3")
                  for table in ("events", "rated_sessions", "rated_rounds")}
        assert await migrate(connection) == [migration.version for migration in migrations()][7:]  # 0008 on
        after = {table: await connection.fetch(f"SELECT * FROM {table} ORDER BY 1, 2, 3") for table in before}
        assert {table: [dict(row) for row in rows] for table, rows in after.items()} == {
            table: [dict(row) for row in rows] for table, rows in before.items()}
        assert len(after["events"]) == len(messages) + 3 and len(after["rated_rounds"]) == 8
        where = await partition_of(connection, "events", "(table_id, seq)")
        assert {where[("T09", 1)], where[("T09", 2)], where[("T09", 3)]} == {
            "events_2026_10", "events_2026_11", "events_default"}  # a clock at 1970 waits in the default partition
        assert {where[("T01", p["seq"])] for _, p in messages} == {"events_2027_01"}
        sessions_at = await partition_of(connection, "rated_sessions", "session")
        assert sessions_at == {"T01-10": "rated_sessions_2026_10", "T01-20": "rated_sessions_2026_11",
                               "T02-30": "rated_sessions_2026_11", "T01-40": "rated_sessions_2026_12"}
        assert set((await partition_of(connection, "rated_rounds", "(session, round_id)")).values()) == {
            "rated_rounds_2026_10", "rated_rounds_2026_11", "rated_rounds_2026_12"}
        # Each new partition carries the group's key as its replica identity (an update still finds its row there).
        identities = await connection.fetch(
            "SELECT c.relname, c.relreplident, i.indkey::text FROM pg_class c JOIN pg_inherits h ON h.inhrelid = c.oid "
            "LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisreplident "
            "WHERE h.inhparent = 'rated_sessions'::regclass")
        assert identities and all(row["relreplident"] == b"i" and row["indkey"] for row in identities)
    # The floor opens the migrated store and finds nothing left to apply.
    store = await FloorStore.open(database)
    await store.close()


async def test_a_month_past_the_retention_is_dropped_and_the_others_answer_as_before(store: FloorStore,
                                                                                    database: str) -> None:
    async with connected(database) as connection:  # the service made each month ahead of time, as it does
        await make_months(connection, OCT.timestamp(), ahead=2)
    await store_messages(store, Ingest(), [("ratings", message) for message in sessions()], now=0.0)
    async with connected(database) as connection:
        await no_delete(connection)
        start, end = OCT.timestamp() - 86_400, DEC.timestamp() + 86_400
        before = await rating_queries.ratings(connection, SHIFTS, "player", start, end)
        # 2027-01-15 with 30 days: the cutoff is 2026-12-16; October and November ended before it, December not.
        now = dt.datetime(2027, 1, 15, tzinfo=dt.UTC).timestamp()
        kept = await keep(connection, now, ratings_days=30)
        assert kept.ratings.months == (dt.date(2026, 10, 1), dt.date(2026, 11, 1)) and kept.ratings.rows == 3
        assert kept.events.months == ()  # journal rows: kept for ever unless configured
        assert await connection.fetchval("SELECT string_agg(session, ',' ORDER BY session) FROM rated_sessions") == (
            "T01-40")
        assert await connection.fetchval("SELECT count(*) FROM rated_rounds") == 2
        assert await rating_queries.ratings(connection, SHIFTS, "player", start, end) == [
            row for row in before if row["player"] == "p-december001"]
        for table in ("rated_sessions", "rated_rounds"):
            names = {row[0] for row in await connection.fetch(
                "SELECT relname FROM pg_class WHERE relname LIKE $1 AND relkind = 'r'", f"{table}_2026_1%")}
            assert names == {f"{table}_2026_12"}  # detached and dropped, not left behind
        # This month and the next three made ahead of time (February to April 2027 by now), and again: nothing.
        assert await months(connection, "rated_sessions") == [
            dt.date(2026, 12, 1), *(dt.date(2027, month, 1) for month in range(1, 5))]
        assert await make_months(connection, now) == 0
        again = await keep(connection, now, ratings_days=30)
        assert again.ratings.months == () and again.made == 0


async def test_journal_rows_are_kept_unless_a_retention_is_set_then_dropped_by_month(tmp_path: Path, store: FloorStore,
                                                                                    database: str) -> None:
    messages = played(tmp_path)  # January 2027
    await store_messages(store, Ingest(), messages, now=0.0)
    async with connected(database) as connection:
        rows = await connection.fetchval("SELECT count(*) FROM events")
        await partitions.make_months(connection, NOV.timestamp(), ahead=0)
        await connection.execute(  # an older month of another table, as the floor held it
            "INSERT INTO events (table_id, journal, seq, ts, kind, type, body, prev_hash, hash) "
            "VALUES ('T09', '', 1, $1, 'event', 'Note', '{}', $2, $3)", NOV.timestamp(), "0" * 64, "1" * 64)
        await no_delete(connection)
        assert await connection.fetchval("SELECT tableoid::regclass::text FROM events WHERE table_id = 'T09'") == (
            "events_2026_11")
        verified = await queries.verify_chain(connection, "T01")
        now = dt.datetime(2027, 3, 1, tzinfo=dt.UTC).timestamp()
        assert (await keep(connection, now, ratings_days=None)).events.months == ()
        kept = await keep(connection, now, ratings_days=None, events_days=60)  # cutoff: 2026-12-31
        assert kept.events.months == (dt.date(2026, 11, 1),) and kept.events.rows == 1
        assert await connection.fetchval("SELECT count(*) FROM events") == rows
        assert await queries.verify_chain(connection, "T01") == verified  # January's journal checks as before


async def test_a_row_of_a_month_not_made_yet_waits_in_the_default_partition_and_moves_when_it_is_made(
        store: FloorStore, database: str) -> None:
    far = dt.datetime(2031, 6, 1, 12, tzinfo=dt.UTC)  # a table's clock years ahead: stored, not refused
    late = session_messages("T03", 5, "p-farfuture01", 1, far, ROUNDS)
    await store_messages(store, Ingest(), [("ratings", message) for message in late], now=0.0)
    async with connected(database) as connection:
        assert set((await partition_of(connection, "rated_sessions", "session")).values()) == {
            "rated_sessions_default"}
        before = await connection.fetch("SELECT * FROM rated_rounds ORDER BY round_id")
        await make_months(connection, far.timestamp(), ahead=0)
        assert await partition_of(connection, "rated_sessions", "session") == {"T03-5": "rated_sessions_2031_06"}
        assert set((await partition_of(connection, "rated_rounds", "round_id")).values()) == {"rated_rounds_2031_06"}
        assert await connection.fetch("SELECT * FROM rated_rounds ORDER BY round_id") == before


async def test_the_retention_command_runs_the_upkeep_once_and_says_what_it_did(tmp_path: Path, store: FloorStore,
                                                                               database: str) -> None:
    config = tmp_path / "floor.toml"
    config.write_text(floor_toml(database, ["mqtt://127.0.0.1:1883"], "casino") + "[events]\nretention_days = 30\n",
                      encoding="utf-8")
    async with connected(database) as connection:
        await make_months(connection, dt.datetime(2026, 1, 10, tzinfo=dt.UTC).timestamp(), ahead=0)
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "casino_floor", "retention", "--config",
                                                   str(config), "--format", "json", stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    [done] = json.loads(out)
    assert done["events_months_dropped"] == "2026-01" and done["journal_rows_dropped"] == 0
    async with connected(database) as connection:
        assert dt.date(2026, 1, 1) not in await months(connection, "events")
