"""`table-floor demo`: a whole floor on this machine in one command.

A throwaway Mosquitto, a throwaway PostgreSQL cluster (initdb in a temporary
directory, unless --dsn names a database), N simulated tables, each a real
`table-runtime demo` process (simulated shoe on a pty, chip reader behind pyusb,
mock buttons, a simulated dealer and players) publishing its feed to the broker,
and the pit page on --http following them all. Ctrl-C (or --seconds) stops the
tables first, then the pit, the broker and the database; a temporary directory is
removed unless --data-dir was given.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import os
import shutil
import signal
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from casino_floor.config import config_from_mapping
from casino_floor.pit import PitServer
from casino_floor.pit.serve import serve_pit
from casino_floor.service import FloorService
from casino_floor.store import FloorStore
from simulators.mosquitto import BrokerError, MosquittoBroker
from simulators.postgres import PostgresError, PostgresServer
from simulators.staff import DEALERS
from table_runtime.errors import ConfigError
from table_runtime.game.rules import PROFILES
from table_runtime.runtime.recall import euros

FLOOR_BUY_IN_CENTS = 100_000  # each table's players buy in 1 000.00 at each new shoe: the pit shows a drop and a hold
TABLE_STOP_S = 20.0  # a table finishes its journal write and says offline; past this it is killed


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="run a whole simulated floor (the pit page on --http)",
                                   description=__doc__.splitlines()[0],
                                   formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_arguments(parser)
    parser.set_defaults(handler=run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=int, default=4, help="how many simulated tables")
    parser.add_argument("--http", default="127.0.0.1:8090", help="the pit page (HOST:PORT)")
    parser.add_argument("--dsn", help="the floor's PostgreSQL database (default: a throwaway cluster)")
    parser.add_argument("--data-dir", help="where the broker, the cluster and the journals live "
                                           "(default: a temporary directory, removed at the end)")
    parser.add_argument("--pace", type=float, default=0.6, help="seconds between each dealer's actions")
    parser.add_argument("--error-rate", type=float, default=0.05, help="how often each simulated dealer errs")
    parser.add_argument("--seconds", type=float, default=None, help="stop after this long (default: Ctrl-C)")
    parser.add_argument("--seed", type=int, default=1, help="the first table's seed; the next ones count up")
    parser.add_argument("--profile", default="fr-casino", choices=sorted(PROFILES),
                        help="every table's rules (fr-2020: surrender and the hyper black jack field played)")
    parser.add_argument("--language", default="fr", choices=("fr", "en"), help="the pit page's first language")
    parser.add_argument("--prefix", default="casino", help="the feed's topic prefix")
    parser.add_argument("--staff", action="store_true",
                        help="every table under a staff registry of simulated dealers, who rotate from table to "
                             "table (each table starts on the next dealer)")
    parser.add_argument("--rotate-minutes", type=float, default=30.0,
                        help="with --staff: minutes of play between two dealers' rotations")


def _http(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError("--http", f"{text!r}: HOST:PORT, e.g. 127.0.0.1:8090")
    return host.strip("[]"), int(port)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.tables <= 50:
        raise ConfigError("--tables", "a whole number from 1 to 50")
    if args.seconds is not None and args.seconds <= 0:
        raise ConfigError("--seconds", "a positive number of seconds")
    if args.rotate_minutes <= 0:
        raise ConfigError("--rotate-minutes", "a number of minutes above 0")
    _http(args.http)  # the pit page's token, if any, from FLOOR_PIT_TOKEN as for `table-floor run`
    own = args.data_dir is None
    work = Path(tempfile.mkdtemp(prefix="floor-demo-")) if own else Path(args.data_dir)
    work.mkdir(parents=True, exist_ok=True)
    try:
        return asyncio.run(_floor(args, work))
    except (BrokerError, PostgresError, OSError) as error:
        print(f"table-floor demo: {error}", file=sys.stderr)
        return 1
    except ExceptionGroup as group:  # from the floor's task group: the first failure, in one line
        first = group.exceptions[0]
        while isinstance(first, ExceptionGroup):
            first = first.exceptions[0]
        if not isinstance(first, (BrokerError, PostgresError, OSError)):
            raise
        print(f"table-floor demo: {first}", file=sys.stderr)
        return 1
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def _say(text: str) -> None:
    print(text, flush=True)


async def _floor(args: argparse.Namespace, work: Path) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    with contextlib.ExitStack() as stack:
        broker = MosquittoBroker(directory=work / "broker")
        stack.callback(broker.close)
        await asyncio.to_thread(broker.start)
        _say(f"broker: {broker.url}")
        dsn = args.dsn
        if dsn is None:
            # Its own temporary directory unless --data-dir: as root the cluster runs as an unprivileged user,
            # who must be able to reach it.
            cluster = None
            if args.data_dir is not None:
                cluster = work / "postgres"
                cluster.mkdir(exist_ok=True)
            database = PostgresServer(directory=cluster)
            stack.callback(database.close)
            await asyncio.to_thread(database.start)
            dsn = database.dsn
        # The floor as `table-floor run` runs it: the service storing every table's feed, the pit page beside it.
        config = config_from_mapping({"floor": {"dsn": dsn, "floor_id": "demo-floor"},
                                      "brokers": [{"url": broker.url, "prefix": args.prefix}],
                                      "pit": {"bind": args.http}}, environ=os.environ)  # fmt: skip
        store = await FloorStore.open(dsn)
        started = time.time()
        try:
            _say(f"database: {dsn}")
            async with asyncio.TaskGroup() as tasks:
                pit_ready: asyncio.Future[PitServer] = loop.create_future()
                floor = FloorService(config, store)
                service = tasks.create_task(floor.run())
                pit = tasks.create_task(serve_pit(config, store=store, service=floor, language=args.language,
                                                  started=pit_ready.set_result))
                server = await pit_ready
                _say(f"pit page: {server.url}")

                def floor_off() -> None:  # a Ctrl-C reaches the broker too (one process group): stop following
                    pit.cancel()
                    service.cancel()

                await _tables(args, broker.url, work, stop, on_stop=floor_off)
            _say(shift_line(await shift_figures(store, started, time.time())))
        finally:
            await store.close()
    _say("floor demo stopped")
    return 0


async def shift_figures(store: FloorStore, start: float, end: float) -> dict[str, Any]:
    """What the floor stored of the demo's shift, [start, end): the tables it heard from, the rounds, handle, drop
    (buy-ins), the house's win, and the alarms by kind (the tables' and the floor's own)."""
    async with store.pool.acquire() as connection:
        tables = await connection.fetchval(
            "SELECT count(DISTINCT table_id) FROM events WHERE ts >= $1 AND ts < $2", start, end)
        rounds = await connection.fetchrow(
            "SELECT count(*) AS rounds, coalesce(sum(handle_cents), 0)::bigint "
            "AS handle_cents, coalesce(sum(win_cents), 0)::bigint AS win_cents FROM rounds WHERE ts >= $1 AND ts < $2",
            start, end)
        drop = await connection.fetchval(
            "SELECT coalesce(sum(cents), 0)::bigint FROM buy_ins WHERE ts >= $1 AND ts < $2", start, end)
        kinds = await connection.fetch(
            "SELECT kind, count(*) AS n FROM (SELECT kind FROM alarms WHERE ts >= $1 AND ts < $2 UNION ALL "
            "SELECT kind FROM floor_alarms WHERE raised_at >= to_timestamp($1) AND raised_at < to_timestamp($2)) "
            "AS raised GROUP BY kind ORDER BY n DESC, kind", start, end)
    return {"start": start, "end": end, "tables": tables, "rounds": rounds["rounds"],
            "handle_cents": rounds["handle_cents"], "drop_cents": drop, "win_cents": rounds["win_cents"],
            "alarms": {row["kind"]: row["n"] for row in kinds}}


