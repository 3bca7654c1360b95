"""The group: every casino's floor replicates its compact facts into one group database (docs/floor.md, "The group").

PostgreSQL's own logical replication carries them: each casino's floor database has a publication of the
facts (`GROUP_TABLES`: rounds, buy-ins, alarms and their clears, rated sessions and their rounds, the floor's
alarms, and each journal's bookkeeping, whose signed prefix says which rows count), read by a replicator role
that may do nothing else; the group's database has one subscription per casino. The raw journal rows (`events`),
the tables' states, the quarantine and the evidence stay in the casino.

- `setup` (idempotent, `table-floor group setup`): at each casino, the floor's migrations, its name in every fact
  row (`floor_casino`, the `casino_id` columns' default, the rows stored before), the replicator role with
  SELECT on the facts alone, the publication; at the group, the floor's schema with the casino in every key, the
  list of casinos, and a subscription per casino not subscribed yet (which first copies what the casino holds:
  a casino added later backfills).
- `status` (`table-floor group status`): per casino, whether its subscription runs, the tables still copying,
  how far the group is behind the casino's WAL (bytes, from the casino's replication slot) and how long ago the
  group last heard from it.

A cut link (a network, the group's server down) holds the casino's changes in its replication slot; the
subscription takes them up where it stopped, in commit order, so nothing is missing or doubled.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Final

import asyncpg

from casino_floor.group_config import Casino, GroupConfig
from casino_floor.migrate import migrate
from casino_floor.partitions import Kept, keep, make_months
from table_runtime.errors import ConfigError

PUBLICATION: Final = "floor_group"
REPLICATOR: Final = "floor_group_replicator"
# Each replicated table and its key at the floor; the group's key is the casino, then that key (0005_group_keys.sql).
GROUP_TABLES: Final[Mapping[str, tuple[str, ...]]] = {
    "rounds": ("table_id", "journal", "round"),
    "buy_ins": ("table_id", "journal", "seq"),
    "alarms": ("table_id", "journal", "alarm_id"),
    "alarm_clears": ("table_id", "journal", "alarm_id"),
    "rated_sessions": ("table_id", "session", "started_at"),
    "rated_rounds": ("table_id", "session", "started_at", "round_id"),
    "floor_alarms": ("id",),
    "journals": ("table_id", "journal"),  # their signed prefix: what of a table's rows counts in the money
}


class GroupError(ConfigError):
    """The group cannot be set up as configured (a casino named otherwise already, a database that is no floor)."""


def subscription_name(casino_id: str) -> str:
    return f"floor_group_{casino_id}"


def _literal(text: str) -> str:
    """`text` as an SQL string literal (DDL such as CREATE SUBSCRIPTION takes no parameters)."""
    return "'" + text.replace("'", "''") + "'"


async def _connect(dsn: str, password: Any) -> asyncpg.Connection:
    return await asyncpg.connect(dsn, password=password.reveal() if password is not None else None)


async def name_casino(connection: asyncpg.Connection, casino_id: str) -> int:
    """The casino's name on its floor's facts: refused if the database already names another casino; the rows stored
    before it was named get it. How many rows were named now."""
    async with connection.transaction():
        named = await connection.fetchval("SELECT casino_id FROM floor_casino")
        if named is not None and named != casino_id:
            raise GroupError("group.casinos", f"this floor's database belongs to casino {named!r}, not {casino_id!r}")
        if named is None:
            await connection.execute("INSERT INTO floor_casino (casino_id) VALUES ($1)", casino_id)
        renamed = 0
        for table in GROUP_TABLES:
            await connection.execute(f"ALTER TABLE {table} ALTER COLUMN casino_id SET DEFAULT {_literal(casino_id)}")
            status = await connection.execute(f"UPDATE {table} SET casino_id = $1 WHERE casino_id = ''", casino_id)
            renamed += int(status.split()[-1])
    return renamed


async def setup_casino(connection: asyncpg.Connection, casino_id: str, replication_password: str | None) -> int:
    """One casino's side: the floor's schema, its name on its facts, the replicator and the publication."""
    await migrate(connection)
    renamed = await name_casino(connection, casino_id)
    tables = ", ".join(GROUP_TABLES)
    async with connection.transaction():
        if not await connection.fetchval("SELECT 1 FROM pg_roles WHERE rolname = $1", REPLICATOR):
            await connection.execute(f"CREATE ROLE {REPLICATOR} WITH LOGIN REPLICATION")
        if replication_password is not None:
            await connection.execute(f"ALTER ROLE {REPLICATOR} WITH PASSWORD {_literal(replication_password)}")
        await connection.execute(f"GRANT USAGE ON SCHEMA public TO {REPLICATOR}")
        await connection.execute(f"GRANT SELECT ON {tables} TO {REPLICATOR}")
        # The partitioned tables (0008) published as their root: the group sees one table whatever the casino's months.
        if await connection.fetchval("SELECT 1 FROM pg_publication WHERE pubname = $1", PUBLICATION):
            await connection.execute(f"ALTER PUBLICATION {PUBLICATION} SET TABLE {tables}")
            await connection.execute(f"ALTER PUBLICATION {PUBLICATION} SET (publish_via_partition_root = true)")
        else:
            await connection.execute(f"CREATE PUBLICATION {PUBLICATION} FOR TABLE {tables} "
                                     "WITH (publish_via_partition_root = true)")
    return renamed


async def setup_group_schema(connection: asyncpg.Connection) -> None:
    """The group's side: the floor's tables, each replicated one keyed by the casino first, and the casinos' list."""
    await migrate(connection)
    async with connection.transaction():
        # The casino checks its own foreign keys; at the group a table's first copy may land before another's (a
        # partitioned key's own row: its partitions' copies go with it).
        for constraint in await connection.fetch(
                "SELECT conrelid::regclass::text AS tab, conname FROM pg_constraint WHERE contype = 'f' "
                "AND conparentid = 0 AND conrelid::regclass::text = ANY($1::text[])", list(GROUP_TABLES)):
            await connection.execute(f"ALTER TABLE {constraint['tab']} DROP CONSTRAINT {constraint['conname']}")
        for table, key in GROUP_TABLES.items():
            primary = await connection.fetchrow(
                "SELECT c.conname, array_agg(a.attname::text ORDER BY k.ord) AS columns FROM pg_constraint c "
                "CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord) "
                "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum "
                "WHERE c.conrelid = $1::regclass AND c.contype = 'p' GROUP BY c.conname", table)
            if primary is not None and primary["columns"] == ["casino_id", *key]:
                continue
            if primary is not None:
                await connection.execute(f"ALTER TABLE {table} DROP CONSTRAINT {primary['conname']}")
            await connection.execute(f"ALTER TABLE {table} ADD PRIMARY KEY (casino_id, {', '.join(key)})")
        await connection.execute(
            "CREATE TABLE IF NOT EXISTS group_casinos (casino_id text PRIMARY KEY, publisher text NOT NULL, "
            "added_at timestamptz NOT NULL DEFAULT now())")
    await make_months(connection, time.time())  # the group's months ahead, as a floor's service makes its own


