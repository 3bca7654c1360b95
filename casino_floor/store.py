"""The floor's store in PostgreSQL (asyncpg): each batch in one transaction, idempotent, so at-least-once is enough.

Rows are upserted on (table_id, journal, seq) with ON CONFLICT DO NOTHING; a row delivered twice, or replayed,
is stored once. The batch also writes what the questions read (rounds, alarms and their acknowledgements,
buy-ins, derived from the rows' kinds and types), the latest status and state of each table, the journals'
contiguous prefix and head (`JournalTrack`), and the floor alarms raised or cleared. Rows go in by COPY into a
temporary table, then one ``INSERT ... SELECT ... ON CONFLICT DO NOTHING``: measured against one INSERT over
``unnest`` arrays and against executemany (``python -m bench.floor_store``; bench/README.md), COPY was the fastest.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import asyncpg

from casino_floor.derived import write_derived
from casino_floor.integrity import FloorAlarm, JournalTrack, Row
from casino_floor.migrate import migrate
from casino_floor.ratings import RatingMessage, write_ratings
from casino_floor.set_aside import Demoted, SetAside

WriteMethod = Literal["unnest", "copy", "executemany"]
_COLUMNS = ("table_id", "journal", "seq", "ts", "kind", "type", "body", "prev_hash", "hash")
_ROW_COLUMNS = len(_COLUMNS)  # a `Row` begins with these fields, in this order (tests/floor/test_store.py)
_UNNEST = ("INSERT INTO events (table_id, journal, seq, ts, kind, type, body, prev_hash, hash) "
           "SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::float8[], $5::text[], $6::text[], "
           "$7::text[], $8::text[], $9::text[]) ON CONFLICT DO NOTHING")
_VALUES = ("INSERT INTO events (table_id, journal, seq, ts, kind, type, body, prev_hash, hash) "
           "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING")


@dataclass(frozen=True, slots=True)
class StoredCheckpoint:
    """A table's sealed checkpoint as the feed carried it (docs/feed/schemas/checkpoint.json)."""

    table_id: str
    journal: str
    seq: int
    chain_hash: str
    state: str
    seal: str


@dataclass
class Batch:
    """What one transaction writes."""

    rows: list[Row] = field(default_factory=list)
    # What the questions read, made from those rows at ingest (casino_floor/derived.py): rows by table.
    derived: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)
    states: dict[str, tuple[str, int, dict[str, Any]]] = field(default_factory=dict)  # table -> (journal, seq, p)
    statuses: dict[str, dict[str, Any]] = field(default_factory=dict)
    tracks: list[JournalTrack] = field(default_factory=list)
    alarms: list[FloorAlarm] = field(default_factory=list)
    ratings: list[RatingMessage] = field(default_factory=list)  # the tables' rated sessions (casino_floor/ratings.py)
    set_aside: list[SetAside] = field(default_factory=list)  # quarantined, and evidence (set_aside.py)
    demoted: list[Demoted] = field(default_factory=list)  # stored rows found off the chain: moved to evidence
    checkpoints: list[StoredCheckpoint] = field(default_factory=list)  # the tables' sealed checkpoints

    def __len__(self) -> int:
        return (len(self.rows) + len(self.states) + len(self.statuses) + len(self.tracks) + len(self.alarms)
                + len(self.ratings) + len(self.set_aside) + len(self.demoted) + len(self.checkpoints))


async def _prepare(connection: asyncpg.Connection) -> None:
    """Each pooled connection's own staging table for COPY (emptied by every commit)."""
    await connection.execute("CREATE TEMP TABLE IF NOT EXISTS events_in (LIKE events INCLUDING DEFAULTS) "
                             "ON COMMIT DELETE ROWS")


