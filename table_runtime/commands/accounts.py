"""`table-runtime accounts`: every séance of the table, from the journal alone (docs/accounts.md).

    table-runtime accounts --data-dir D [--json]
    table-runtime accounts --data-dir D --carnet SEANCE --pdf FILE [--csv FILE]
    table-runtime accounts --data-dir D --registre YYYY-MM-DD --pdf FILE [--csv FILE]

The carnet d'avances of a séance and the registre de contrôle of a day (table_runtime/registers/), each with the
journal head it was made from.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from table_runtime.commands.arguments import count_of, existing_journal
from table_runtime.core.seance import euros
from table_runtime.journal import Journal
from table_runtime.registers.csv_text import carnet_csv, registre_csv
from table_runtime.registers.lines import RegisterError, carnet, parse_day, registre, seance_lines
from table_runtime.registers.pdf import carnet_pdf, registre_pdf
from table_runtime.runtime.accounts import seance_accounts


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("accounts", help="every séance of the table from the journal: opener, fills, "
                                                    "credits, drop, closer, tips, win")
    parser.add_argument("--data-dir", default="/var/lib/table-runtime", help="the table's data directory")
    parser.add_argument("--json", action="store_true", help="one JSON object: the journal head and the séances")
    register = parser.add_mutually_exclusive_group()
    register.add_argument("--carnet", type=count_of("séance"), metavar="SEANCE",
                          help="the carnet d'avances (modèle n° 10) of séance SEANCE, into --pdf and/or --csv")
    register.add_argument("--registre", metavar="DAY",
                          help="the registre de contrôle (modèle n° 12) of DAY (YYYY-MM-DD, the séances opened that "
                               "day, UTC), into --pdf and/or --csv")
    parser.add_argument("--pdf", type=Path, metavar="FILE", help="the register as a printable PDF (A4, French)")
    parser.add_argument("--csv", type=Path, metavar="FILE", help="the register as CSV (cents, with the journal head)")
    parser.set_defaults(handler=run)


def write_registers(accounts: dict[str, Any], args: argparse.Namespace) -> str:
    """The carnet or the registre asked for, into its files; the line that says what was written."""
    if args.pdf is None and args.csv is None:
        raise RegisterError("--carnet and --registre write --pdf FILE and/or --csv FILE")
    lines = seance_lines(accounts)
    source = f"le journal de la table {accounts['table_id']}"
    if args.carnet is not None:
        seance = next((line for line in lines if line.seance == args.carnet), None)
        if seance is None:
            raise RegisterError(f"séance {args.carnet}: the journal holds séances 1 to {len(lines)}"
                                if lines else f"séance {args.carnet}: the journal holds no séance")
        what = f"carnet d'avances of séance {seance.seance}, head row {seance.head.seq}"
        if args.pdf is not None:
            args.pdf.write_bytes(carnet_pdf(carnet(seance), source=source))
        if args.csv is not None:
            args.csv.write_text(carnet_csv([seance]), encoding="utf-8")
    else:
        day = registre(parse_day(args.registre), lines)
        what = f"registre de contrôle of {day.day.isoformat()}: {day.total.seances} séance(s) closed"
        if args.pdf is not None:
            args.pdf.write_bytes(registre_pdf(day, source=source))
        if args.csv is not None:
            args.csv.write_text(registre_csv(day), encoding="utf-8")
    return f"{what} ({', '.join(str(path) for path in (args.pdf, args.csv) if path is not None)})"


def run(args: argparse.Namespace) -> int:
    with Journal.open(existing_journal(args.data_dir)) as journal:
        accounts = seance_accounts(journal)
    if args.carnet is not None or args.registre is not None:
        print(write_registers(accounts, args))
        return 0
    if args.pdf is not None or args.csv is not None:
        raise RegisterError("--pdf and --csv write a register: name it, --carnet SEANCE or --registre DAY")
    if args.json:
        print(json.dumps(accounts, indent=1, ensure_ascii=False))
        return 0
    head = accounts["journal_head"]
    print(f"table {accounts['table_id']}: journal {accounts['journal_id']}, head row {head['seq']} ({head['hash']})")
    for seance in accounts["seances"]:
        state = "open" if seance["open"] else "closed"
        closer = "not counted" if seance["closer_cents"] is None else euros(seance["closer_cents"])
        win = "-" if seance["win_cents"] is None else euros(seance["win_cents"])
        print(f"== séance {seance['seance']} ({state})")
        print(f"  opener {euros(seance['opener_cents'])}  fills {euros(seance['fills_cents'])} ({seance['fills']})  "
              f"credits {euros(seance['credits_cents'])} ({seance['credits']})")
        print(f"  drop {euros(seance['drop_cents'])} (cash {euros(seance['drop_cash_cents'])}, markers "
              f"{euros(seance['drop_marker_cents'])})  closer {closer}  win {win}")
        print(f"  tips {euros(seance['tips_cents'])} ({seance['tips']}, tronc)  orphan chips "
              f"{euros(seance['orphans_cents'])}  players' net {euros(seance['players_net_cents'])}")
        for slip in seance["slips"]:
            confirmed = "confirmed" if slip["confirmed_by"] else "WAITS for the supervisor"
            print(f"  slip {slip['number']} {slip['kind']} {euros(slip['cents'])}: {confirmed}")
    print(f"{len(accounts['seances'])} séance(s)")
    return 0