def publisher_conninfo(casino: Casino, replication_password: str | None) -> str:
    words = [casino.publisher, f"user={REPLICATOR}"]
    if replication_password is not None:
        words.append(f"password={_literal(replication_password)}")
    return " ".join(words)


async def subscribe(connection: asyncpg.Connection, casino: Casino, replication_password: str | None) -> bool:
    """The group's subscription to one casino (True: made now, copying what the casino holds first)."""
    name = subscription_name(casino.casino_id)
    await connection.execute(
        "INSERT INTO group_casinos (casino_id, publisher) VALUES ($1, $2) "
        "ON CONFLICT (casino_id) DO UPDATE SET publisher = excluded.publisher", casino.casino_id, casino.publisher)
    conninfo = _literal(publisher_conninfo(casino, replication_password))
    if await connection.fetchval("SELECT 1 FROM pg_subscription WHERE subname = $1", name):
        await connection.execute(f"ALTER SUBSCRIPTION {name} CONNECTION {conninfo}")
        return False
    # Not in a transaction: CREATE SUBSCRIPTION makes the casino's replication slot.
    await connection.execute(f"CREATE SUBSCRIPTION {name} CONNECTION {conninfo} PUBLICATION {PUBLICATION} "
                             "WITH (copy_data = true)")
    return True


