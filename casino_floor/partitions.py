"""Retention by partition: the months of the floor's large tables made ahead, and dropped past their retention.

Migration 0008 partitions the journal rows (`events`, by their ts) and the rated sessions with their round lines
(`rated_sessions`, `rated_rounds`, by the session's start) by calendar month, UTC (docs/floor.md, "Retention by
partition"). `keep` is the floor's periodic job (at start, then daily: `Retention`), also `table-floor retention`:
it makes this month's and the next `AHEAD_MONTHS` partitions, then detaches and drops each month whose last day is
past its retention, never a DELETE: a month of rated sessions once every session of it started more than
`[ratings] retention_days` ago, a month of journal rows once `[events] retention_days` (kept for ever unless set).
A month is dropped whole, so a session is kept up to a month longer than its retention, never less: the month of
December goes when its last second is older than the retention.

The SQL that makes and drops one month (moving the rows of the month out of the default partition, setting each
new partition's replica identity for the group) is the migration's (`floor_month_partitions`, `floor_drop_month`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import asyncpg

AHEAD_MONTHS: Final = 3
# Each set of tables partitioned together, a table that references another listed before it.
PARTITIONED: Final[Mapping[str, tuple[str, ...]]] = {
    "events": ("events",),
    "ratings": ("rated_rounds", "rated_sessions"),
}
# The moment each set is partitioned by, as a timestamp.
_MOMENTS: Final[Mapping[str, str]] = {"events": "to_timestamp(ts)", "ratings": "started_at"}
# The order the floor's writes take their tables in (a batch's rows, then its rated sessions, then their round
# lines): making or dropping a month locks them all first, in that order, so it waits for a batch being written
# and is never half-way into one (a deadlock, found by the service's test).
LOCK_ORDER: Final = ("events", "rated_sessions", "rated_rounds")
_MONTH: Final = re.compile(r"_(\d{4})_(\d{2})$")


def month_of(moment: float) -> dt.date:
    """The first day of the UTC month holding `moment` (seconds since the epoch)."""
    day = dt.datetime.fromtimestamp(moment, dt.UTC).date()
    return day.replace(day=1)


def add_months(month: dt.date, count: int) -> dt.date:
    index = month.year * 12 + month.month - 1 + count
    return dt.date(index // 12, index % 12 + 1, 1)


def month_end(month: dt.date) -> float:
    """The first second after `month` (seconds since the epoch)."""
    following = add_months(month, 1)
    return dt.datetime(following.year, following.month, 1, tzinfo=dt.UTC).timestamp()


async def months(connection: asyncpg.Connection, table: str) -> list[dt.date]:
    """The months `table` has a partition of, oldest first (its default partition is none)."""
    names = await connection.fetch(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass",
        table)
    found = [match for row in names if (match := _MONTH.search(row["relname"])) is not None]
    return sorted(dt.date(int(match[1]), int(match[2]), 1) for match in found)


async def waiting(connection: asyncpg.Connection, name: str) -> list[dt.date]:
    """The months of the rows waiting in the default partition of set `name` of `PARTITIONED` (years 2000 to 9998:
    a row outside stays there)."""
    moment = _MOMENTS[name]
    rows = await connection.fetch(
        f"SELECT DISTINCT date_trunc('month', {moment} AT TIME ZONE 'UTC')::date AS month "
        f"FROM {PARTITIONED[name][-1]}_default WHERE {moment} >= '2000-01-01 00:00:00+00' "
        f"AND {moment} < '9999-01-01 00:00:00+00'")
    return sorted(row["month"] for row in rows)


async def make_months(connection: asyncpg.Connection, now: float, ahead: int = AHEAD_MONTHS) -> int:
    """This month's partitions and the next `ahead` months' of every partitioned table, and those of the months
    whose rows wait in a default partition (a session published late, a backlog: moved to their month, so the
    retention drops them with it); how many were made."""
    made = 0
    first = month_of(now)
    due = {name: sorted({*(add_months(first, step) for step in range(ahead + 1)), *await waiting(connection, name)})
           for name in PARTITIONED}
    names = [f"{table}_{month:%Y_%m}" for name, tables in PARTITIONED.items() for month in due[name]
             for table in tables]
    if await connection.fetchval("SELECT count(*) FROM unnest($1::text[]) AS n (name) WHERE to_regclass(name) IS NULL",
                                 names) == 0:
        return 0  # every month there (a row waiting in a default partition has none): no lock taken
    async with connection.transaction():
        await _lock(connection)
        for name, tables in PARTITIONED.items():
            for month in due[name]:
                made += await connection.fetchval("SELECT floor_month_partitions($1::text[], $2::date)", list(tables),
                                                  month)
    return made


async def _lock(connection: asyncpg.Connection) -> None:
    await connection.execute(f"LOCK TABLE {', '.join(LOCK_ORDER)} IN ACCESS EXCLUSIVE MODE")


@dataclass(frozen=True, slots=True)
class Dropped:
    """What one drop erased: the months (first days), and the rows of the first table listed that were in them."""

    months: tuple[dt.date, ...] = ()
    rows: int = 0


async def drop_months(connection: asyncpg.Connection, tables: Sequence[str], now: float, days: int) -> Dropped:
    """Detach and drop every month of `tables` (a set of `PARTITIONED`) that ended more than `days` before `now`."""
    cutoff = now - days * 86_400
    past = [month for month in await months(connection, tables[-1]) if month_end(month) <= cutoff]
    rows = 0
    if not past:
        return Dropped()
    async with connection.transaction():
        await _lock(connection)
        for month in past:
            name = f"{tables[-1]}_{month:%Y_%m}"
            rows += await connection.fetchval(f'SELECT count(*) FROM "{name}"')
            await connection.fetchval("SELECT floor_drop_month($1::text[], $2::date)", list(tables), month)
    return Dropped(tuple(past), rows)


@dataclass(frozen=True, slots=True)
class Kept:
    """What one `keep` did: partitions made, and the months of rated sessions and of journal rows dropped."""

    made: int
    ratings: Dropped
    events: Dropped

    def summary(self) -> dict[str, Any]:
        """One row for `table-floor retention`."""
        return {"partitions_made": self.made,
                "ratings_months_dropped": " ".join(f"{month:%Y-%m}" for month in self.ratings.months),
                "rated_sessions_erased": self.ratings.rows,
                "events_months_dropped": " ".join(f"{month:%Y-%m}" for month in self.events.months),
                "journal_rows_dropped": self.events.rows}


async def keep(connection: asyncpg.Connection, now: float, *, ratings_days: int | None,
               events_days: int | None = None) -> Kept:
    """The months ahead made, and the months past each retention dropped (None: that one is kept for ever)."""
    made = await make_months(connection, now)
    ratings = (await drop_months(connection, PARTITIONED["ratings"], now, ratings_days)
               if ratings_days is not None else Dropped())
    events = (await drop_months(connection, PARTITIONED["events"], now, events_days)
              if events_days is not None else Dropped())
    return Kept(made, ratings, events)