def shift_line(figures: dict[str, Any]) -> str:
    """The demo's shift in one line, as the pit page counts it."""
    start, end = (dt.datetime.fromtimestamp(figures[key], dt.UTC).strftime("%H:%M:%S") for key in ("start", "end"))
    alarms = figures["alarms"]
    kinds = ", ".join(f"{kind} {count}" for kind, count in alarms.items())
    return (f"shift {start}-{end} UTC: {figures['tables']} table(s), {figures['rounds']} round(s), handle "
            f"{euros(figures['handle_cents'])}, drop {euros(figures['drop_cents'])}, win "
            f"{euros(figures['win_cents'])}, {sum(alarms.values())} alarm(s)" + (f" ({kinds})" if kinds else ""))


async def _tables(
    args: argparse.Namespace, broker_url: str, work: Path, stop: asyncio.Event, *, on_stop: Callable[[], Any]
) -> None:
    """Start the tables, run until `stop` (or --seconds), then `on_stop()`, stop every table and wait for it."""
    tables: list[asyncio.subprocess.Process] = []
    logs = work / "logs"
    logs.mkdir(exist_ok=True)
    run_id = uuid.uuid4().hex[:6]
    try:
        for index in range(args.tables):
            table_id = f"T{index + 1:02d}"
            with (logs / f"{table_id}.log").open("ab") as log:
                tables.append(await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "table_runtime", "demo", "--http", "off", "--mqtt", broker_url,
                    "--mqtt-prefix", args.prefix, "--table-id", table_id, "--seed", str(args.seed + index),
                    "--pace", str(args.pace), "--error-rate", str(args.error_rate),
                    "--buy-in-cents", str(FLOOR_BUY_IN_CENTS), "--profile", args.profile,
                    "--data-dir", str(work / "tables" / table_id),
                    *(("--staff", "--rotate-minutes", str(args.rotate_minutes), "--first-dealer",
                       str(index % len(DEALERS) + 1)) if args.staff else ()),
                    stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log,
                    start_new_session=True,  # stopped by us, after the pit, not by the terminal's Ctrl-C
                ))  # fmt: skip
        _say(f"tables: {', '.join(f'T{i + 1:02d}' for i in range(args.tables))} (run {run_id}; logs in {logs})")
        waiting = [asyncio.create_task(table.wait()) for table in tables]
        stopper = asyncio.create_task(stop.wait())
        try:
            done, _ = await asyncio.wait([stopper, *waiting], timeout=args.seconds,
                                         return_when=asyncio.FIRST_COMPLETED)
            for finished in done:
                if finished is not stopper:
                    _say("a table stopped on its own; stopping the floor (see its log)")
        finally:
            stopper.cancel()
            for task in waiting:
                task.cancel()
    finally:
        on_stop()
        await _stop_tables(tables)


async def _stop_tables(tables: list[asyncio.subprocess.Process]) -> None:
    for table in tables:
        if table.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                table.send_signal(signal.SIGTERM)
    for table in tables:
        try:
            async with asyncio.timeout(TABLE_STOP_S):
                await table.wait()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                table.kill()
            await table.wait()


def main(argv: list[str] | None = None) -> int:
    """``python -m simulators.commands.floor_demo``: the same as ``table-floor demo``."""
    parser = argparse.ArgumentParser(prog="table-floor demo", description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except ConfigError as error:
        print(f"table-floor demo: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
