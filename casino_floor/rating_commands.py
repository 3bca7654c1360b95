"""`table-floor ratings forget PLAYER`: a player's rated data erased from the floor on his request (GDPR art. 17).

Erases his rated sessions and their round lines, blanks his pseudonym on the stored buy-ins, and replaces it
wherever else the floor's database holds it (the tables' states, alarms, round records, journal rows, quarantine,
evidence), in one transaction; prints what it erased (docs/floor.md, "Player ratings").
"""

from __future__ import annotations

import argparse
import asyncio
import sys

import asyncpg

from casino_floor.config import FloorConfig, load_config
from casino_floor.ratings import Forgotten, forget_player


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ratings = commands.add_parser("ratings", help="the rated players' data at the floor")
    actions = ratings.add_subparsers(dest="ratings_action", required=True)
    forget = actions.add_parser("forget", help="erase a player's rated sessions (his pseudonym, as the feed gives it)")
    forget.add_argument("player", help="the player's pseudonymous id, e.g. p-3f9a0c1b2d4e")
    forget.add_argument("--config", required=True, help="the floor's TOML file")
    forget.set_defaults(handler=run_forget)


async def _forget(config: FloorConfig, player: str) -> Forgotten:
    password = config.pg_password.reveal() if config.pg_password else None
    connection = await asyncpg.connect(config.dsn, password=password)
    try:
        return await forget_player(connection, player)
    finally:
        await connection.close()


def run_forget(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    try:
        done = asyncio.run(_forget(config, args.player))
    except ValueError as error:
        print(f"table-floor: ratings forget: {error}", file=sys.stderr)
        return 2
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        print(f"table-floor: the database: {error}", file=sys.stderr)
        return 2
    print(f"player {args.player}: {done.sessions} rated session(s) erased, his id blanked on {done.buy_ins} "
          f"buy-in(s), replaced in {done.rows} other row(s)")
    return 0
