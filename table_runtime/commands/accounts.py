"""`table-runtime accounts`: every séance of the table, from the journal alone (docs/accounts.md)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from table_runtime.commands.arguments import existing_journal
from table_runtime.core.seance import euros
from table_runtime.journal import Journal
from table_runtime.runtime.accounts import seance_accounts


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("accounts", help="every séance of the table from the journal: opener, fills, "
                                                    "credits, drop, closer, tips, win")
    parser.add_argument("--data-dir", default="/var/lib/table-runtime", help="the table's data directory")
    parser.add_argument("--json", action="store_true", help="one JSON object: the journal head and the séances")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with Journal.open(existing_journal(args.data_dir)) as journal:
        accounts = seance_accounts(journal)
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
