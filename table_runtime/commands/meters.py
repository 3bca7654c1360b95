"""`table-runtime meters`: the table's lifetime meters and each box's, from the journal alone (docs/meters.md)."""

from __future__ import annotations

import argparse
import datetime
import json
from collections.abc import Mapping
from typing import Any, Final

from table_runtime.commands.arguments import existing_journal
from table_runtime.core.seance import euros
from table_runtime.journal import Journal
from table_runtime.runtime.meters_report import meters_snapshots, table_meters

# The lines of the text report: (label, meter, whether it is cents).
_TABLE_LINES: Final = (("handle", "handle_cents", True), ("collected", "collected_cents", True),
                       ("paid", "paid_cents", True), ("win", "win_cents", True), ("drop", "drop_cents", True),
                       ("  cash", "drop_cash_cents", True), ("  markers", "drop_marker_cents", True),
                       ("fills", "fills_cents", True), ("credits", "credits_cents", True),
                       ("tips", "tips_cents", True), ("rounds", "rounds", False), ("hands", "hands", False),
                       ("voids", "voids", False))
_BOX_COLUMNS: Final = (("handle", "handle_cents"), ("collected", "collected_cents"), ("paid", "paid_cents"),
                       ("drop", "drop_cents"), ("tips", "tips_cents"))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("meters", help="the lifetime meters from the journal: handle, win, drop, fills, "
                                                  "credits, tips, rounds, hands, voids, per box; their snapshots")
    parser.add_argument("--data-dir", default="/var/lib/table-runtime", help="the table's data directory")
    parser.add_argument("--snapshots", action="store_true",
                        help="also the journaled snapshots (each séance's close, each gaming day's end, RAM clears)")
    parser.add_argument("--json", action="store_true", help="one JSON object: the journal head and the meters")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with Journal.open(existing_journal(args.data_dir)) as journal:
        report = table_meters(journal)
        if args.snapshots:
            report["snapshots"] = meters_snapshots(journal)
    if args.json:
        print(json.dumps(report, indent=1, ensure_ascii=False))
        return 0
    head = report["journal_head"]
    print(f"table {report['table_id'] or '-'}: journal {report['journal_id']}, head row {head['seq']} "
          f"({head['hash']})")
    meters = report["meters"]
    if not meters["complete"]:
        print("  (counted from a checkpoint sealed before the meters existed: the rows before it are not in them)")
    for label, name, cents in _TABLE_LINES:
        value = meters.get(name, 0)
        count = {"fills_cents": "fills", "credits_cents": "credits", "tips_cents": "tips"}.get(name)
        print(f"  {label:<10} {euros(value) if cents else value:>16}" + (f" ({meters.get(count, 0)})" if count else ""))
    if meters["boxes"]:
        print("  box " + "".join(f"{label:>14}" for label, _ in _BOX_COLUMNS) + f"{'hands':>8}")
        for box, values in meters["boxes"].items():
            print(f"  {box:>3} " + "".join(f"{euros(values.get(name, 0)):>14}" for _, name in _BOX_COLUMNS)
                  + f"{values.get('hands', 0):>8}")
    for snapshot in report.get("snapshots", ()):
        print(snapshot_line(snapshot))
    return 0


def snapshot_line(snapshot: Mapping[str, Any]) -> str:
    """One snapshot on one line: its row, time, reason, day and the meters that matter most."""
    when = datetime.datetime.fromtimestamp(snapshot["ts"], datetime.UTC).isoformat(timespec="seconds")
    meters = snapshot.get("meters", {})
    extra = " ".join(f"{key}={snapshot[key]}" for key in ("seance", "employee", "previous_journal", "next_file")
                     if key in snapshot)
    return (f"#{snapshot['seq']:<8} {when} {snapshot.get('reason')} day {snapshot.get('day')}: handle "
            f"{euros(meters.get('handle_cents', 0))} win {euros(meters.get('win_cents', 0))} drop "
            f"{euros(meters.get('drop_cents', 0))} rounds {meters.get('rounds', 0)} {extra}").rstrip()
