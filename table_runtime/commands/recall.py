"""`table-runtime recall`: the last rounds step by step, from the journal alone."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from table_runtime.commands.arguments import count_of, existing_journal
from table_runtime.errors import ConfigError, JournalError
from table_runtime.journal import Journal
from table_runtime.runtime.recall import euros, name_authors, recall_rounds
from table_runtime.runtime.staff_desk import read_staff
from table_runtime.runtime.terms import journal_terms


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("recall", help="replay the last rounds step by step from the journal")
    parser.add_argument("--data-dir", default="/var/lib/table-runtime", help="the table's data directory")
    parser.add_argument("--last", type=count_of("rounds"), default=10, help="how many rounds, 1 or more (default 10)")
    parser.add_argument("--json", action="store_true", help="a JSON list, one object per round")
    parser.add_argument("--staff", type=Path, default=None,
                        help="the staff registry, to name each step's author (default $TABLE_STAFF_DB if set)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    path = existing_journal(args.data_dir)
    with Journal.open(path) as journal:
        terms = journal_terms(journal)
        if terms is None:
            raise JournalError(f"{path}: the journal does not say which rules it was played under")
        table_id = terms.table_id
        rounds = recall_rounds(journal, last=args.last)
    staff = args.staff or (Path(os.environ["TABLE_STAFF_DB"]) if os.environ.get("TABLE_STAFF_DB") else None)
    if staff is not None:
        try:
            name_authors(rounds, read_staff(staff).name)
        except ConfigError as error:
            raise JournalError(f"--staff: {error.message}") from error
    if args.json:
        print(json.dumps(rounds, indent=1))
        return 0
    for round_ in rounds:
        void = round_.get("void")
        result = f"voided by {void['by']}: {void['reason']}" if void else round_["result"]
        print(f"== round {round_['round']} (table {table_id}, shoe {round_['shoe_id']}): {result}")
        for step in round_["steps"]:
            author = step.get("name", step.get("employee"))
            print(f"  #{step['seq']:<7} {step['text']}" + (f"  ({author})" if author else ""))
        for payout in round_["payouts"]:
            verb = "paid" if payout["net_cents"] > 0 else "collected" if payout["net_cents"] < 0 else "push"
            print(f"  box{payout['box']}.hand{payout['hand']} {payout['owner']} {payout['kind']}: "
                  f"{payout['outcome']} {verb} {euros(abs(payout['net_cents']))}")
        for alarm in round_["alarms"]:
            print(f"  ALARM #{alarm['id']} {alarm['kind']}: {alarm['message']}")
    print(f"{len(rounds)} round(s) recalled")
    return 0
