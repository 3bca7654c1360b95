"""The chip registry: every chip the casino has issued, by tag UID (SQLite).

The casino maintains it: it imports the export of its chip management system
(`table-runtime chips import FILE`) and marks chips void or stolen
(`table-runtime chips set-status UID STATUS`). The table reads a snapshot of it
(`ChipRegistry.snapshot()`) to value chips and to raise chip-integrity alarms.

CSV columns (header row required, names case-insensitive, in any order; other
columns such as a serial number or an issue date are ignored):

| column | content |
|---|---|
| `uid` | the tag UID, 16 hex digits, most significant byte first (`E004015012345678`); `:`, `-` and spaces allowed |
| `denomination` | the chip's value in euros: `25`, `25.00`, `0.50` (or `25,00` in a `;`-separated file) |
| `denomination_cents` | instead of `denomination`: the value in cents, `2500` |
| `casino_id` | the casino id written in the tag's data block, 0..65535 |
| `status` | `active`, `void` or `stolen` (any case; empty means active) |

The file is UTF-8 (a byte-order mark is dropped), else it is read as
Windows-1252, what a French spreadsheet writes as "CSV" (its accents and "€";
a Latin-1 file reads the same). The delimiter is `,` or `;` (detected from the header). An import is all or
nothing: the first bad line stops it with a `RegistryImportError` naming the
line and the column; rows with a known UID update that chip.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from types import TracebackType
from typing import Literal, Self, cast

from table_runtime.errors import TableError
from table_runtime.text_files import SPREADSHEET_ENCODING, decode_file

ChipStatus = Literal["active", "void", "stolen"]
STATUSES: tuple[ChipStatus, ...] = ("active", "void", "stolen")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS chips (
    uid TEXT PRIMARY KEY,
    denomination_cents INTEGER NOT NULL CHECK (denomination_cents > 0),
    casino_id INTEGER NOT NULL CHECK (casino_id BETWEEN 0 AND 65535),
    status TEXT NOT NULL CHECK (status IN ('active', 'void', 'stolen')),
    updated TEXT NOT NULL DEFAULT (datetime('now'))
) WITHOUT ROWID;
"""


class RegistryError(TableError, ValueError):
    """A registry request that cannot be done (unknown chip, bad status)."""


class RegistryImportError(RegistryError):
    """A CSV line that cannot be imported; `line` and `column` say where."""

    def __init__(self, source: str, line: int, column: str, message: str) -> None:
        super().__init__(f"{source}: line {line}, column {column!r}: {message}")
        self.source = source
        self.line = line
        self.column = column


@dataclass(frozen=True, slots=True, kw_only=True)
class RegisteredChip:
    """What the casino says about one chip."""

    uid: str
    denomination_cents: int
    casino_id: int
    status: ChipStatus


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportReport:
    added: int
    updated: int
    encoding: str = "utf-8"  # what the file was read as


def normalise_uid(text: str) -> str:
    """`e0:04:01:50:12:34:56:78` -> `E004015012345678`, or `ValueError`."""
    uid = "".join(char for char in text if char not in ": -").upper()
    if len(uid) != 16 or any(char not in "0123456789ABCDEF" for char in uid):
        raise ValueError(f"{text!r} is not a 16-hex-digit tag UID")
    return uid


def parse_status(text: str) -> ChipStatus:
    status = text.strip().lower() or "active"
    if status not in STATUSES:
        raise ValueError(f"{text!r} is not one of {', '.join(STATUSES)}")
    return status


def _euros_to_cents(text: str, decimal_comma: bool) -> int:
    cleaned = text.strip().replace("€", "").replace(" ", "").replace("\u00a0", "")
    if decimal_comma and "," in cleaned:  # 1.000,50: dots group thousands
        cleaned = cleaned.replace(".", "").replace(",", ".")
    try:
        cents = Decimal(cleaned) * 100
    except InvalidOperation:
        raise ValueError(f"{text!r} is not an amount in euros") from None
    if cents != cents.to_integral_value() or cents <= 0:
        raise ValueError(f"{text!r}: a positive amount in whole cents")
    return int(cents)


