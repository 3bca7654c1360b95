"""The staff registry: every employee who may work at the casino's tables, by employee id (SQLite).

The casino keeps it beside the chip registry (table_runtime/chips/registry.py), from its HR system's export
(`table-runtime staff import FILE`), and suspends or reinstates an employee (`table-runtime staff set-status ID
suspended`). A French croupier is individually approved (« agréé », Code de la sécurité intérieure, art. R.321-31):
the approval number is kept with him.

CSV columns (header row required, names case-insensitive, in any order; other columns are ignored):

| column | content |
|---|---|
| `employee_id` | the casino's id of the employee: 1 to 16 letters, digits, `-` or `_` (`E1042`) |
| `name` | how the display and recall name him (`Marie Dupont`) |
| `roles` | one or more of `dealer`, `supervisor`, `pit_manager`, `surveillance`, separated by `|`, `+` or spaces |
| `approval` | his approval number (CSI R.321-31); required but for surveillance alone |
| `status` | `active` or `suspended` (any case; empty means active) |
| `badge` | optional: the number his badge reads at the table's card reader |
| `pin` | optional: his personal PIN, 4 to 8 digits |

The badge number is never stored: the registry keeps a keyed hash of it (HMAC-SHA256 under the casino's player
card secret, in a domain of its own, so a badge's hash is never a player's pseudonym: table_runtime/rating/
pseudonym.py), which is all the table needs to recognise it, and which nobody without the secret can test a guessed
number against. The PIN is never stored either: an Argon2id hash (argon2-cffi), memory-hard: each guess against a
copy of the file costs its 19 MiB and tens of milliseconds of CPU (bench/staff_pin.py), not the microseconds of a
fast hash, and no graphics card runs thousands at once. Four digits stay few: the file is kept like the secret.

The file is UTF-8 (a byte-order mark is dropped), else read as Windows-1252 (a French spreadsheet's "CSV"); the
delimiter is `,` or `;`. An import is all or nothing: the first bad line stops it with a `StaffImportError` naming
the line and the column (never the badge or PIN it holds); a known employee id is updated (a row with an empty
badge or PIN keeps the one he had).
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import re
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Final, Literal, Self, cast

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from table_runtime.core.staff_roles import SUPERVISES, StaffRole
from table_runtime.errors import TableError
from table_runtime.text_files import SPREADSHEET_ENCODING, decode_file

StaffStatus = Literal["active", "suspended"]
STATUSES: tuple[StaffStatus, ...] = ("active", "suspended")
EMPLOYEE_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,16}")
NAME_MAX: Final = 64
BADGE_DOMAIN: Final = b"table-runtime staff badge\x00"  # a badge's hash is never a player card's pseudonym
MIN_SECRET_BYTES: Final = 16
# Argon2id at OWASP's smallest memory-hard setting (19 MiB, 2 passes, 1 lane): 23 ms of CPU a check on this
# project's build machine (bench/staff_pin.py), checked off the event loop; the parameters are in each hash, so a
# later change still verifies old PINs.
PIN_HASHER: Final = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS employees (
    employee_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    roles TEXT NOT NULL,
    approval TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    badge_hash TEXT UNIQUE,
    pin_hash TEXT,
    updated TEXT NOT NULL DEFAULT (datetime('now'))
) WITHOUT ROWID;
"""


class StaffError(TableError, ValueError):
    """A staff registry request that cannot be done (unknown employee, bad status, no secret)."""


class StaffImportError(StaffError):
    """A CSV line that cannot be imported; `line` and `column` say where (never what a badge or PIN cell held)."""

    def __init__(self, source: str, line: int, column: str, message: str) -> None:
        super().__init__(f"{source}: line {line}, column {column!r}: {message}")
        self.source = source
        self.line = line
        self.column = column


@dataclass(frozen=True, slots=True, kw_only=True)
class Employee:
    """What the casino says about one employee: no badge number, no PIN, only their hashes."""

    employee_id: str
    name: str
    roles: frozenset[StaffRole]
    approval: str
    status: StaffStatus = "active"
    badge_hash: str | None = None
    pin_hash: str | None = None

    @property
    def active(self) -> bool:
        return self.status == "active"

    @property
    def deals(self) -> bool:
        return StaffRole.DEALER in self.roles

    @property
    def supervises(self) -> bool:
        return bool(self.roles & SUPERVISES)

    def may(self, role: StaffRole) -> bool:
        """Whether he is active and holds `role` (a pit manager supervises as a supervisor does)."""
        if not self.active:
            return False
        return self.supervises if role == StaffRole.SUPERVISOR else role in self.roles

    def pin_matches(self, pin: str) -> bool:
        """Whether `pin` is his PIN (Argon2id: tens of milliseconds; call it off the event loop)."""
        if self.pin_hash is None:
            return False
        try:
            return PIN_HASHER.verify(self.pin_hash, pin)
        except (VerificationError, InvalidHashError):
            return False


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportReport:
    added: int
    updated: int
    encoding: str = "utf-8"


