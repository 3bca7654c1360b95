"""`table-floor`: the floor service and the floor manager's questions.

    table-floor run --config floor.toml
    table-floor check-config --config floor.toml
    table-floor query rounds --table T01 --from 2026-12-01T06:00 --to 2026-12-01T14:00 [--format csv|json]
    table-floor query events --table T01 --from 2026-12-01T06:00 --to 2026-12-01T14:00 [--format csv|json]
    table-floor query alarms --shift 2026-12-01T06
    table-floor query money --shift 2026-12-01T06
    table-floor query round --table T01 --round 412
    table-floor query verify --table T01
    table-floor query ratings --by player --from 2026-12-01T06:00 --to 2026-12-02T06:00
    table-floor query dealers --by dealer|table|shift --from 2026-12-01T06:00 --to 2026-12-02T06:00
    table-floor query collusion --from 2026-11-24T00:00 --to 2026-12-01T00:00 [--alpha 0.01] [--all]
    table-floor query seances --day 2026-12-01 [--format csv|json]
    table-floor registre --day 2026-12-01 --pdf registre.pdf [--csv registre.csv]
    table-floor query meters [--table T01] --from 2026-12-01T06:00 --to 2026-12-02T06:00
    table-floor ratings forget p-3f9a0c1b2d4e
    table-floor retention --config floor.toml
    table-floor group setup --config group.toml
    table-floor group status --config group.toml
    table-floor query money --group --by casino,shift --shift 2026-12-01T06 --config group.toml
    table-floor query ratings --group --by player --from 2026-12-01T06:00 --to 2026-12-02T06:00 --config group.toml

Bad input (a configuration key, a date, a database that cannot be reached) is one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import datetime as dt
import json
import logging
import sys
import time
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any

import asyncpg

from casino_floor import (
    collusion_store,
    dealer_work,
    group_commands,
    meters,
    partitions,
    queries,
    rating_commands,
    rating_queries,
    register_commands,
    seances,
)
from casino_floor.config import FloorConfig, load_config
from casino_floor.group_config import load_group_config
from casino_floor.group_queries import MONEY_GROUPINGS
from casino_floor.migrate import migrate
from casino_floor.pit.serve import run_pit
from casino_floor.service import FloorService
from casino_floor.store import FloorStore
from table_runtime.errors import ConfigError
from table_runtime.loop_errors import log_loop_errors


def _time(text: str) -> float:
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a time like 2026-12-01T06:00 (UTC unless it says)") from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)).timestamp()


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: a chance between 0 and 1, like 0.01")
    return value


COMMANDS_GROUP = "casino_floor.commands"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="table-floor", description="The floor: every table's feed, stored and "
                                                                     "checked (docs/floor.md).")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("run", "follow the feeds and store them"), ("check-config", "check the configuration"),
                       ("retention", "make the months ahead and drop those past the retention, as the service does "
                                     "daily (docs/floor.md, Retention by partition)")):
        command = commands.add_parser(name, help=text)
        command.add_argument("--config", required=True, help="the floor's TOML file")
        if name == "retention":
            command.add_argument("--format", choices=("csv", "json"), default="csv")
    query = commands.add_parser("query", help="ask the store").add_subparsers(dest="question", required=True)
    asks = {
        "rounds": ("the rounds of a table between two times", ("table", "from", "to")),
        "events": ("a table's significant events between two times (docs/events.md)", ("table", "from", "to")),
        "alarms": ("every alarm of a shift, the tables' and the floor's", ("shift",)),
        "money": ("handle, drop, win, hold (win / drop) and win / handle per table for a shift", ("shift",)),
        "round": ("one round in full, as the table's recall shows it", ("table", "round")),
        "verify": ("recompute a table's hash chain from the stored rows", ("table",)),
        "ratings": ("rated sessions started between two times, by player, table or shift", ("from", "to", "by")),
        "dealers": ("the dealers' pace and errors per 100 rounds, their stints begun between two times, by dealer, "
                    "table or shift", ("from", "to", "dealers_by")),
        "collusion": ("the (dealer, rated player) pairs whose errors favour the player beyond chance, in the rounds "
                      "between two times, with their evidence", ("from", "to", "collusion")),
        "seances": ("every séance opened on a day (UTC), per table: opener, fills, credits, drop, closer, tips, win "
                    "and the journal head its figures came from (docs/accounts.md)", ("day",)),
        "meters": ("the tables' lifetime meters snapshots (séance closes, gaming days' ends, RAM clears) between two "
                   "times", ("from", "to", "any_table")),
    }
    for name, (text, needs) in asks.items():
        ask = query.add_parser(name, help=text)
        ask.add_argument("--config", required=True, help="the floor's TOML file")
        ask.add_argument("--format", choices=("csv", "json"), default="csv")
        if "table" in needs:
            ask.add_argument("--table", required=True)
        if "any_table" in needs:
            ask.add_argument("--table", default=None, help="one table (default: every table)")
        if "from" in needs:
            ask.add_argument("--from", dest="start", type=_time, required=True, help="ISO time, UTC by default")
            ask.add_argument("--to", dest="end", type=_time, required=True)
        if "shift" in needs:
            ask.add_argument("--shift", required=True, help="YYYY-MM-DDTHH: the shift starting at that UTC hour")
        if "round" in needs:
            ask.add_argument("--round", type=int, required=True)
        if "day" in needs:
            ask.add_argument("--day", type=register_commands.day, required=True, help="YYYY-MM-DD")
        if "by" in needs:
            ask.add_argument("--by", choices=rating_queries.GROUPINGS, default=None,
                             help="default: player")
        if "dealers_by" in needs:
            ask.add_argument("--by", choices=dealer_work.GROUPINGS, default="dealer")
        if "collusion" in needs:
            ask.add_argument("--alpha", type=_alpha, default=0.01,
                             help="the chance of any false flag over every pair tested (default 0.01)")
            ask.add_argument("--all", dest="every_pair", action="store_true", help="every pair tested, not only "
                                                                                   "the flagged")
        if name in ("money", "ratings"):
            ask.add_argument("--group", action="store_true",
                             help="ask the group's database, across casinos (--config: the group's TOML file)")
        if name == "money":
            ask.add_argument("--by", choices=MONEY_GROUPINGS, default=None, help="with --group: default casino,shift")
    rating_commands.register(commands)  # `ratings forget PLAYER`
    register_commands.register(commands)  # `registre --day D --pdf FILE`
    group_commands.register(commands)  # `group setup|status`
    # Commands other packages add without casino_floor importing them: the simulators' `demo`.
    for entry in entry_points(group=COMMANDS_GROUP):
        entry.load().register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    handler = getattr(args, "handler", None)
    if handler is not None:  # a command with its own handler (`group`, `ratings`, another package's)
        try:
            return int(handler(args))
        except ConfigError as error:
            print(f"table-floor: {error}", file=sys.stderr)
            return 2
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            print(f"table-floor: the database: {error}", file=sys.stderr)
            return 2
    try:
        if getattr(args, "group", False):
            rows = asyncio.run(group_commands.ask_group(load_group_config(args.config), args.question, args))
            write(rows, args.format)
            return 0
        if args.command == "query" and args.question == "money" and args.by is not None:
            raise ConfigError("--by", "money per table is the floor's own question: --by needs --group")
        config = load_config(args.config)
        if args.command == "check-config":
            print(describe(config))
            if (warning := partition_warning(config)) is not None:
                print(f"table-floor: warning: {warning}", file=sys.stderr)
            return 0
        if args.command == "run":
            asyncio.run(run(config))
            return 0
        if args.command == "retention":
            write([asyncio.run(retention(config))], args.format)
            return 0
        rows = asyncio.run(ask(config, args))
    except ConfigError as error:
        print(f"table-floor: {error}", file=sys.stderr)
        return 2
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        print(f"table-floor: the database: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    write(rows, args.format)
    return 0


def describe(config: FloorConfig) -> str:
    tables = "every table" if config.tables is None else f"{len(config.tables)} tables"
    brokers = ", ".join(f"{broker.address.url} ({broker.prefix})" for broker in config.brokers)
    return (f"floor {config.floor_id}: {tables}, partition {config.partition.index}/{config.partition.count}, "
            f"brokers {brokers}, replay {'signed' if config.replay_secret else 'off (no secret)'}, "
            f"pit on {config.pit_bind}, rated sessions kept {config.ratings_retention_days} days, "
            f"signed heads from {len(config.head_keys)} table(s) (the others count unsigned)")


def partition_warning(config: FloorConfig) -> str | None:
    """What to say of a partition over the wildcard: each process then reads every table's messages."""
    if config.partition.count > 1 and config.tables is None:
        return (f"partition {config.partition.index}/{config.partition.count} with no [floor] tables list: this "
                "process receives every table's messages and keeps its part; list its tables so it receives only "
                "its own (docs/floor.md, Scale out)")
    return None


