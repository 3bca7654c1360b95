"""The one fold of the table's record: journal rows in, the whole table out.

Every piece of code that rebuilds the table from its journal calls `fold` (a row decoded by the one codec,
core/journal_rows.py), `fold_row` (a row's kind and JSON body) or `replay` (their loop): the start, the
rollback after a refused commit, the background audit of the checkpoints, the checkpoints themselves (their
state is what the fold made), recall (and through it the floor's round record) and the bench's journal
filler. The live table takes
the same transitions (`TableCore.step` for an input, the alarm ledger's `raised`/`updated`/`cleared` for the
alarm rows), so what a restart replays is what the table was.

What each kind of row does (docs/journal.md "Rows"):

| kind | the fold |
|---|---|
| `input` | the core applies it (`TableCore.step`: the game, the chip watch, the round's alarms) |
| `alarm`, `alarm_updated`, `alarm_cleared` | the alarm ledger (core/alarm_ledger.py): the banner, storms, the halt |
| `event`, `round` | nothing: both follow from the inputs (the events a replay makes are the ones journaled) |
| `status` | nothing: lifecycle notes; a device reports itself again after a start |

A row of any other kind is an error (`UnknownRowError`), never skipped: a journal written by a newer
program is refused rather than half understood. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from table_runtime.core.journal_rows import (
    ROW_KINDS,
    AlarmCleared,
    InputRow,
    JournalRow,
    NoteRow,
    UnknownRowError,
    row_from_json,
)
from table_runtime.core.table_core import TableCore
from table_runtime.errors import JournalError
from table_runtime.game.events import Event

__all__ = ["ROW_KINDS", "Row", "UnknownRowError", "fold", "fold_row", "replay"]


class Row(Protocol):
    """A journal row as the fold reads it (journal/rows.py JournalEntry is one)."""

    @property
    def seq(self) -> int: ...

    @property
    def kind(self) -> str: ...

    @property
    def body(self) -> dict[str, Any]: ...


def fold(core: TableCore, seq: int, row: JournalRow) -> list[Event]:
    """Fold `row`, the journal's row `seq`, into `core`; the events an input causes (none for the other rows)."""
    events: list[Event] = []
    if isinstance(row, InputRow):
        events = core.step(row.item, seq)
    elif not isinstance(row, NoteRow):
        core.alarms.fold(row)
    if not isinstance(row, (NoteRow, AlarmCleared)) and row.origin is not None:
        core.note_origin(row.origin)  # the last row of a device's step: the shoe's marks
    return events


def fold_row(core: TableCore, seq: int, kind: str, body: Mapping[str, Any]) -> list[Event]:
    """Fold row `seq` of `kind` with this JSON body into `core` (decoded by core/journal_rows.py: a kind this
    program does not know is an `UnknownRowError`); the events an `input` row causes (none for the other kinds)."""
    return fold(core, seq, row_from_json(seq, kind, body))


def replay(core: TableCore, rows: Iterable[Row], *, until: int | None = None) -> TableCore:
    """`core` after the `rows` in order (up to row `until` when given). A row that does not decode is a
    `JournalError` naming it."""
    for row in rows:
        if until is not None and row.seq > until:
            break
        try:
            fold_row(core, row.seq, row.kind, row.body)
        except JournalError:
            raise
        except (KeyError, TypeError, ValueError) as error:
            raise JournalError(f"row {row.seq} ({row.kind}) does not replay: {error!r}") from error
    return core
