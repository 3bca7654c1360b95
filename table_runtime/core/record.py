"""The one fold of the table's record: journal rows in, the whole table out; and the one table it folds into.

`starting_core` is the one constructor of that table: under the journal's own terms (its `terms` row,
core/terms.py), fresh or as a checkpoint's state described it (runtime/terms.py `table_core` reads the terms of
a journal for it). Every piece of code that rebuilds the table from its journal calls `fold` (a row decoded by
the one codec, core/journal_rows.py), `fold_row` (a row's kind and JSON body) or `replay` (their loop): the
start, the rollback after a refused commit, the background audit of the checkpoints, the checkpoints themselves
(their state is what the fold made), recall (and through it the floor's round record), the rated sessions and
the bench's journal filler. The live table takes
the same transitions (`TableCore.step` for an input, the alarm ledger's `raised`/`updated`/`cleared` for the
alarm rows), so what a restart replays is what the table was.

What each kind of row does (docs/journal.md "Rows"):

| kind | the fold |
|---|---|
| `input` | the core applies it (`TableCore.step`: the game, the chip watch, the round's alarms) |
| `alarm`, `alarm_updated`, `alarm_cleared` | the alarm ledger (core/alarm_ledger.py): the banner, storms, the halt |
| `terms` | the table's terms from there on: the same game (else an error), the zones and house settings it names |
| `event`, `round` | nothing: both follow from the inputs (the events a replay makes are the ones journaled) |
| `status` | nothing: lifecycle notes; a device reports itself again after a start |
| `verification` | nothing: a check of the installed program (its halting alarm is an `alarm` row of its own) |
| `meters` | nothing: a snapshot of the lifetime meters the fold made (core/meters_snapshots.py) |

A row of any other kind is an error (`UnknownRowError`), never skipped: a journal written by a newer
program is refused rather than half understood. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from table_runtime.core.core_state import restore_checkpoint
from table_runtime.core.journal_rows import (
    ROW_KINDS,
    AlarmCleared,
    InputRow,
    JournalRow,
    NoteRow,
    TermsRow,
    UnknownRowError,
    row_from_json,
)
from table_runtime.core.table_core import TableCore
from table_runtime.core.terms import GAME_LIMITS, TableTerms
from table_runtime.errors import JournalError
from table_runtime.game.events import Event

__all__ = ["ROW_KINDS", "Row", "UnknownRowError", "fold", "fold_row", "replay", "starting_core"]


class Row(Protocol):
    """A journal row as the fold reads it (journal/rows.py JournalEntry is one)."""

    @property
    def seq(self) -> int: ...

    @property
    def kind(self) -> str: ...

    @property
    def body(self) -> dict[str, Any]: ...


def starting_core(terms: TableTerms, state: Mapping[str, Any] | None = None) -> TableCore:
    """The table a fold starts from, under the journal's `terms`: fresh, or the checkpoint `state` restored (a
    `JournalError` for a state this program cannot read)."""
    if state is None:
        core = TableCore(terms.rules, terms.limits, zones=terms.zones)
    else:
        try:
            core = restore_checkpoint(terms.rules, terms.limits, state, zones=terms.zones)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise JournalError(f"the checkpoint is unreadable: {error!r}") from error
    core.shift.required = terms.staff  # a staff registry rules the table: DEAL needs a dealer (core/shift.py)
    core.seances.required = terms.seance_required  # a house setting of the terms (core/seance.py)
    return core


def _take_terms(core: TableCore, seq: int, terms: TableTerms) -> None:
    """A `terms` row: the same game as the core's (the start refuses other rules or limits, runtime/terms.py), its
    zones and house limits from here on."""
    table = core.table
    if table.rules != terms.rules or any(getattr(table.limits, key) != getattr(terms.limits, key)
                                         for key in GAME_LIMITS):
        raise JournalError(f"row {seq}: the table's terms change its rules or limits within one journal "
                           f"({terms.rules.profile}, {terms.limits.min_bet_cents}-{terms.limits.max_bet_cents} "
                           f"cents): this program does not replay that")
    table.limits = terms.limits
    core.shift.required = terms.staff
    core.seances.required = terms.seance_required
    watched = bool(core.chips.zones)
    core.chips.zones = terms.zones
    if not watched and terms.zones and table.round_in_play:
        # Readers added while a round is in play (or a journal written before the chip watch): its zones are locked
        # as the readers first report them, then watched. Nothing was read on them before, so no alarm comes of it.
        core.chips.bets_locked(table.round, True)
        core.chips.follow(table.round, [])


def fold(core: TableCore, seq: int, row: JournalRow) -> list[Event]:
    """Fold `row`, the journal's row `seq`, into `core`; the events an input causes (none for the other rows)."""
    events: list[Event] = []
    if isinstance(row, InputRow):
        events = core.step(row.item, seq)
    elif isinstance(row, TermsRow):  # the table's terms: no device's step, no origin
        _take_terms(core, seq, row.terms)
        return events
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
