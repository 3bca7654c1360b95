"""`table-floor ratings forget PLAYER`: a player's rated data erased from the floor on his request (GDPR art. 17).

Erases his rated sessions and their round lines and blanks his pseudonym on the stored buy-ins, in one
transaction; prints what it erased. The journal rows the floor keeps (`events`) are the tables' hash-chained
record and keep what the table journaled (docs/floor.md, "Player ratings").
"""

from __future__ import annotations

import argparse
import asyncio
import sys

import asyncpg

from casino_floor.config import FloorConfig, load_config
from casino_floor.ratings import forget_player


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ratings = commands.add_parser("ratings", help="the rated players' data at the floor")
    actions = ratings.add_subparsers(dest="ratings_action", required=True)
    forget = actions.add_parser("forget", help="erase a player's rated sessions (his pseudonym, as the feed gives it)")
    forget.add_argument("player", help="the player's pseudonymous id, e.g. p-3f9a0c1b2d4e")
    forget.add_argument("--config", required=True, help="the floor's TOML file")
    forget.set_defaults(handler=run_forget)


async def _forget(config: FloorConfig, player: str) -> tuple[int, int]:
    password = config.pg_password.reveal() if config.pg_password else None
    connection = await asyncpg.connect(config.dsn, password=password)
    try:
        return await forget_player(connection, player)
    finally:
        await connection.close()


def run_forget(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    try:
        sessions, buy_ins = asyncio.run(_forget(config, args.player))
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        print(f"table-floor: the database: {error}", file=sys.stderr)
        return 2
    print(f"player {args.player}: {sessions} rated session(s) erased, his id blanked on {buy_ins} buy-in(s)")
    return 0
