"""`table-runtime journal`: check the hash chain of a table's journal, show its last rows, start a new one (a RAM
clear, runtime/journal_clear.py)."""

from __future__ import annotations

import argparse
import datetime
import json
import time
from typing import Any

from table_runtime.commands.arguments import employee_id, existing_journal
from table_runtime.journal import Journal, journal_path, verify_file


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("journal", help="check or show the journal of a data directory")
    actions = parser.add_subparsers(dest="journal_command", required=True, metavar="ACTION")

    verify = actions.add_parser("verify", help="check the whole hash chain; exit 1 naming the first bad row")
    verify.add_argument("--data-dir", required=True, help="the table's data directory (holds journal.db)")
    verify.set_defaults(handler=run_verify)

    tail = actions.add_parser("tail", help="print the last rows")
    tail.add_argument("--data-dir", required=True, help="the table's data directory (holds journal.db)")
    tail.add_argument("-n", "--lines", type=int, default=20, help="how many rows (default 20)")
    tail.add_argument("--json", action="store_true", help="one JSON object per line")
    tail.set_defaults(handler=run_tail)

    clear = actions.add_parser("clear", help="a RAM clear: set the journal aside (renamed, kept) and start a new "
                                             "one whose first row says who did it and the meters it closed")
    clear.add_argument("--data-dir", required=True, help="the table's data directory (holds journal.db)")
    clear.add_argument("--employee", required=True, type=employee_id,
                       help="who clears it: the staff registry's employee id (e.g. E1042)")
    clear.set_defaults(handler=run_clear)


def run_verify(args: argparse.Namespace) -> int:
    path = journal_path(args.data_dir)
    result = verify_file(path)
    if result.ok:
        print(f"journal ok: {path}: {result.reason}")
        return 0
    print(f"journal BROKEN: {path}: first bad row {result.first_bad_seq}: {result.reason} "
          f"({result.rows} rows verified before it)")
    return 1


def run_tail(args: argparse.Namespace) -> int:
    with Journal.open(existing_journal(args.data_dir)) as journal:
        start = max(0, journal.last_seq - max(0, args.lines))
        for entry in journal.entries(after_seq=start):
            if args.json:
                print(json.dumps({"seq": entry.seq, "ts": entry.ts, "kind": entry.kind, "body": entry.body,
                                  "hash": entry.hash}, sort_keys=True))
            else:
                when = datetime.datetime.fromtimestamp(entry.ts, tz=datetime.UTC).isoformat(timespec="milliseconds")
                body = json.dumps(entry.body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                print(f"{entry.seq:>8} {when} {entry.kind:<20} {body}")
    return 0


def run_clear(args: argparse.Namespace) -> int:
    # The table's fold, imported here: `journal verify` and `tail` start without it.
    from table_runtime.core.seance import euros
    from table_runtime.runtime.journal_clear import clear_journal

    cleared = clear_journal(args.data_dir, employee=args.employee, now=time.time())
    meters = cleared.meters
    print(f"journal {cleared.previous_journal} closed at row {cleared.previous_head['seq']} by {args.employee}, "
          f"kept as {cleared.previous_file}")
    print(f"  its meters: handle {euros(meters['handle_cents'])}, win {euros(meters['win_cents'])}, drop "
          f"{euros(meters['drop_cents'])}, {meters['rounds']} rounds, {meters['voids']} voids")
    print(f"new journal {cleared.journal} in {journal_path(args.data_dir)}: its first row says so")
    return 0
