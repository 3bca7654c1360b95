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

``--publishers lean`` (the default) sends each table's real feed messages (made beforehand by the feed's own
builders from the table's real journal, journaled before the run) at the rate, over the table's own MQTT
connection, by a minimal QoS 1 sender (bench/table_load.py): on a floor each table publishes from its own Pi, and
100 real publishers would take this machine's cores from the floor; P is then from the message's send to its
commit. ``--publishers real`` runs each table's real `FeedPublisher` in this process, journaling as it goes.
``--floors K`` runs K floor processes, each following its part of the tables (``partition = "i/K"`` with the
table list, so each subscribes to its own tables only). A second line gives the floors' memory: their resident
sets together, sampled each second, averaged over each quarter of the run, and the most. With the lean senders a
third line gives a pit screen's view (bench/pit_watch.py): a WebSocket on the first floor's pit page, and the
p99 from a row's send to the first overview showing it.

``--group`` makes the bench's PostgreSQL a casino of a group (`wal_level = logical`, `table-floor group setup`'s
publication) with the group's database on a second cluster, and a fourth line gives the replication's lag under
the load: the casino's WAL not yet confirmed by the group (bytes), the walsender's replay lag (ms), both p99 and
most of samples taken twice a second, and how long after the floor drained the group held every round.

