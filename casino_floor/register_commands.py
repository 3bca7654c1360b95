"""`table-floor registre --day D --pdf FILE [--csv FILE]`: the casino's registre de contrôle of a day (arrêté du
14 mai 2007, art. 69), from the séances the floor stored (casino_floor/seances.py), each table's row with the
journal head its figures came from (docs/accounts.md "The registers"; docs/floor.md).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
from pathlib import Path

import asyncpg

from casino_floor.config import FloorConfig, load_config
from casino_floor.seances import seance_line, seances_of_day
from table_runtime.registers.csv_text import registre_csv
from table_runtime.registers.lines import RegisterError, Registre, parse_day, registre
from table_runtime.registers.pdf import registre_pdf


def day(text: str) -> dt.date:
    """An argparse type: a day, ``YYYY-MM-DD``."""
    try:
        return parse_day(text)
    except RegisterError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    command = commands.add_parser("registre", help="the registre de contrôle (modèle n° 12) of a day, as PDF and CSV")
    command.add_argument("--config", required=True, help="the floor's TOML file")
    command.add_argument("--day", type=day, required=True, help="YYYY-MM-DD: the séances opened that day (UTC)")
    command.add_argument("--pdf", type=Path, required=True, metavar="FILE", help="the printable PDF (A4, French)")
    command.add_argument("--csv", type=Path, metavar="FILE", help="the same rows as CSV (cents, with the heads)")
    command.set_defaults(handler=run_registre)


async def day_registre(config: FloorConfig, of: dt.date) -> tuple[Registre, list[str]]:
    """The registre of the day from the store, and a line per table whose head the floor has not verified yet."""
    password = config.pg_password.reveal() if config.pg_password else None
    connection = await asyncpg.connect(config.dsn, password=password)
    try:
        found = await seances_of_day(connection, of)
    finally:
        await connection.close()
    unverified = sorted({f"{seance['table_id']}: the floor holds journal {seance['journal']} with a gap below row "
                         f"{seance['head_seq']} (its replay will fill it)" for seance in found
                         if not seance["chain_verified"]})
    return registre(of, [seance_line(seance) for seance in found]), unverified


def run_registre(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    try:
        made, unverified = asyncio.run(day_registre(config, args.day))
    except RegisterError as error:
        print(f"table-floor: registre: {error}", file=sys.stderr)
        return 2
    for line in unverified:
        print(f"table-floor: warning: {line}", file=sys.stderr)
    args.pdf.write_bytes(registre_pdf(made, source=f"la base de l'étage {config.floor_id}"))
    if args.csv is not None:
        args.csv.write_text(registre_csv(made), encoding="utf-8")
    print(f"registre de contrôle of {made.day.isoformat()}: {len(made.rows)} table(s), {made.total.seances} "
          f"séance(s) closed, produit brut {made.total.win_cents} cents")
    return 0
