"""Schema migrations: casino_floor/migrations/NNNN_name.sql, applied in order, each once, each in a transaction.

The applied versions are rows of ``schema_migrations``; an advisory lock lets two floor processes start at once.
A migration is never edited once released: a change is a new file with the next number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import asyncpg

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_LOCK = 0x6C6F6F72  # advisory lock key of the migrations


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """Every migration shipped with the package, in version order."""
    found = []
    for item in resources.files("casino_floor.migrations").iterdir():
        match = _NAME.match(item.name)
        if match:
            found.append(Migration(int(match[1]), match[2], item.read_text(encoding="utf-8")))
    found.sort(key=lambda migration: migration.version)
    versions = [migration.version for migration in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 0001, 0002, ... without holes: {versions}")
    return found


async def migrate(connection: asyncpg.Connection) -> list[int]:
    """Apply the migrations not applied yet; the versions applied now."""
    applied_now: list[int] = []
    await connection.execute("SELECT pg_advisory_lock($1)", _LOCK)
    try:
        await connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, "
                                 "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
        done = {row["version"] for row in await connection.fetch("SELECT version FROM schema_migrations")}
        for migration in migrations():
            if migration.version in done:
                continue
            async with connection.transaction():
                await connection.execute(migration.sql)
                await connection.execute("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                                         migration.version, migration.name)
            applied_now.append(migration.version)
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", _LOCK)
    return applied_now