``--rows-per-message N`` is the tables' feed setting (feed/row_batches.py): above 1 each ``events`` message is a
``JournalRows`` of N rows (the lean senders group the rows as the publisher does with N rows pending; at ``--rate``
R a message then holds N / R seconds of a table's rows, a wait P does not include: P starts at the send).

``--backlog`` measures the floor alone: every row is journaled and published while the floor's session is
offline (the broker queues it), then the floor is started and R is its catch-up rate (P is then the wait, not a
latency). ``--faults`` adds, mid-run: the floor killed with SIGKILL and restarted, the broker restarted (persistent),
and a tenth of the tables' publishers restarted. ``--method`` picks the store's write path.

    python -m bench.floor --tables 100 [--seconds 20] [--rate 120] [--publishers lean|real] [--floors 1]
                          [--faults] [--backlog] [--method copy|...] [--group] [--rows-per-message 1]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import asyncpg

from bench.feed import percentile
from bench.pit_watch import PitWatch
from bench.table_load import TableSender, table_messages
from casino_floor import group
from casino_floor.group_config import group_config_from_mapping
from simulators.fast_table import FastTable
from simulators.mosquitto import MosquittoBroker, free_port
from simulators.postgres import PostgresServer
from table_runtime.feed.messages import Topics
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


def floor_config(directory: Path, dsn: str, broker: MosquittoBroker, method: str, part: int = 1, parts: int = 1,
                 tables: Sequence[str] = ()) -> Path:
    path = directory / f"floor-{part}of{parts}.toml"
    listed = f'tables = [{", ".join(repr(t).replace(chr(39), chr(34)) for t in tables)}]\n' if parts > 1 else ""
    path.write_text(f'[floor]\nfloor_id = "bench"\ndsn = "{dsn}"\nwrite_method = "{method}"\nbatch_rows = 5000\n'
                    f'check_interval = 0.5\npartition = "{part}/{parts}"\n{listed}'
                    f'[[brokers]]\nurl = "{broker.url}"\nprefix = "{PREFIX}"\n'
                    f'[pit]\nbind = "127.0.0.1:{free_port()}"\n', encoding="utf-8")
    return path


def _read(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""


def _rss_mb(pid: int) -> float:
    """The resident set of process `pid` in MiB (0 once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return 0.0
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


@contextlib.asynccontextmanager
async def floor_process(config: Path, log: Path, profile: Path | None = None
                        ) -> AsyncIterator[asyncio.subprocess.Process]:
    start = len(_read(log))  # floors share the log: this one's line comes after
    command = ["-m", "casino_floor"] if profile is None else ["-m", "bench.floor_profiled", str(profile)]
    with log.open("ab") as out:
        process = await asyncio.create_subprocess_exec(sys.executable, *command, "run", "--config", str(config),
                                                       stdout=out, stderr=out)
    try:
        async with asyncio.timeout(30):
            while b"following the tables on" not in _read(log)[start:]:
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
                    stop: asyncio.Event, rows_per_message: int = 1) -> None:
    """The table's real publisher; restarted when `feeds[table_id]` is stopped by the faults."""
    settings = FeedSettings.from_mapping({"url": url, "table_id": table_id, "prefix": PREFIX,
                                          "backoff_initial": 0.05, "backoff_max": 1.0,
                                          "rows_per_message": rows_per_message}, environ={})
    while not stop.is_set():
        async with FeedPublisher(settings, journal) as feed:
            feeds[table_id] = feed
            await feed.run()


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of process `pid` so far (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime (proc(5): fields 14 and 15)


def _children(parent: int) -> list[int]:
    """The processes whose parent is `parent` (PostgreSQL's backends and workers under its postmaster)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()[1]) == parent:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


class CpuMeter:
    """CPU time (user + system) of each part of the run, from the floors' start to the drain: the floors, the broker,
    PostgreSQL (postmaster and backends) and this process (the lean senders, the pit screen, the drain's queries),
    sampled each second (a process is counted up to its last sample: a floor killed by ``--faults`` loses up to
    a second)."""

    def __init__(self, parts: dict[str, Callable[[], list[int]]]) -> None:
        self.parts = parts
        self.first: dict[tuple[str, int], float] = {}
        self.last: dict[tuple[str, int], float] = {}
        self.started = False

    def start(self) -> None:
        """From now on (the floors started: the senders' messages made, the journals filled)."""
        self.first.clear()
        self.last.clear()
        self.started = True
        self.sample()

    def sample(self) -> None:
        if not self.started:
            return
        for name, pids in self.parts.items():
            for pid in pids():
                cpu = _cpu_s(pid)
                if cpu is not None:
                    self.first.setdefault((name, pid), cpu)
                    self.last[(name, pid)] = cpu

    async def run(self) -> None:
        while True:
            self.sample()
            await asyncio.sleep(1.0)

    def seconds(self, name: str) -> float:
        return sum(cpu - self.first[key] for key, cpu in self.last.items() if key[0] == name)

    def line(self, rows: int) -> str:
        per_row = " ".join(f"{name}_us_per_row={self.seconds(name) / max(rows, 1) * 1e6:.1f}" for name in self.parts)
        return f"floor_cpu rows={rows} {per_row} load_average={os.getloadavg()[0]:.1f}"


class Floors:
    """The floor processes (one per partition), restartable, and the resident memory sampled each second."""

    def __init__(self, configs: Sequence[Path], log: Path, stack: contextlib.AsyncExitStack,
                 cpu: CpuMeter | None = None, profile: Path | None = None) -> None:
        self.configs, self.log, self.stack, self.cpu, self.profile = configs, log, stack, cpu, profile
        self.processes: list[asyncio.subprocess.Process] = []
        self.rss_mb: list[float] = []  # the floors' resident sets together, each second

    async def start(self) -> None:
        self.processes = [await self.stack.enter_async_context(floor_process(config, self.log,
                                                                             self.profile if index == 0 else None))
                          for index, config in enumerate(self.configs)]
        if self.cpu is not None:
            self.cpu.start()

    async def kill_and_restart_first(self) -> None:
        self.processes[0].send_signal(signal.SIGKILL)
        await self.processes[0].wait()
        self.processes[0] = await self.stack.enter_async_context(floor_process(self.configs[0], self.log))

    async def sample(self) -> None:
        while True:
            self.rss_mb.append(sum(_rss_mb(process.pid) for process in self.processes))
            await asyncio.sleep(1.0)

    def memory_line(self) -> str:
        samples = [value for value in self.rss_mb if value > 0] or [0.0]
        size = max(1, len(samples) // 4)
        quarters = [samples[index * size:(index + 1) * size] or samples[-size:] for index in range(4)]
        means = "/".join(f"{sum(part) / len(part):.1f}" for part in quarters)
        return (f"floor_memory floors={len(self.configs)} rss_mb_by_quarter={means} rss_mb_max={max(samples):.1f} "
                f"samples={len(samples)}")


LOGICAL = {"wal_level": "logical", "max_replication_slots": "10", "max_wal_senders": "10",
           "max_logical_replication_workers": "8", "max_worker_processes": "16"}


class GroupLag:
    """`--group`: the floor's database published to a group database on a second cluster (casino_floor/group.py),
    its lag sampled twice a second from the casino's side: the WAL its subscription has not confirmed (bytes) and
    the walsender's replay lag (the time from a commit at the casino to the group's confirmation of it)."""

    def __init__(self, casino: PostgresServer, dsn: str, group_server: PostgresServer) -> None:
        self.casino, self.dsn, self.group_server = casino, dsn, group_server
        self.lag_bytes: list[int] = []
        self.lag_ms: list[float] = []
        self.caught_up_s = float("nan")

    async def setup(self) -> None:
        admin = await asyncpg.connect(self.group_server.dsn)
        await admin.execute("CREATE DATABASE grp")
        await admin.close()
        config = group_config_from_mapping({"group": {"dsn": self.group_server.dsn_for("grp"), "casinos": [{
            "casino_id": "bench", "dsn": self.dsn,
            "publisher": f"host=127.0.0.1 port={self.casino.port} dbname=bench",
        }]}}, environ={})
        await group.setup(config)

    async def sample(self) -> None:
        connection = await asyncpg.connect(self.dsn)
        try:
            while True:
                row = await connection.fetchrow(
                    "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), s.confirmed_flush_lsn)::bigint AS lag, "
                    "extract(epoch FROM r.replay_lag)::float8 AS seconds FROM pg_replication_slots s "
                    "LEFT JOIN pg_stat_replication r ON r.application_name = s.slot_name WHERE s.slot_name = $1",
                    group.subscription_name("bench"))
                if row is not None and row["lag"] is not None:
                    self.lag_bytes.append(int(row["lag"]))
                    self.lag_ms.append((row["seconds"] or 0.0) * 1000)
                await asyncio.sleep(0.5)
        finally:
            await connection.close()

    async def caught_up(self, timeout: float) -> None:
        """Once the floor has drained: how long until the group holds as many rounds as the floor."""
        started = time.monotonic()
        casino, grp = await asyncpg.connect(self.dsn), await asyncpg.connect(self.group_server.dsn_for("grp"))
        try:
            held = await casino.fetchval("SELECT count(*) FROM rounds")
            async with asyncio.timeout(timeout):
                while await grp.fetchval("SELECT count(*) FROM rounds") < held:
                    await asyncio.sleep(0.1)
            self.caught_up_s = time.monotonic() - started
        finally:
            await casino.close()
            await grp.close()

    def line(self) -> str:
        lag_bytes, lag_ms = self.lag_bytes or [0], self.lag_ms or [0.0]
        return (f"floor_group lag_bytes_p99={percentile(lag_bytes, 99):.0f} lag_bytes_max={max(lag_bytes)} "
                f"replay_lag_ms_p99={percentile(lag_ms, 99):.0f} replay_lag_ms_max={max(lag_ms):.0f} "
                f"caught_up_after_drain_s={self.caught_up_s:.1f} samples={len(self.lag_bytes)}")


async def bench(args: argparse.Namespace, directory: Path) -> tuple[str, ...]:
    rows = template_rows(directory, 40)
    with PostgresServer(settings=LOGICAL if args.group else None) as pg, \
            PostgresServer(settings=LOGICAL) if args.group else contextlib.nullcontext() as group_pg, \
            MosquittoBroker(directory=directory / "broker", persistence=True, max_inflight_messages=5000) as broker:
        admin = await asyncpg.connect(pg.dsn)
        await admin.execute("CREATE DATABASE bench")
        await admin.close()
        dsn = pg.dsn_for("bench")
        lag = GroupLag(pg, dsn, group_pg) if isinstance(group_pg, PostgresServer) else None
        if lag is not None:
            await lag.setup()
            lagging = asyncio.create_task(lag.sample())
        table_ids = [f"B{index:03d}" for index in range(args.tables)]
        configs = [floor_config(directory, dsn, broker, args.method, part, args.floors, table_ids)
                   for part in range(1, args.floors + 1)]
        journals = {table_id: Journal.open(directory / f"{table_id}.db") for table_id in table_ids}
        for journal in journals.values():
            journal._db().execute("PRAGMA synchronous=OFF")
        async with contextlib.AsyncExitStack() as stack:
            postmaster = int((pg.data / "postmaster.pid").read_text(encoding="ascii").split()[0])
            cpu = CpuMeter({"floor": lambda: [process.pid for process in floors.processes],
                            "broker": lambda: [broker.pid] if broker.pid else [],
                            "postgres": lambda: [postmaster, *_children(postmaster)],
                            "bench": lambda: [os.getpid()]})
            floors = Floors(configs, directory / "floor.log", stack, cpu, args.profile_floor)
            sampler = asyncio.create_task(floors.sample())  # until the floors have drained
            metering = asyncio.create_task(cpu.run())
            watch = PitWatch(int(re.findall(r"bind = \"127\.0\.0\.1:(\d+)\"", configs[0].read_text())[0]))
            watching = asyncio.create_task(watch.run())  # a pit screen open on the first floor's page
            if args.publishers == "lean":
                expected, sent_at = await lean(args, broker, floors, journals, rows)
            else:
                expected, sent_at = await real(args, broker, floors, journals, rows, stack), None
            stored = await drain(dsn, expected, timeout=args.seconds * 3 + 60)
            cpu.sample()
            metering.cancel()
            sampler.cancel()
            watching.cancel()
            if lag is not None:
                await lag.caught_up(timeout=args.seconds * 3 + 60)
                lagging.cancel()
        figures = await figures_of(dsn, sent_at)
        for journal in journals.values():
            journal.close()
    return (f"floor tables={args.tables} events={expected} stored={stored} lost={expected - stored} "
            f"duplicate_rows={figures['duplicates']:.0f} events_per_s={figures['rate']:.0f} "
            f"table_to_store_p99_ms={figures['p99_ms']:.0f}", floors.memory_line(), cpu.line(stored),
            *([watch.line(sent_at, f"1of{args.floors}")] if sent_at is not None else []),
            *([lag.line()] if lag is not None else []))


async def lean(args: argparse.Namespace, broker: MosquittoBroker, floors: Floors, journals: dict[str, Journal],
               rows: list[tuple[str, dict[str, Any]]]) -> tuple[int, dict[tuple[str, int], float]]:
    """The tables' real messages, made before the run, sent at the rate by lean senders (bench/table_load.py)."""
    senders = []
    for table_id, journal in journals.items():
        fill(journal, rows, round(args.rate * args.seconds))
        senders.append(TableSender(table_id, table_messages(journal, Topics(PREFIX, table_id), args.rows_per_message),
                                   "127.0.0.1", broker.port))
    await floors.start()
    tasks = [asyncio.create_task(sender.run()) for sender in senders]
    if args.faults:
        def restart_tables() -> None:
            for sender in senders[::10]:
                sender.restart()

        tasks.append(asyncio.create_task(faults(args.seconds, broker, floors, restart_tables)))
    started = time.monotonic()
    while (elapsed := time.monotonic() - started) < args.seconds:
        for sender in senders:
            sender.release(round(len(sender.messages) * elapsed / args.seconds) - sender.released)
        await asyncio.sleep(0.05)
    for sender in senders:
        sender.release(len(sender.messages))
    await asyncio.gather(*tasks)
    return (sum(journal.last_seq for journal in journals.values()),
            {(sender.table_id, seq): when for sender in senders for seq, when in sender.sent_at.items()})


def fill(journal: Journal, rows: list[tuple[str, dict[str, Any]]], count: int) -> None:
    """Journal `count` rows of the template at once (their real hash chain)."""
    journal.append_many([rows[index % len(rows)] for index in range(count)], ts=time.time())


async def faults(seconds: float, broker: MosquittoBroker, floors: Floors, restart_tables: Callable[[], None]
                 ) -> None:
    """A quarter in: the first floor killed (SIGKILL) and restarted; half-way: the broker restarted; at 5/8: a
    tenth of the tables restarted (`restart_tables`)."""
    await asyncio.sleep(seconds / 4)
    await floors.kill_and_restart_first()
    await asyncio.sleep(seconds / 4)
    broker.stop()
    await asyncio.sleep(0.5)
    broker.start()
    await asyncio.sleep(seconds / 8)
    restart_tables()


async def real(args: argparse.Namespace, broker: MosquittoBroker, floors: Floors, journals: dict[str, Journal],
               rows: list[tuple[str, dict[str, Any]]], stack: contextlib.AsyncExitStack) -> int:
    """Each table's real publisher in this process, the tables journaling as they go."""
    feeds: dict[str, FeedPublisher] = {}
    stop = asyncio.Event()
    if args.backlog:  # the floor's session exists, offline: the broker keeps everything for it
        async with contextlib.AsyncExitStack() as first:
            await Floors(floors.configs, floors.log, first).start()
        for journal in journals.values():
            fill(journal, rows, round(args.rate * args.seconds))
    else:
        await floors.start()
    async with asyncio.TaskGroup() as tasks:
        publishers = [tasks.create_task(publisher(broker.url, t, j, feeds, stop, args.rows_per_message))
                      for t, j in journals.items()]
        while len(feeds) < len(journals):
            await asyncio.sleep(0.05)
        if args.backlog:
            while any(feed.cursor < journals[table_id].last_seq for table_id, feed in feeds.items()):
                await asyncio.sleep(0.2)
            await floors.start()
        tables = asyncio.gather(*(table(j, rows, args.rate, 0 if args.backlog else args.seconds, feeds, t)
                                  for t, j in journals.items()))
        if args.faults:
            def restart_tables() -> None:
                for table_id in list(journals)[::10]:
                    feeds[table_id].stop("bench restart")

            await faults(args.seconds, broker, floors, restart_tables)
        await tables
        expected = sum(journal.last_seq for journal in journals.values())
        while any(feed.cursor < journals[table_id].last_seq for table_id, feed in feeds.items()):
            await asyncio.sleep(0.2)
        stop.set()
        for feed in list(feeds.values()):
            feed.stop("bench over")
        await asyncio.gather(*publishers, return_exceptions=True)
    return expected


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


async def figures_of(dsn: str, sent_at: dict[tuple[str, int], float] | None) -> dict[str, float]:
    """Duplicates, the storing rate, and the p99 from the row's journal time (or its send time) to its commit."""
    connection = await asyncpg.connect(dsn)
    try:
        row = await connection.fetchrow(
            "SELECT count(*) - count(DISTINCT (table_id, journal, seq)) AS duplicates, "
            "count(*) / greatest(extract(epoch FROM max(received_at) - min(received_at)), 0.001) AS rate, "
            "percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM received_at) - ts) * 1000 AS p99_ms "
            "FROM events")
        figures = {key: float(row[key]) for key in ("duplicates", "rate", "p99_ms")}
        if sent_at is not None:
            waits = [float(r["at"]) - sent_at[(r["table_id"], r["seq"])] for r in await connection.fetch(
                "SELECT table_id, seq, extract(epoch FROM received_at) AS at FROM events")]
            figures["p99_ms"] = percentile(waits, 0.99) * 1000 if waits else 0.0
    finally:
        await connection.close()
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the tables journal")
    parser.add_argument("--rate", type=float, default=120.0, help="rows per second per table")
    parser.add_argument("--faults", action="store_true", help="floor SIGKILL, broker restart, publisher restarts")
    parser.add_argument("--backlog", action="store_true",
                        help="journal and publish everything while the floor is away, then time its catch-up")
    parser.add_argument("--method", choices=("copy", "unnest", "executemany"), default="copy")
    parser.add_argument("--publishers", choices=("lean", "real"), default="lean",
                        help="the tables' messages sent by lean senders, or by real publishers in this process")
    parser.add_argument("--floors", type=int, default=1, help="floor processes, each following its partition")
    parser.add_argument("--rows-per-message", type=int, default=1,
                        help="the tables' feed setting: 1 sends version 1 events, more JournalRows of that many rows")
    parser.add_argument("--profile-floor", type=Path, metavar="FILE",
                        help="run the (first) floor under cProfile and write its profile to FILE")
    parser.add_argument("--group", action="store_true",
                        help="publish the floor's database to a group database and print the replication lag")
    args = parser.parse_args(argv)
    if args.backlog and args.publishers == "lean":
        parser.error("--backlog measures the floor behind the real publishers: add --publishers real")
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as tmp:
        print("\n".join(asyncio.run(bench(args, Path(tmp)))))
    print(f"command: python -m bench.floor {' '.join(argv if argv is not None else sys.argv[1:])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
