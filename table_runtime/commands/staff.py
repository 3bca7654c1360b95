"""`table-runtime staff`: the casino's staff registry (import, list, set-status, set-pin) and the dealers' work at a
table (`work`, from its journal).

The registry is a SQLite file: `--db PATH`, else `$TABLE_STAFF_DB`, else
`$XDG_DATA_HOME/table-runtime/staff.sqlite`. Only `import` creates it; `list`, `set-status` and `set-pin` refuse a
path that holds none. The CSV columns are documented in table_runtime/staff/registry.py. A file with badges needs
the casino's player card secret (`TABLE_PLAYER_CARD_SECRET`, or `--secret-file`): the registry keeps only the
badge's keyed hash. `set-pin` reads the PIN from standard input (never from the command line, which other users of
the machine can read).
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from table_runtime.commands.arguments import import_line, removed_if_refused
from table_runtime.config.player_cards import ENV_PLAYER_CARD_SECRET
from table_runtime.journal import Journal, journal_path
from table_runtime.staff.dealer_work import by_dealer, dealer_work
from table_runtime.staff.registry import STATUSES, StaffError, StaffRegistry
from table_runtime.text_files import InputFileError, read_text


def default_db() -> Path:
    if os.environ.get("TABLE_STAFF_DB"):
        return Path(os.environ["TABLE_STAFF_DB"])
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "table-runtime" / "staff.sqlite"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("staff", help="the staff registry: import a CSV export, list, suspend, set a PIN")
    parser.add_argument("--db", type=Path, default=None, help=f"the registry file (default {default_db()})")
    actions = parser.add_subparsers(dest="staff_command", required=True, metavar="ACTION")
    importing = actions.add_parser("import", help="import (add or update) the employees of a CSV file")
    importing.add_argument("file", type=Path)
    importing.add_argument("--secret-file", type=Path, default=None,
                           help=f"the casino's player card secret, for the badges (else ${ENV_PLAYER_CARD_SECRET})")
    importing.set_defaults(handler=run_import)
    listing = actions.add_parser("list", help="list the employees (never a badge or a PIN)")
    listing.add_argument("--json", action="store_true", help="one JSON object per employee")
    listing.set_defaults(handler=run_list)
    setting = actions.add_parser("set-status", help="suspend or reinstate an employee")
    setting.add_argument("employee_id")
    setting.add_argument("status", choices=STATUSES, type=str.lower)
    setting.set_defaults(handler=run_set_status)
    pin = actions.add_parser("set-pin", help="set an employee's personal PIN, read from standard input")
    pin.add_argument("employee_id")
    pin.set_defaults(handler=run_set_pin)
    work = actions.add_parser("work", help="the dealers' work at a table, from its journal: pace and errors per "
                                           "stint or per dealer")
    work.add_argument("--data-dir", default="/var/lib/table-runtime", help="the table's data directory")
    work.add_argument("--by", choices=("stint", "dealer"), default="stint")
    work.add_argument("--json", action="store_true", help="one JSON object per stint or dealer")
    work.set_defaults(handler=run_work)


def _secret(args: argparse.Namespace) -> bytes | None:
    if args.secret_file is not None:
        try:
            return read_text(args.secret_file).strip().encode("utf-8") or None
        except InputFileError as error:
            raise StaffError(f"--secret-file: {error}") from error
    text = os.environ.get(ENV_PLAYER_CARD_SECRET, "")
    return text.encode("utf-8") or None


def _open(args: argparse.Namespace, *, create: bool = False, secret: bytes | None = None) -> StaffRegistry:
    path: Path = args.db or default_db()
    if path.is_dir():
        raise StaffError(f"{path}: is a directory; --db names the registry file")
    if not create and not path.exists():
        raise StaffError(f"{path}: no staff registry here; create it with table-runtime staff --db {path} "
                         "import FILE")
    try:
        return StaffRegistry(path, secret=secret)
    except sqlite3.Error as error:
        raise StaffError(f"{path}: not a staff registry: {error}") from error


def run_import(args: argparse.Namespace) -> int:
    if not args.file.is_file():
        raise StaffError(f"{args.file}: no such file")
    path: Path = args.db or default_db()
    created = not path.exists()
    with removed_if_refused(path, created), _open(args, create=True, secret=_secret(args)) as registry:
        report = registry.import_csv(args.file)
        count = len(registry)
    print(import_line(str(args.file), report.encoding, report.added, report.updated, count, "employees", path,
                      created=created))
    return 0


def run_list(args: argparse.Namespace) -> int:
    with _open(args) as registry:
        employees = list(registry.employees())
    if args.json:
        for employee in employees:
            print(json.dumps({"employee_id": employee.employee_id, "name": employee.name,
                              "roles": sorted(employee.roles), "approval": employee.approval,
                              "status": employee.status, "badge": employee.badge_hash is not None,
                              "pin": employee.pin_hash is not None}, ensure_ascii=False))
        return 0
    print(f"{'employee':<16}  {'name':<24}  {'roles':<28}  {'approval':<14}  {'status':<9}  badge  pin")
    for employee in employees:
        print(f"{employee.employee_id:<16}  {employee.name:<24}  {' '.join(sorted(employee.roles)):<28}  "
              f"{employee.approval:<14}  {employee.status:<9}  {'yes' if employee.badge_hash else 'no':<5}  "
              f"{'yes' if employee.pin_hash else 'no'}")
    active = sum(employee.active for employee in employees)
    print(f"{len(employees)} employees; {active} active")
    return 0


def run_set_status(args: argparse.Namespace) -> int:
    with _open(args) as registry:
        employee = registry.set_status(args.employee_id, args.status)
    print(f"{employee.employee_id} ({employee.name}): {employee.status}")
    return 0


def run_set_pin(args: argparse.Namespace) -> int:
    pin = getpass.getpass("PIN: ") if sys.stdin.isatty() else sys.stdin.readline().strip()
    with _open(args) as registry:
        employee = registry.set_pin(args.employee_id, pin)
    print(f"{employee.employee_id} ({employee.name}): PIN set")
    return 0


def run_work(args: argparse.Namespace) -> int:
    """The dealers' work at a table, read from its journal (table_runtime/staff/dealer_work.py), named from the
    registry when there is one."""
    path = journal_path(args.data_dir)
    if not path.is_file():
        raise StaffError(f"{path}: no journal here")
    with Journal.open(path) as journal:
        stints = dealer_work(journal.entries())
    db: Path = args.db or default_db()
    names: dict[str, str] = {}
    if db.is_file():
        with _open(args) as registry:
            names = {employee.employee_id: employee.name for employee in registry.employees()}
    shown = list(by_dealer(stints).values()) if args.by == "dealer" else stints
    views = [{**stint.view(), "name": names.get(stint.employee, stint.employee)} for stint in shown]
    if args.json:
        for view in views:
            print(json.dumps(view, ensure_ascii=False))
        return 0
    print(f"{'employee':<10} {'name':<22} {'hours':>6} {'rounds':>6} {'rnd/h':>6} {'hands/h':>7} {'box-rnd/h':>9} "
          f"{'shuffle %':>9} {'idle %':>6} {'err/100':>7}  errors")
    for view in views:
        hours = view["seconds"] / 3600.0
        shuffle, idle = ((100.0 * view[name] / view["seconds"] if view["seconds"] else 0.0)
                         for name in ("shuffle_seconds", "idle_seconds"))
        errors = ", ".join(f"{kind} {count}" for kind, count in view["errors"].items() if count) or "none"
        print(f"{view['employee']:<10} {view['name']:<22} {hours:>6.2f} {view['rounds']:>6} "
              f"{view['rounds_per_hour']:>6.1f} {view['hands_per_hour']:>7.1f} {view['box_rounds_per_hour']:>9.1f} "
              f"{shuffle:>9.1f} {idle:>6.1f} {view['errors_per_100_rounds']:>7.1f}  {errors}")
    print(f"{len(views)} {'dealer' if args.by == 'dealer' else 'stint'}(s)")
    return 0
