"""Bench: the floor storing every table's feed in PostgreSQL, with real journals, publishers, Mosquitto and floor.

N tables append real journal rows (the entries of rounds played by the fast demo table, appended again through
`Journal.append_many`, so every row has its real hash chain) at `--rate` rows/s each, in chunks, for
`--seconds`; each table's real `FeedPublisher` sends them to one Mosquitto; `table-floor run` (its own process)
stores them in a PostgreSQL started for the bench. The journals run with fsync off (the tables' durability is
benched in bench/feed.py; here the floor is measured).

Printed: ``floor tables=N events=E stored=S lost=L duplicate_rows=D events_per_s=R table_to_store_p99_ms=P``:
E rows journaled, S distinct rows stored, L = E - S after the floor drained, D rows stored more than once,
R stored rows per second from the first row stored to the last, P the 99th percentile of journal time to
commit time in the floor's database.

``--backlog`` measures the floor alone: every row is journaled and published while the floor's session is
offline (the broker queues it), then the floor is started and R is its catch-up rate (P is then the wait, not a
latency). ``--faults`` adds, mid-run: the floor killed with SIGKILL and restarted, the broker restarted (persistent),
and a tenth of the tables' publishers restarted. ``--method`` picks the store's write path.

    python -m bench.floor --tables 100 [--seconds 20] [--rate 120] [--faults] [--backlog] [--method copy|...]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import asyncpg

from simulators.fast_table import FastTable
from simulators.mosquitto import MosquittoBroker
from simulators.postgres import PostgresServer
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import FeedSettings
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal
from table_runtime.runtime.controller import TableController

PREFIX = "bench-floor"


def template_rows(directory: Path, rounds: int) -> list[tuple[str, dict[str, Any]]]:
    """The rows of `rounds` real rounds (kind, body), to be journaled again by every bench table."""
    with Journal.open(directory / "template.db") as journal:
        journal._db().execute("PRAGMA synchronous=OFF")
        controller = TableController(table_id="TPL", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=time.time)
        FastTable(controller, seed=11, error_rate=0.1).run(rounds)
        return [(entry.kind, entry.body) for entry in journal.entries()]


def floor_config(directory: Path, dsn: str, broker: MosquittoBroker, method: str) -> Path:
    path = directory / "floor.toml"
    path.write_text(f'[floor]\nfloor_id = "bench"\ndsn = "{dsn}"\nwrite_method = "{method}"\nbatch_rows = 5000\n'
                    f'check_interval = 0.5\n[[brokers]]\nurl = "{broker.url}"\nprefix = "{PREFIX}"\n',
                    encoding="utf-8")
    return path


def _read(path: Path) -> bytes:
    return path.read_bytes()


@contextlib.asynccontextmanager
async def floor_process(config: Path, log: Path) -> AsyncIterator[asyncio.subprocess.Process]:
    with log.open("ab") as out:
        process = await asyncio.create_subprocess_exec(sys.executable, "-m", "casino_floor", "run", "--config",
                                                       str(config), stdout=out, stderr=out)
    try:
        async with asyncio.timeout(30):
            while b"following the tables on" not in _read(log):
                await asyncio.sleep(0.05)
        yield process
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                async with asyncio.timeout(10):
                    await process.wait()
            except TimeoutError:
                process.kill()
                await process.wait()


async def table(journal: Journal, rows: list[tuple[str, dict[str, Any]]], rate: float, seconds: float,
                feeds: dict[str, FeedPublisher], table_id: str) -> None:
    """Journal `rate` rows/s for `seconds`, in chunks of a tenth of a second."""
    chunk = max(1, round(rate / 10))
    index, started = 0, time.monotonic()
    while time.monotonic() - started < seconds:
        items = [rows[(index + offset) % len(rows)] for offset in range(chunk)]
        index += chunk
        await asyncio.to_thread(journal.append_many, items, ts=time.time())
        feeds[table_id].notify()
        await asyncio.sleep(max(0.0, started + index / rate - time.monotonic()))


async def publisher(url: str, table_id: str, journal: Journal, feeds: dict[str, FeedPublisher],
                    stop: asyncio.Event) -> None:
    """The table's real publisher; restarted when `feeds[table_id]` is stopped by the faults."""
    settings = FeedSettings.from_mapping({"url": url, "table_id": table_id, "prefix": PREFIX,
                                          "backoff_initial": 0.05, "backoff_max": 1.0}, environ={})
    while not stop.is_set():
        async with FeedPublisher(settings, journal) as feed:
            feeds[table_id] = feed
            await feed.run()


