"""Bench: what the suite's fixtures start, each alone (tests/README.md, "The suite").

A Mosquitto started and stopped (`MosquittoBroker`, as the feed's per-test `broker`), and a test's floor store
on a fresh database two ways: an empty database that `FloorStore.open` migrates, or a copy of a database
migrated once (`CREATE DATABASE ... TEMPLATE`, what the floor's `database` fixture gives a test that asks for
`store`). The two database ways are interleaved on one cluster; medians are printed.

    python -m bench.suite_fixtures [--repeat 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Sequence

import asyncpg

from casino_floor.migrate import migrate
from casino_floor.store import FloorStore
from simulators.mosquitto import MosquittoBroker
from simulators.postgres import PostgresServer

TEMPLATE = "bench_migrated_template"


def broker_seconds(repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        with MosquittoBroker():
            pass
        times.append(time.perf_counter() - start)
    return times


async def store_seconds(server: PostgresServer, name: str, template: str | None) -> float:
    """A database made, a store opened on it and closed, the database dropped: a floor test's own part."""
    start = time.perf_counter()
    admin = await asyncpg.connect(server.dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
        store = await FloorStore.open(server.dsn_for(name))
        await store.close()
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    finally:
        await admin.close()
    return time.perf_counter() - start


async def database_seconds(server: PostgresServer, repeat: int) -> dict[str, list[float]]:
    admin = await asyncpg.connect(server.dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{TEMPLATE}"')
        migrated = await asyncpg.connect(server.dsn_for(TEMPLATE))
        try:
            await migrate(migrated)
        finally:
            await migrated.close()
    finally:
        await admin.close()
    times: dict[str, list[float]] = {"migrated per test": [], "copied from the template": []}
    for index in range(repeat):
        times["migrated per test"].append(await store_seconds(server, f"bench_empty_{index}", None))
        times["copied from the template"].append(await store_seconds(server, f"bench_copy_{index}", TEMPLATE))
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    print(f"python -m bench.suite_fixtures --repeat {args.repeat}  (load {load:.1f} on {os.cpu_count()} cores)")
    brokers = broker_seconds(args.repeat)
    print(f"Mosquitto started and stopped: median {statistics.median(brokers) * 1000:.0f} ms")
    with PostgresServer() as server:
        for way, times in asyncio.run(database_seconds(server, args.repeat)).items():
            print(f"a test's store, database {way}: median {statistics.median(times) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