class ChipRegistry:
    """The SQLite chip registry; use as a context manager or call `close()`."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path)
        self._db.execute("PRAGMA journal_mode=WAL" if self.path != ":memory:" else "PRAGMA journal_mode=MEMORY")
        self._db.executescript(_SCHEMA)

    @classmethod
    def from_csv(cls, path: str | Path) -> ChipRegistry:
        """An in-memory registry holding one CSV export (for a table configured with a CSV file)."""
        registry = cls(":memory:")
        registry.import_csv(path)
        return registry

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def import_csv(self, path: str | Path, *, casino_id: int | None = None, one_casino: bool = False) -> ImportReport:
        """Import an export: UTF-8 (with or without the byte-order mark spreadsheets write), else read as
        Windows-1252, the encoding of a French spreadsheet's "CSV" export (Latin-1 letters and "€")."""
        text, encoding = decode_file(path, fallback=SPREADSHEET_ENCODING)
        report = self.import_text(text, source=str(path), casino_id=casino_id, one_casino=one_casino)
        return dataclasses.replace(report, encoding=encoding)

    def import_text(self, text: str, *, source: str = "<csv>", casino_id: int | None = None,
                    one_casino: bool = False) -> ImportReport:
        """All rows or none. With `casino_id`, a row of another casino is refused naming its line; with
        `one_casino`, every row must carry the first row's casino."""
        rows = list(_parse_csv(text, source, casino_id=casino_id, one_casino=one_casino))
        known = {row[0] for row in self._db.execute("SELECT uid FROM chips")}
        with self._db:
            self._db.executemany(
                "INSERT INTO chips (uid, denomination_cents, casino_id, status) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(uid) DO UPDATE SET denomination_cents=excluded.denomination_cents, "
                "casino_id=excluded.casino_id, status=excluded.status, updated=datetime('now')",
                [(chip.uid, chip.denomination_cents, chip.casino_id, chip.status) for chip in rows])
        uids = {chip.uid for chip in rows}
        return ImportReport(added=len(uids - known), updated=len(uids & known))

    def get(self, uid: str) -> RegisteredChip | None:
        row = self._db.execute("SELECT uid, denomination_cents, casino_id, status FROM chips WHERE uid = ?",
                               (uid,)).fetchone()
        return None if row is None else _chip(row)

    def set_status(self, uid: str, status: str) -> RegisteredChip:
        try:
            key, value = normalise_uid(uid), parse_status(status)
        except ValueError as error:
            raise RegistryError(str(error)) from error
        with self._db:
            changed = self._db.execute("UPDATE chips SET status = ?, updated = datetime('now') WHERE uid = ?",
                                       (value, key)).rowcount
        if not changed:
            raise RegistryError(f"chip {key} is not in the registry {self.path}")
        chip = self.get(key)
        assert chip is not None
        return chip

    def chips(self, *, status: ChipStatus | None = None) -> Iterator[RegisteredChip]:
        query = "SELECT uid, denomination_cents, casino_id, status FROM chips"
        rows = (self._db.execute(query + " WHERE status = ? ORDER BY uid", (status,)) if status
                else self._db.execute(query + " ORDER BY uid"))
        for row in rows:
            yield _chip(row)

    def snapshot(self) -> Mapping[str, RegisteredChip]:
        """Every chip, by UID: what the table checks readings against."""
        return {chip.uid: chip for chip in self.chips()}

    @property
    def casinos(self) -> tuple[int, ...]:
        """The casinos whose chips the registry holds, smallest first."""
        return tuple(row[0] for row in self._db.execute("SELECT DISTINCT casino_id FROM chips ORDER BY casino_id"))

    def __len__(self) -> int:
        count: int = self._db.execute("SELECT count(*) FROM chips").fetchone()[0]
        return count


def _chip(row: tuple[str, int, int, str]) -> RegisteredChip:
    return RegisteredChip(uid=row[0], denomination_cents=row[1], casino_id=row[2], status=cast(ChipStatus, row[3]))


def _parse_csv(text: str, source: str, *, casino_id: int | None, one_casino: bool) -> Iterator[RegisteredChip]:
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if first_line.count(";") > first_line.count(",") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = [name.strip().lower() for name in next(reader)]
    except StopIteration:
        raise RegistryImportError(source, 1, "", "the file is empty") from None
    columns = {name: index for index, name in enumerate(header)}
    amount = "denomination_cents" if "denomination_cents" in columns else "denomination"
    for required in ("uid", amount, "casino_id"):
        if required not in columns:
            raise RegistryImportError(source, 1, required, f"missing column; the header is {header}")
    seen: dict[str, int] = {}
    expected_casino, casino_line = casino_id, 0
    for line, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue

        def cell(name: str, row: list[str] = row, line: int = line) -> str:
            index = columns.get(name)
            if index is None:
                return ""
            if index >= len(row):
                raise RegistryImportError(source, line, name, f"the row has {len(row)} columns")
            return row[index].strip()

        column = "uid"
        try:
            uid = normalise_uid(cell("uid"))
            column = amount
            cents = (int(cell(amount)) if amount == "denomination_cents"
                     else _euros_to_cents(cell(amount), decimal_comma=delimiter == ";"))
            if cents <= 0:
                raise ValueError(f"{cents}: a positive number of cents")
            column = "casino_id"
            casino = int(cell("casino_id"))
            if not 0 <= casino <= 65535:
                raise ValueError(f"{casino} is not 0..65535")
            column = "status"
            status = parse_status(cell("status"))
        except ValueError as error:
            if isinstance(error, RegistryImportError):
                raise
            raise RegistryImportError(source, line, column, str(error)) from error
        if uid in seen:
            raise RegistryImportError(source, line, "uid", f"{uid} is already on line {seen[uid]}")
        if expected_casino is None and one_casino:
            expected_casino, casino_line = casino, line
        if expected_casino is not None and casino != expected_casino:
            origin = f"line {casino_line}'s" if casino_line else "the registry's"
            raise RegistryImportError(
                source, line, "casino_id", f"casino {casino}, not {origin} casino {expected_casino}: a table accepts "
                                           f"one casino's chips; import another casino's file with --casino {casino}")
        seen[uid] = line
        yield RegisteredChip(uid=uid, denomination_cents=cents, casino_id=casino, status=status)
