"""`table-floor group setup|status|retention --config group.toml`: the group's replication made and watched, and the
group's own retention of rated sessions (group.py).

Bad input (a configuration key, a database that cannot be reached, a casino already named otherwise) is one line on
stderr and exit 2.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import asyncpg

from casino_floor import group, group_queries, rating_queries
from casino_floor.group_config import GroupConfig, load_group_config
from casino_floor.ratings import DEFAULT_RETENTION_DAYS
from table_runtime.errors import ConfigError


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parent = commands.add_parser("group", help="every casino's floor replicated into the group's database")
    actions = parent.add_subparsers(dest="group_action", required=True)
    for name, text in (("setup", "publish each casino's facts and subscribe the group to them (idempotent)"),
                       ("status", "each casino's subscription: running, tables copying, lag"),
                       ("retention", "at the group: the months ahead made, the rated sessions' months past "
                                     "--ratings-days dropped (a casino's drops do not replicate)")):
        action = actions.add_parser(name, help=text)
        action.add_argument("--config", required=True, help="the group's TOML file (docs/floor.md, The group)")
        action.add_argument("--format", choices=("csv", "json"), default="csv")
        if name == "retention":
            action.add_argument("--ratings-days", type=int, default=DEFAULT_RETENTION_DAYS,
                                help=f"days rated sessions are kept at the group (default {DEFAULT_RETENTION_DAYS})")
        action.set_defaults(handler=run_group)


async def ask_group(config: GroupConfig, question: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    """`table-floor query money|ratings --group`: the question asked of the group's database."""
    connection = await asyncpg.connect(config.dsn, password=config.password.reveal() if config.password else None)
    try:
        if question == "money":
            per_table = args.by == "casino,table,shift"
            by: group_queries.MoneyGrouping = "casino,table,shift" if per_table else "casino,shift"
            return await group_queries.group_money(connection, config.shifts, args.shift, by)
        if question == "ratings":
            return await rating_queries.ratings(connection, config.shifts, args.by or "player", args.start, args.end)
        raise ConfigError("--group", f"query {question} asks one casino's floor: only money and ratings take --group")
    finally:
        await connection.close()


def run_group(args: argparse.Namespace) -> int:
    from casino_floor.cli import write  # the one writer of rows as CSV or JSON

    # A bad key or an unreachable database is the CLI's one line (casino_floor/cli.py main).
    config = load_group_config(args.config)
    if args.group_action == "retention":
        rows = [asyncio.run(group.retention(config, args.ratings_days, time.time())).summary()]
    else:
        rows = asyncio.run(group.setup(config) if args.group_action == "setup" else group.status(config))
    write(rows, args.format)
    return 0
