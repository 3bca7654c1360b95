"""`table-runtime chips`: the casino's chip registry (import, list, set-status).

The registry is a SQLite file: `--db PATH`, else `$TABLE_CHIPS_DB`, else
`$XDG_DATA_HOME/table-runtime/chips.sqlite` (`~/.local/share/...`). Only `import`
creates it (and says so); `list` and `set-status` refuse a path that holds none.
The CSV columns are documented in table_runtime/chips/registry.py.

A registry serves one casino: `import` refuses a row of another casino than the
registry's chips (or, into an empty registry, than the file's first row), naming
the line; `--casino N` imports casino N's chips on purpose (a table then names
the one it accepts with `devices.casino_id`).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from table_runtime.chips.registry import STATUSES, ChipRegistry, RegistryError
from table_runtime.commands.arguments import import_line, removed_if_refused


def default_db() -> Path:
    if os.environ.get("TABLE_CHIPS_DB"):
        return Path(os.environ["TABLE_CHIPS_DB"])
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "table-runtime" / "chips.sqlite"


def _casino(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 0xFFFF:
        raise argparse.ArgumentTypeError(f"{text}: a casino id is 0 to 65535")
    return value


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("chips", help="the chip registry: import a CSV export, list, set a chip's status")
    parser.add_argument("--db", type=Path, default=None, help=f"the registry file (default {default_db()})")
    actions = parser.add_subparsers(dest="chips_command", required=True, metavar="ACTION")
    importing = actions.add_parser("import", help="import (add or update) the chips of a CSV file (UTF-8, else "
                                                  "read as Windows-1252)")
    importing.add_argument("file", type=Path)
    importing.add_argument("--casino", type=_casino, help="the casino of the file's chips, when it is not the one "
                                                          "the registry holds (every row must carry it)")
    importing.set_defaults(handler=run_import)
    listing = actions.add_parser("list", help="list the chips of the registry")
    listing.add_argument("--status", choices=STATUSES)
    listing.add_argument("--json", action="store_true", help="one JSON object per chip")
    listing.set_defaults(handler=run_list)
    setting = actions.add_parser("set-status", help="mark a chip active, void or stolen")
    setting.add_argument("uid")
    setting.add_argument("status", choices=STATUSES, type=str.lower)
    setting.set_defaults(handler=run_set_status)


def _open(args: argparse.Namespace, *, create: bool = False) -> ChipRegistry:
    path: Path = args.db or default_db()
    if path.is_dir():
        raise RegistryError(f"{path}: is a directory; --db names the registry file")
    if not create and not path.exists():
        raise RegistryError(f"{path}: no chip registry here; create it with "
                            f"table-runtime chips --db {path} import FILE")
    try:
        return ChipRegistry(path)
    except sqlite3.Error as error:  # "file is not a database", a foreign schema
        raise RegistryError(f"{path}: not a chip registry: {error}") from error


def run_import(args: argparse.Namespace) -> int:
    if not args.file.is_file():
        raise RegistryError(f"{args.file}: no such file")
    path: Path = args.db or default_db()
    created = not path.exists()
    with removed_if_refused(path, created), _open(args, create=True) as registry:
        casinos = registry.casinos
        if args.casino is None and len(casinos) > 1:
            raise RegistryError(f"{registry.path} holds chips of casinos {list(casinos)}: name the casino of "
                                f"{args.file} with --casino")
        expected = args.casino if args.casino is not None else casinos[0] if casinos else None
        report = registry.import_csv(args.file, casino_id=expected, one_casino=True)
        count = len(registry)
    print(import_line(str(args.file), report.encoding, report.added, report.updated, count, "chips", path,
                      created=created))
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
    active = [chip for chip in chips if chip.status == "active"]
    withdrawn = len(chips) - len(active)
    total = sum(chip.denomination_cents for chip in active)
    print(f"{len(chips)} chips; {len(active)} active worth {_euros(total)}"
          + (f" ({withdrawn} void or stolen, not counted)" if withdrawn else ""))
    return 0


def run_set_status(args: argparse.Namespace) -> int:
    with _open(args) as registry:
        chip = registry.set_status(args.uid, args.status)
    print(f"{chip.uid}: {chip.status} ({_euros(chip.denomination_cents)}, casino {chip.casino_id})")
    return 0