class FloorStore:
    """A pool of connections to the floor's database; `write` one `Batch` per transaction."""

    def __init__(self, pool: asyncpg.Pool, *, method: WriteMethod = "copy") -> None:
        self.pool = pool
        self.method = method

    @classmethod
    async def open(cls, dsn: str, *, password: str | None = None, method: WriteMethod = "copy",
                   size: int = 4) -> FloorStore:
        """Connect and bring the schema up to date."""
        connection = await asyncpg.connect(dsn, password=password)
        try:
            await migrate(connection)
        finally:
            await connection.close()
        pool = await asyncpg.create_pool(dsn, password=password, min_size=1, max_size=size, init=_prepare)
        return cls(pool, method=method)

    async def close(self) -> None:
        await self.pool.close()

    async def write(self, batch: Batch) -> None:
        async with self.pool.acquire() as connection, connection.transaction():
            if batch.rows:
                await self._insert_rows(connection, batch.rows)
                await write_derived(connection, batch.derived)
            for table_id, (journal, seq, payload) in batch.states.items():
                await connection.execute(
                    "INSERT INTO table_state (table_id, journal, state_seq, state) VALUES ($1, $2, $3, $4::jsonb) "
                    "ON CONFLICT (table_id) DO UPDATE SET journal = excluded.journal, state_seq = excluded.state_seq,"
                    " state = excluded.state, updated_at = now() WHERE table_state.state_seq IS NULL "
                    "OR table_state.journal IS DISTINCT FROM excluded.journal "
                    "OR excluded.state_seq >= table_state.state_seq", table_id, journal, seq, json.dumps(payload))
            for table_id, payload in batch.statuses.items():
                await connection.execute(
                    "INSERT INTO table_state (table_id, status) VALUES ($1, $2::jsonb) ON CONFLICT (table_id) "
                    "DO UPDATE SET status = excluded.status, updated_at = now()", table_id, json.dumps(payload))
            if batch.demoted:
                await self._demote(connection, batch.demoted)
            if batch.set_aside:
                await self._set_aside(connection, batch.set_aside)
            if batch.tracks:
                await connection.executemany(
                    "INSERT INTO journals (table_id, journal, contiguous_seq, contiguous_hash, max_seq, head_seq, "
                    "head_hash, head_ts, signed_seq, signed_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
                    "ON CONFLICT (table_id, journal) "
                    "DO UPDATE SET contiguous_seq = excluded.contiguous_seq, "
                    "contiguous_hash = excluded.contiguous_hash, max_seq = excluded.max_seq, "
                    "head_seq = excluded.head_seq, head_hash = excluded.head_hash, "
                    "head_ts = excluded.head_ts, signed_seq = excluded.signed_seq, signed_hash = excluded.signed_hash",
                    [(t.table_id, t.journal, t.contiguous_seq, t.contiguous_hash, t.max_seq, t.head_seq, t.head_hash,
                      t.head_ts, t.signed_seq, t.signed_hash) for t in batch.tracks])
                await connection.executemany(
                    "UPDATE floor_alarms SET cleared_at = now() WHERE table_id = $1 AND journal = $2 "
                    "AND kind = 'gap' AND cleared_at IS NULL AND last_seq <= $3",
                    [(t.table_id, t.journal, t.contiguous_seq) for t in batch.tracks])
            if batch.alarms:
                await self._raise(connection, batch.alarms)
            if batch.checkpoints:
                await connection.executemany(
                    "INSERT INTO checkpoints (table_id, journal, seq, chain_hash, state, seal) "
                    "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                    [(c.table_id, c.journal, c.seq, c.chain_hash, c.state, c.seal) for c in batch.checkpoints])
            await write_ratings(connection, batch.ratings)

    async def _insert_rows(self, connection: asyncpg.Connection, rows: Sequence[Row]) -> None:
        records = [row[:_ROW_COLUMNS] for row in rows]  # a `Row` begins with the columns, in their order
        if self.method == "unnest":
            await connection.execute(_UNNEST, *([record[i] for record in records] for i in range(len(_COLUMNS))))
        elif self.method == "executemany":
            await connection.executemany(_VALUES, records)
        else:
            # The ingest sends only rows the floor does not hold (`JournalTrack.is_new`): COPY straight into `events`
            # (one pass, not two), under a savepoint; a row stored meanwhile by another process (two floors on one
            # table) fails that COPY, and the batch goes through the staging table and ON CONFLICT DO NOTHING.
            try:
                async with connection.transaction():
                    await connection.copy_records_to_table("events", records=records, columns=_COLUMNS)
                return
            except asyncpg.UniqueViolationError:
                pass
            await connection.copy_records_to_table("events_in", records=records, columns=_COLUMNS)
            await connection.execute(f"INSERT INTO events ({', '.join(_COLUMNS)}) SELECT {', '.join(_COLUMNS)} "
                                     "FROM events_in ON CONFLICT DO NOTHING")

    async def _set_aside(self, connection: asyncpg.Connection, set_aside: Sequence[SetAside]) -> None:
        quarantine = [aside.quarantine_row() for aside in set_aside if aside.evidence is None]
        evidence = [aside.evidence_row() for aside in set_aside if aside.evidence is not None]
        if quarantine:
            await connection.executemany(
                "INSERT INTO quarantine (table_id, topic, reason, payload) VALUES ($1, $2, $3, $4)", quarantine)
        if evidence:
            await connection.executemany(
                "INSERT INTO evidence (table_id, journal, seq, kind, reason, payload) VALUES ($1, $2, $3, $4, $5, $6)",
                evidence)

    async def _demote(self, connection: asyncpg.Connection, demoted: Sequence[Demoted]) -> None:
        """Rows found off the chain (or unsigned before one): into `evidence`, out of `events` and what derives."""
        spans = [(d.table_id, d.journal, d.first_seq, d.last_seq) for d in demoted]
        await connection.executemany(
            "INSERT INTO evidence (table_id, journal, seq, kind, reason, payload) SELECT table_id, journal, seq, "
            "'off_chain', $5, json_build_object('table_id', table_id, 'journal', journal, 'seq', seq, 'ts', ts, "
            "'kind', kind, 'type', type, 'body', body::json, 'prev_hash', prev_hash, 'hash', hash)::text "
            "FROM events WHERE table_id = $1 AND journal = $2 AND seq BETWEEN $3 AND $4",
            [(*span, d.reason) for span, d in zip(spans, demoted, strict=True)])
        for table in ("events", "rounds", "buy_ins", "alarms", "alarm_clears", "seance_steps", "meters"):
            await connection.executemany(
                f"DELETE FROM {table} WHERE table_id = $1 AND journal = $2 AND seq BETWEEN $3 AND $4", spans)

    async def _raise(self, connection: asyncpg.Connection, alarms: Sequence[FloorAlarm]) -> None:
        await connection.executemany(
            "INSERT INTO floor_alarms (table_id, journal, kind, first_seq, last_seq, message) "
            "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (table_id, journal, kind, first_seq) "
            "WHERE cleared_at IS NULL DO UPDATE SET last_seq = excluded.last_seq, message = excluded.message",
            [(a.table_id, a.journal, str(a.kind), a.first_seq, a.last_seq, a.message) for a in alarms])

    async def load_tracks(self) -> dict[tuple[str, str], JournalTrack]:
        """Every journal the store knows, with the rows it holds above each one's contiguous prefix."""
        async with self.pool.acquire() as connection:
            tracks = {(r["table_id"], r["journal"]): JournalTrack(
                r["table_id"], r["journal"], r["contiguous_seq"], r["contiguous_hash"], r["max_seq"], r["head_seq"],
                r["head_hash"], r["head_ts"], r["max_ts"], signed_seq=r["signed_seq"], signed_hash=r["signed_hash"]
            ) for r in await connection.fetch(
                    "SELECT j.*, e.ts AS max_ts FROM journals j LEFT JOIN events e ON e.table_id = j.table_id "
                    "AND e.journal = j.journal AND e.seq = j.max_seq")}
            for record in await connection.fetch(
                    "SELECT e.table_id, e.journal, e.seq, e.prev_hash, e.hash FROM events e JOIN journals j "
                    "USING (table_id, journal) WHERE e.seq > j.contiguous_seq"):
                track = tracks[(record["table_id"], record["journal"])]
                track.pending[record["seq"]] = (record["prev_hash"], record["hash"])
        return tracks

    async def open_alarms(self) -> set[tuple[str, str, str, int]]:
        async with self.pool.acquire() as connection:
            return {(r["table_id"], r["journal"], r["kind"], r["first_seq"]) for r in await connection.fetch(
                "SELECT table_id, journal, kind, first_seq FROM floor_alarms WHERE cleared_at IS NULL")}

    async def hash_at(self, table_id: str, journal: str, seq: int) -> str | None:
        async with self.pool.acquire() as connection:
            value = await connection.fetchval("SELECT hash FROM events WHERE table_id = $1 AND journal = $2 "
                                              "AND seq = $3", table_id, journal, seq)
        return value if isinstance(value, str) else None

