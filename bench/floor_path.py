"""Bench: the floor's own path from a message's bytes to its commit, in this process, with no broker: each
``events`` message decoded and folded by `Ingest` (bounds, the topic's table, the hash, the chain), then written
by `FloorStore` in batches of `--batch` rows, into a PostgreSQL started for the bench (month partitions and
all). Printed: the floor's CPU per stored row (this process's user + system time: PostgreSQL's own is apart)
and the wall-clock rate, the median of `--runs` runs, each into a fresh database; ``--profile`` prints where
the CPU of one more run went (cProfile, the 25 costliest functions by their own time). A second line gives the
space PostgreSQL takes per stored row (`floor_size`: the rows and what derives from them, every partition and
index, after VACUUM ANALYZE).

The rows are real journal rows (rounds of the fast demo table, error rate 0.1) journaled again for each of
`--tables` tables, so every table has its own hash chain, sent interleaved as a broker would deliver them.

With ``--rows-per-message N`` each table's rows go as ``JournalRows`` messages of N rows (version 2), taken by
`Ingest.take_rows` as the service takes them.

    python -m bench.floor_path [--tables 20] [--rounds 40] [--batch 5000] [--runs 5] [--profile]
                               [--rows-per-message 1]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import asyncpg

from bench.floor import template_rows
from casino_floor.ingest import Ingest
from casino_floor.integrity import decode_payload
from casino_floor.store import Batch, FloorStore
from simulators.postgres import PostgresServer
from table_runtime.feed.messages import Topics, encode_payload, event_payload
from table_runtime.feed.row_batches import chunks, event_rows, rows_message
from table_runtime.journal import Journal


def messages(directory: Path, tables: int, rounds: int, rows_per_message: int = 1) -> list[tuple[str, bytes]]:
    """(topic, bytes) of every table's ``events`` messages, interleaved table by table: a row a message (version
    1), or `rows_per_message` rows a ``JournalRows`` message (version 2)."""
    rows = template_rows(directory, rounds)
    per_table = []
    for number in range(tables):
        table_id = f"T{number + 1:03d}"
        with Journal.open(directory / f"{table_id}.db") as journal:
            journal._db().execute("PRAGMA synchronous=OFF")
            journal.append_many(rows, ts=time.time())
            topics = Topics("bench", table_id)
            entries = list(journal.entries())
            if rows_per_message > 1:
                per_table.append([(topics.events, rows_message(topics, run, journal.journal_id).encode())
                                  for run in chunks(entries, rows_per_message)])
            else:
                per_table.append([(topics.events, encode_payload(event_payload(table_id, journal.journal_id, entry)))
                                  for entry in entries])
    return [message for step in zip(*per_table, strict=True) for message in step]


async def run(dsn: str, sent: list[tuple[str, bytes]], batch_rows: int, rows: int) -> tuple[float, float]:
    """Every message through the floor's path into `dsn` (its `rows` rows), batches of at least `batch_rows` rows;
    (CPU seconds, wall seconds)."""
    store = await FloorStore.open(dsn)
    try:
        ingest = Ingest()
        cpu, wall = time.process_time(), time.perf_counter()
        waiting = iter(sent)
        while True:
            batch = Batch()
            for topic, raw in waiting:
                ingest.take_rows(decode_payload(raw), batch, topic=topic, raw=raw)
                if len(batch.rows) >= batch_rows:
                    break
            if not batch.rows:
                break
            ingest.finish(batch, time.time())
            await store.write(batch)
            ingest.committed(batch)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        async with store.pool.acquire() as connection:
            stored = await connection.fetchval("SELECT count(*) FROM events")
        assert stored == rows, (stored, rows)
        return cpu, wall
    finally:
        await store.close()


SIZED = ("events", "rounds", "alarms", "alarm_clears", "buy_ins", "journals")


async def bytes_per_row(dsn: str, rows: int) -> tuple[float, int]:
    """After VACUUM ANALYZE: the space of the rows and what derives from them (every partition, index and TOAST
    table of `SIZED`) per journal row stored; and how many partitions `events` has."""
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute("VACUUM ANALYZE")
        total = await connection.fetchval(
            "SELECT sum(pg_total_relation_size(oid)) FROM pg_class WHERE relkind = 'r' "
            "AND coalesce(pg_partition_root(oid), oid)::regclass::text = ANY($1::text[])", list(SIZED))
        parts = await connection.fetchval("SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relispartition "
                                          "AND pg_partition_root(oid) = 'events'::regclass")
        return int(total) / rows, int(parts)
    finally:
        await connection.close()


async def bench(args: argparse.Namespace, directory: Path) -> None:
    sent = messages(directory, args.tables, args.rounds, args.rows_per_message)
    rows = sum(len(event_rows(decode_payload(raw))) for _, raw in sent)
    with PostgresServer() as server:
        results = []
        for number in range(args.runs + (1 if args.profile else 0)):
            name = f"path_{number}"
            admin = await asyncpg.connect(server.dsn)
            await admin.execute(f'CREATE DATABASE "{name}"')
            await admin.close()
            if args.profile and number == args.runs:
                profiler = cProfile.Profile()
                profiler.enable()
                await run(server.dsn_for(name), sent, args.batch, rows)
                profiler.disable()
                pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
            else:
                results.append(await run(server.dsn_for(name), sent, args.batch, rows))
        size, parts = await bytes_per_row(server.dsn_for("path_0"), rows)
    cpu = statistics.median(result[0] for result in results)
    wall = statistics.median(result[1] for result in results)
    print(f"floor_path tables={args.tables} rows={rows} messages={len(sent)} batch={args.batch} runs={args.runs} "
          f"cpu_us_per_row={cpu / rows * 1e6:.1f} rows_per_s={rows / wall:.0f} "
          f"(each run's cpu_us_per_row: {' '.join(f'{r[0] / rows * 1e6:.1f}' for r in results)})")
    print(f"floor_size rows={rows} bytes_per_row={size:.0f} events_partitions={parts} (rows, rounds, alarms, "
          "buy-ins, journals, their indexes, after VACUUM ANALYZE)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--batch", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--rows-per-message", type=int, default=1,
                        help="1: a row an events message (version 1); more: JournalRows of that many rows")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-floor-path-") as scratch:
        asyncio.run(bench(args, Path(scratch)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
