"""Bench: the floor's write path alone, rows/s into PostgreSQL by COPY, one INSERT over unnest, or executemany.

The rows are real journal rows (rounds of the fast demo table) as N tables' ``events`` payloads, folded by the
floor's own `Ingest` into batches of 2,000 and written by `FloorStore.write`; each method runs three times,
interleaved, each on a fresh database, and the best run of each is printed (the machine is shared: the best
run is the least disturbed).

    python -m bench.floor_store [--tables 20] [--rounds 100]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import asyncpg

from bench.floor import template_rows
from casino_floor.ingest import Ingest
from casino_floor.store import Batch, FloorStore, WriteMethod
from simulators.postgres import PostgresServer
from table_runtime.feed.messages import Topics, event_message
from table_runtime.journal import Journal

METHODS: tuple[WriteMethod, ...] = ("copy", "unnest", "executemany")


def payloads(directory: Path, tables: int, rounds: int) -> list[dict[str, Any]]:
    rows = template_rows(directory, rounds)
    messages: list[dict[str, Any]] = []
    for index in range(tables):
        table_id = f"S{index:03d}"
        with Journal.open(directory / f"{table_id}.db") as journal:
            journal._db().execute("PRAGMA synchronous=OFF")
            entries = journal.append_many(rows, ts=time.time())
        messages += [event_message(Topics("bench", table_id), entry).payload for entry in entries]
    return messages


async def run(args: argparse.Namespace, directory: Path) -> dict[str, float]:
    messages = payloads(directory, args.tables, args.rounds)
    best: dict[str, float] = {}
    with PostgresServer() as server:
        for attempt, method in enumerate(METHODS * 3):
            admin = await asyncpg.connect(server.dsn)
            await admin.execute(f"CREATE DATABASE run{attempt}")
            await admin.close()
            store = await FloorStore.open(server.dsn_for(f"run{attempt}"), method=method)
            ingest, writing = Ingest(await store.load_tracks()), 0.0
            for first in range(0, len(messages), 2000):
                batch = Batch()
                for payload in messages[first:first + 2000]:
                    ingest.take("events", payload, batch)
                ingest.finish(batch, 0.0)
                started = time.perf_counter()
                await store.write(batch)
                writing += time.perf_counter() - started
                ingest.committed(batch)
            await store.close()
            best[method] = max(best.get(method, 0.0), len(messages) / writing)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=100)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-floor-store-") as tmp:
        best = asyncio.run(run(args, Path(tmp)))
    figures = ", ".join(f"{method} {rate:,.0f} rows/s" for method, rate in best.items())
    print(f"floor store writes, best of 3: {figures}")
    print(f"command: python -m bench.floor_store {' '.join(argv if argv is not None else sys.argv[1:])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