def badge_hash(secret: bytes, number: str) -> str:
    """The registry's key for a badge number under the casino's secret: 64 hex digits, never the number."""
    if len(secret) < MIN_SECRET_BYTES:
        raise StaffError(f"the badge secret is {len(secret)} bytes; at least {MIN_SECRET_BYTES}")
    return hmac.new(secret, BADGE_DOMAIN + number.strip().encode("utf-8"), hashlib.sha256).hexdigest()


def pin_hash(pin: str) -> str:
    """The Argon2id hash the registry keeps of a PIN of 4 to 8 digits."""
    if not (pin.isdigit() and 4 <= len(pin) <= 8):
        raise ValueError("a personal PIN is 4 to 8 digits")
    return PIN_HASHER.hash(pin)


def parse_roles(text: str) -> frozenset[StaffRole]:
    names = [name for name in re.split(r"[|+\s]+", text.strip().lower()) if name]
    if not names:
        raise ValueError("no role: one or more of " + ", ".join(StaffRole))
    roles = set()
    for name in names:
        try:
            roles.add(StaffRole(name.replace("-", "_")))
        except ValueError:
            raise ValueError(f"{name!r} is not one of {', '.join(StaffRole)}") from None
    return frozenset(roles)


def parse_status(text: str) -> StaffStatus:
    status = text.strip().lower() or "active"
    if status not in STATUSES:
        raise ValueError(f"{text!r} is not one of {', '.join(STATUSES)}")
    return status


def check_employee_id(text: str) -> str:
    value = text.strip()
    if not EMPLOYEE_ID.fullmatch(value):
        raise ValueError(f"{value!r} is not an employee id (1 to 16 letters, digits, '-' or '_')")
    return value


class StaffRegistry:
    """The SQLite staff registry; use as a context manager or call `close()`. `secret`: the casino's player card
    secret, needed only to import or match badges."""

    def __init__(self, path: str | Path, *, secret: bytes | None = None) -> None:
        self.path = str(path)
        self._secret = secret
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path)
        self._db.execute("PRAGMA journal_mode=WAL" if self.path != ":memory:" else "PRAGMA journal_mode=MEMORY")
        self._db.executescript(_SCHEMA)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def import_csv(self, path: str | Path) -> ImportReport:
        text, encoding = decode_file(path, fallback=SPREADSHEET_ENCODING)
        report = self.import_text(text, source=str(path))
        return ImportReport(added=report.added, updated=report.updated, encoding=encoding)

    def import_text(self, text: str, *, source: str = "<csv>") -> ImportReport:
        """All rows or none."""
        rows = list(_parse_csv(text, source, self._secret))
        known = {row[0] for row in self._db.execute("SELECT employee_id FROM employees")}
        try:
            with self._db:
                self._db.executemany(
                    "INSERT INTO employees (employee_id, name, roles, approval, status, badge_hash, pin_hash) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(employee_id) DO UPDATE SET name=excluded.name, "
                    "roles=excluded.roles, approval=excluded.approval, status=excluded.status, "
                    "badge_hash=coalesce(excluded.badge_hash, employees.badge_hash), "
                    "pin_hash=coalesce(excluded.pin_hash, employees.pin_hash), updated=datetime('now')",
                    [(row.employee_id, row.name, _roles_text(row.roles), row.approval, row.status, row.badge_hash,
                      row.pin_hash) for row in rows])
        except sqlite3.IntegrityError as error:  # a badge already another employee's
            raise StaffError(f"{source}: a badge is already another employee's in {self.path} ({error})") from None
        ids = {row.employee_id for row in rows}
        return ImportReport(added=len(ids - known), updated=len(ids & known))

    def get(self, employee_id: str) -> Employee | None:
        row = self._db.execute(_SELECT + " WHERE employee_id = ?", (employee_id,)).fetchone()
        return None if row is None else _employee(row)

    def set_status(self, employee_id: str, status: str) -> Employee:
        try:
            value = parse_status(status)
        except ValueError as error:
            raise StaffError(str(error)) from error
        with self._db:
            changed = self._db.execute("UPDATE employees SET status = ?, updated = datetime('now') "
                                       "WHERE employee_id = ?", (value, employee_id)).rowcount
        return self._changed(employee_id, changed)

    def set_pin(self, employee_id: str, pin: str) -> Employee:
        try:
            hashed = pin_hash(pin)
        except ValueError as error:
            raise StaffError(str(error)) from error
        with self._db:
            changed = self._db.execute("UPDATE employees SET pin_hash = ?, updated = datetime('now') "
                                       "WHERE employee_id = ?", (hashed, employee_id)).rowcount
        return self._changed(employee_id, changed)

    def _changed(self, employee_id: str, changed: int) -> Employee:
        if not changed:
            raise StaffError(f"employee {employee_id!r} is not in the staff registry {self.path}")
        employee = self.get(employee_id)
        assert employee is not None
        return employee

    def employees(self) -> Iterator[Employee]:
        for row in self._db.execute(_SELECT + " ORDER BY employee_id"):
            yield _employee(row)

    def snapshot(self) -> StaffSnapshot:
        return StaffSnapshot(tuple(self.employees()))

    def __len__(self) -> int:
        count: int = self._db.execute("SELECT count(*) FROM employees").fetchone()[0]
        return count