async def run(config: FloorConfig) -> None:
    log_loop_errors()  # a library's callback failing (a socket closed under it) is one log line
    if (warning := partition_warning(config)) is not None:
        logging.getLogger("casino_floor").warning("%s", warning)
    store = await FloorStore.open(config.dsn, password=config.pg_password.reveal() if config.pg_password else None,
                                  method=config.write_method)  # type: ignore[arg-type]  # checked by the config
    try:
        async with asyncio.TaskGroup() as tasks:  # the pit page beside the service, in the same process
            service = FloorService(config, store)
            tasks.create_task(service.run())
            tasks.create_task(run_pit(config, store=store, service=service))
    finally:
        await store.close()


async def retention(config: FloorConfig) -> dict[str, Any]:
    """`table-floor retention`: the service's daily upkeep of the partitions, once, now; what it did."""
    password = config.pg_password.reveal() if config.pg_password else None
    connection = await asyncpg.connect(config.dsn, password=password)
    try:
        await migrate(connection)
        kept = await partitions.keep(connection, time.time(), ratings_days=config.ratings_retention_days,
                                     events_days=config.events_retention_days)
    finally:
        await connection.close()
    return kept.summary()


async def ask(config: FloorConfig, args: argparse.Namespace) -> list[dict[str, Any]]:
    password = config.pg_password.reveal() if config.pg_password else None
    connection = await asyncpg.connect(config.dsn, password=password)
    try:
        if args.question == "rounds":
            return await queries.rounds_between(connection, args.table, args.start, args.end)
        if args.question == "events":
            return await queries.significant_events_between(connection, args.table, args.start, args.end)
        if args.question == "alarms":
            return await queries.shift_alarms(connection, config.shifts, args.shift)
        if args.question == "money":
            return await queries.shift_money(connection, config.shifts, args.shift)
        if args.question == "round":
            return [await queries.round_record(connection, args.table, args.round)]
        if args.question == "meters":
            return await meters.snapshots(connection, args.table, args.start, args.end)
        if args.question == "dealers":
            return await dealer_work.dealers(connection, config.shifts, args.by, args.start, args.end)
        if args.question == "collusion":
            return await collusion_store.collusion(connection, args.start, args.end, alpha=args.alpha,
                                                   every_pair=args.every_pair)
        if args.question == "seances":
            return await seances.seances_of_day(connection, args.day)
        if args.question == "ratings":
            return await rating_queries.ratings(connection, config.shifts, args.by or "player", args.start, args.end)
        return await queries.verify_chain(connection, args.table)
    finally:
        await connection.close()


def write(rows: list[dict[str, Any]], form: str) -> None:
    if form == "json":
        print(json.dumps(rows, indent=1, default=str))
        return
    if not rows:
        return
    columns = list(rows[0])
    out = csv.DictWriter(sys.stdout, fieldnames=columns, extrasaction="ignore")
    out.writeheader()
    for row in rows:
        out.writerow({key: json.dumps(value) if isinstance(value, (dict, list)) else value
                      for key, value in row.items()})
