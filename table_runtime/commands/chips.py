"""`table-runtime chips`: the casino's chip registry (import, list, set-status).

The registry is a SQLite file: `--db PATH`, else `$TABLE_CHIPS_DB`, else
`$XDG_DATA_HOME/table-runtime/chips.sqlite` (`~/.local/share/...`). The CSV
columns are documented in table_runtime/chips/registry.py.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from table_runtime.chips.registry import STATUSES, ChipRegistry, RegistryError


def default_db() -> Path:
    if os.environ.get("TABLE_CHIPS_DB"):
        return Path(os.environ["TABLE_CHIPS_DB"])
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "table-runtime" / "chips.sqlite"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("chips", help="the chip registry: import a CSV export, list, set a chip's status")
    parser.add_argument("--db", type=Path, default=None, help=f"the registry file (default {default_db()})")
    actions = parser.add_subparsers(dest="chips_command", required=True, metavar="ACTION")
    importing = actions.add_parser("import", help="import (add or update) the chips of a CSV file")
    importing.add_argument("file", type=Path)
    importing.set_defaults(handler=run_import)
    listing = actions.add_parser("list", help="list the chips of the registry")
    listing.add_argument("--status", choices=STATUSES)
    listing.add_argument("--json", action="store_true", help="one JSON object per chip")
    listing.set_defaults(handler=run_list)
    setting = actions.add_parser("set-status", help="mark a chip active, void or stolen")
    setting.add_argument("uid")
    setting.add_argument("status", choices=STATUSES, type=str.lower)
    setting.set_defaults(handler=run_set_status)


def _open(args: argparse.Namespace) -> ChipRegistry:
    return ChipRegistry(args.db or default_db())


def run_import(args: argparse.Namespace) -> int:
    if not args.file.is_file():
        raise RegistryError(f"{args.file}: no such file")
    with _open(args) as registry:
        report = registry.import_csv(args.file)
        print(f"{args.file}: {report.added} added, {report.updated} updated; {len(registry)} chips in {registry.path}")
    return 0


def _euros(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def run_list(args: argparse.Namespace) -> int:
    with _open(args) as registry:
        chips = list(registry.chips(status=args.status))
    if args.json:
        for chip in chips:
            print(json.dumps({"uid": chip.uid, "denomination_cents": chip.denomination_cents,
                              "casino_id": chip.casino_id, "status": chip.status}))
        return 0
    print(f"{'uid':<16}  {'denomination':>12}  {'casino':>6}  status")
    for chip in chips:
        print(f"{chip.uid:<16}  {_euros(chip.denomination_cents):>12}  {chip.casino_id:>6}  {chip.status}")
    total = sum(chip.denomination_cents for chip in chips)
    print(f"{len(chips)} chips, {_euros(total)} in total")
    return 0


def run_set_status(args: argparse.Namespace) -> int:
    with _open(args) as registry:
        chip = registry.set_status(args.uid, args.status)
    print(f"{chip.uid}: {chip.status} ({_euros(chip.denomination_cents)}, casino {chip.casino_id})")
    return 0