class StaffSnapshot:
    """The registry as read at one moment: employees by id and by badge hash (what the table looks up)."""

    def __init__(self, employees: tuple[Employee, ...]) -> None:
        self.by_id: Mapping[str, Employee] = {employee.employee_id: employee for employee in employees}
        self.by_badge: Mapping[str, Employee] = {employee.badge_hash: employee for employee in employees
                                                 if employee.badge_hash is not None}

    def get(self, employee_id: str) -> Employee | None:
        return self.by_id.get(employee_id)

    def badge(self, secret: bytes, number: str) -> Employee | None:
        """The employee whose badge reads `number`, or None (a player's card)."""
        return self.by_badge.get(badge_hash(secret, number))

    def name(self, employee_id: str) -> str:
        """How the display names an employee: his name, else his id (an id the registry no longer holds)."""
        employee = self.by_id.get(employee_id)
        return employee_id if employee is None else employee.name

    def __len__(self) -> int:
        return len(self.by_id)


_SELECT = "SELECT employee_id, name, roles, approval, status, badge_hash, pin_hash FROM employees"


def _roles_text(roles: frozenset[StaffRole]) -> str:
    return " ".join(sorted(roles))


def _employee(row: tuple[str, str, str, str, str, str | None, str | None]) -> Employee:
    return Employee(employee_id=row[0], name=row[1], roles=parse_roles(row[2]), approval=row[3],
                    status=cast(StaffStatus, row[4]), badge_hash=row[5], pin_hash=row[6])


def _parse_csv(text: str, source: str, secret: bytes | None) -> Iterator[Employee]:
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if first_line.count(";") > first_line.count(",") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = [name.strip().lower() for name in next(reader)]
    except StopIteration:
        raise StaffImportError(source, 1, "", "the file is empty") from None
    columns = {name: index for index, name in enumerate(header)}
    for required in ("employee_id", "name", "roles", "approval"):
        if required not in columns:
            raise StaffImportError(source, 1, required, f"missing column; the header is {header}")
    seen: dict[str, int] = {}
    badges: dict[str, int] = {}
    for line, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue

        def cell(name: str, row: list[str] = row, line: int = line) -> str:
            index = columns.get(name)
            if index is None:
                return ""
            if index >= len(row):
                raise StaffImportError(source, line, name, f"the row has {len(row)} columns")
            return row[index].strip()

        column = "employee_id"
        try:
            employee_id = check_employee_id(cell("employee_id"))
            column = "name"
            name = cell("name")
            if not name or len(name) > NAME_MAX or not name.isprintable():
                raise ValueError(f"a name of 1 to {NAME_MAX} printable characters")
            column = "roles"
            roles = parse_roles(cell("roles"))
            column = "approval"
            approval = cell("approval")
            if not approval and roles != {StaffRole.SURVEILLANCE}:
                raise ValueError("empty: every employee of the gaming floor is approved (CSI R.321-31)")
            column = "status"
            status = parse_status(cell("status"))
            column = "pin"
            pin = cell("pin")
            hashed_pin = pin_hash(pin) if pin else None
        except ValueError as error:
            if isinstance(error, StaffImportError):
                raise
            shown = "not a PIN of 4 to 8 digits" if column == "pin" else str(error)  # a PIN is never echoed
            raise StaffImportError(source, line, column, shown) from error
        badge = cell("badge")
        hashed_badge = None
        if badge:
            if secret is None:
                raise StaffImportError(source, line, "badge", "a badge needs the casino's player card secret "
                                                              "(TABLE_PLAYER_CARD_SECRET or --secret-file)")
            hashed_badge = badge_hash(secret, badge)
            if hashed_badge in badges:
                raise StaffImportError(source, line, "badge", f"the same badge as line {badges[hashed_badge]}")
            badges[hashed_badge] = line
        if employee_id in seen:
            raise StaffImportError(source, line, "employee_id", f"{employee_id} is already on line {seen[employee_id]}")
        seen[employee_id] = line
        yield Employee(employee_id=employee_id, name=name, roles=roles, approval=approval, status=status,
                       badge_hash=hashed_badge, pin_hash=hashed_pin)