async def setup(config: GroupConfig) -> list[dict[str, Any]]:
    """Every casino of the configuration published and subscribed; one row per casino saying what was done."""
    replication_password = config.replication_password.reveal() if config.replication_password else None
    done: list[dict[str, Any]] = []
    for casino in config.casinos:
        connection = await _connect(casino.dsn, casino.password)
        try:
            renamed = await setup_casino(connection, casino.casino_id, replication_password)
        finally:
            await connection.close()
        done.append({"casino_id": casino.casino_id, "rows_named": renamed})
    group = await _connect(config.dsn, config.password)
    try:
        await setup_group_schema(group)
        for row in done:
            row["subscribed_now"] = await subscribe(group, config.casino(row["casino_id"]), replication_password)
    finally:
        await group.close()
    return done


async def retention(config: GroupConfig, ratings_days: int, now: float) -> Kept:
    """The group's own retention (`table-floor group retention`): a casino's dropped months are DDL, which logical
    replication does not carry, so the group drops its months of rated sessions past `ratings_days` itself."""
    if ratings_days < 1:
        raise GroupError("--ratings-days", "a whole number of days above 0")
    connection = await _connect(config.dsn, config.password)
    try:
        return await keep(connection, now, ratings_days=ratings_days)
    finally:
        await connection.close()


async def _slot_lag(casino: Casino) -> int | None:
    """Bytes of the casino's WAL its group subscription has not confirmed (None: the casino cannot be reached)."""
    try:
        connection = await _connect(casino.dsn, casino.password)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
        return None
    try:
        lag = await connection.fetchval(
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint FROM pg_replication_slots "
            "WHERE slot_name = $1", subscription_name(casino.casino_id))
        return int(lag) if lag is not None else None
    finally:
        await connection.close()


async def status(config: GroupConfig, *, now: float | None = None) -> list[dict[str, Any]]:
    """Per casino: its subscription enabled and running, tables still copying, lag in bytes and in seconds."""
    moment = time.time() if now is None else now
    group = await _connect(config.dsn, config.password)
    try:
        rows = []
        for casino in config.casinos:
            name = subscription_name(casino.casino_id)
            subscription = await group.fetchrow(
                "SELECT s.oid, s.subenabled, st.pid, extract(epoch FROM st.last_msg_receipt_time)::float8 AS heard "
                "FROM pg_subscription s LEFT JOIN pg_stat_subscription st ON st.subid = s.oid AND st.relid IS NULL "
                "WHERE s.subname = $1", name)
            if subscription is None:
                rows.append({"casino_id": casino.casino_id, "subscribed": False, "enabled": False, "running": False,
                             "tables_copying": None, "lag_bytes": None, "last_heard_s": None})
                continue
            copying = await group.fetchval("SELECT count(*) FROM pg_subscription_rel WHERE srsubid = $1 "
                                           "AND srsubstate <> 'r'", subscription["oid"])
            heard = subscription["heard"]
            rows.append({"casino_id": casino.casino_id, "subscribed": True, "enabled": subscription["subenabled"],
                         "running": subscription["pid"] is not None, "tables_copying": int(copying),
                         "lag_bytes": await _slot_lag(casino),
                         "last_heard_s": round(max(0.0, moment - heard), 1) if heard is not None else None})
        return rows
    finally:
        await group.close()
