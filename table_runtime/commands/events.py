"""`table-runtime events`: the table's significant events (docs/events.md), read from the journal alone."""

from __future__ import annotations

import argparse
import datetime
import json
from typing import Any

from table_runtime.commands.arguments import count_of, existing_journal
from table_runtime.core.significant_events import KINDS, significant_events
from table_runtime.journal import Journal


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("events", help="the table's significant events (start, stop, power loss, "
                                                  "devices, terms, clock, journal) from the journal")
    parser.add_argument("--data-dir", default="/var/lib/table-runtime", help="the table's data directory")
    parser.add_argument("--last", type=count_of("events"), default=None, help="only the last N events (default: all)")
    parser.add_argument("--json", action="store_true", help="a JSON list, one object per event")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with Journal.open(existing_journal(args.data_dir)) as journal:
        events = significant_events((entry.seq, entry.ts, entry.kind, entry.body)
                                    for entry in journal.entries(kinds=KINDS))
    if args.last is not None:
        events = events[-args.last:]
    if args.json:
        print(json.dumps([event.to_json() for event in events], indent=1))
        return 0
    for event in events:
        when = datetime.datetime.fromtimestamp(event.ts, datetime.UTC).isoformat(timespec="seconds")
        detail = " ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in event.detail.items())
        print(f"#{event.seq:<8} {when} {event.code} {event.name} {detail}".rstrip())
    print(f"{len(events)} significant event(s)")
    return 0