async def bench(args: argparse.Namespace, directory: Path) -> str:
    rows = template_rows(directory, 40)
    with PostgresServer() as pg, MosquittoBroker(directory=directory / "broker", persistence=True,
                                                 max_inflight_messages=5000) as broker:
        admin = await asyncpg.connect(pg.dsn)
        await admin.execute("CREATE DATABASE bench")
        await admin.close()
        dsn = pg.dsn_for("bench")
        config = floor_config(directory, dsn, broker, args.method)
        log = directory / "floor.log"
        journals = {f"B{index:03d}": Journal.open(directory / f"B{index:03d}.db") for index in range(args.tables)}
        for journal in journals.values():
            journal._db().execute("PRAGMA synchronous=OFF")
        feeds: dict[str, FeedPublisher] = {}
        stop = asyncio.Event()
        async with contextlib.AsyncExitStack() as stack:
            if args.backlog:  # the floor's session exists, offline: the broker keeps everything for it
                async with floor_process(config, log):
                    pass
                for journal in journals.values():
                    count = round(args.rate * args.seconds)
                    journal.append_many([rows[index % len(rows)] for index in range(count)], ts=time.time())
            else:
                floor = await stack.enter_async_context(floor_process(config, log))
            tasks = await stack.enter_async_context(asyncio.TaskGroup())
            publishers = [tasks.create_task(publisher(broker.url, t, j, feeds, stop)) for t, j in journals.items()]
            while len(feeds) < len(journals):
                await asyncio.sleep(0.05)
            if args.backlog:
                while any(feed.cursor < journals[table_id].last_seq for table_id, feed in feeds.items()):
                    await asyncio.sleep(0.2)
                floor = await stack.enter_async_context(floor_process(config, log))
            tables = asyncio.gather(*(table(j, rows, args.rate, 0 if args.backlog else args.seconds, feeds, t)
                                      for t, j in journals.items()))
            if args.faults:
                await asyncio.sleep(args.seconds / 4)
                floor.send_signal(signal.SIGKILL)
                await floor.wait()
                await stack.enter_async_context(floor_process(config, log))
                await asyncio.sleep(args.seconds / 4)
                broker.stop()
                await asyncio.sleep(0.5)
                broker.start()
                await asyncio.sleep(args.seconds / 8)
                for table_id in list(journals)[:: 10]:
                    feeds[table_id].stop("bench restart")
            await tables
            expected = sum(journal.last_seq for journal in journals.values())
            stored = await drain(dsn, expected, timeout=args.seconds * 3 + 60)
            stop.set()
            for feed in list(feeds.values()):
                feed.stop("bench over")
            await asyncio.gather(*publishers, return_exceptions=True)
        figures = await figures_of(dsn)
        for journal in journals.values():
            journal.close()
    return (f"floor tables={args.tables} events={expected} stored={stored} lost={expected - stored} "
            f"duplicate_rows={figures['duplicates']:.0f} events_per_s={figures['rate']:.0f} "
            f"table_to_store_p99_ms={figures['p99_ms']:.0f}")


async def drain(dsn: str, expected: int, timeout: float) -> int:
    connection = await asyncpg.connect(dsn)
    try:
        deadline = time.monotonic() + timeout
        while True:
            stored = int(await connection.fetchval("SELECT count(*) FROM events"))
            if stored >= expected or time.monotonic() > deadline:
                return stored
            await asyncio.sleep(0.5)
    finally:
        await connection.close()


async def figures_of(dsn: str) -> dict[str, float]:
    connection = await asyncpg.connect(dsn)
    try:
        row = await connection.fetchrow(
            "SELECT count(*) - count(DISTINCT (table_id, journal, seq)) AS duplicates, "
            "count(*) / greatest(extract(epoch FROM max(received_at) - min(received_at)), 0.001) AS rate, "
            "percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM received_at) - ts) * 1000 AS p99_ms "
            "FROM events")
    finally:
        await connection.close()
    return {key: float(row[key]) for key in ("duplicates", "rate", "p99_ms")}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the tables journal")
    parser.add_argument("--rate", type=float, default=120.0, help="rows per second per table")
    parser.add_argument("--faults", action="store_true", help="floor SIGKILL, broker restart, publisher restarts")
    parser.add_argument("--backlog", action="store_true",
                        help="journal and publish everything while the floor is away, then time its catch-up")
    parser.add_argument("--method", choices=("copy", "unnest", "executemany"), default="copy")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as tmp:
        print(asyncio.run(bench(args, Path(tmp))))
    print(f"command: python -m bench.floor {' '.join(argv if argv is not None else sys.argv[1:])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
