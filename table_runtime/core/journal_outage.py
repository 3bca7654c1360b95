"""The journal outage's rules (full disk, read-only, I/O error): what the table holds while its journal cannot be
written, and the rows that end the outage. Pure: the runtime does the writing (runtime/controller.py).

Nothing may be acted on before it is journaled, so during an outage the table takes no input: the
controller refuses it (a card is not acknowledged to the shoe, which resends it), and the only things it
keeps are the rows that cannot wait for the disk: the `journal_unwritable` alarm itself, and the alarms,
storm counts and status notes raised meanwhile. They are on the display and the feed's state (the alarm
ledger holds them under provisional, negative ids) and are journaled, in order and with the time they
happened, in one transaction with the outage's end, once the journal can take the table's rows again
(docs/journal.md, "When the journal cannot be written").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from table_runtime.core.alarm_ledger import AlarmLedger
from table_runtime.core.journal_rows import AlarmCleared, AlarmRaised, AlarmUpdated, JournalRow, NoteRow
from table_runtime.core.row_kinds import RowKind
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import SCHEMA_VERSION

OUTAGE_RULE = citations.JOURNAL_FIRST
TimedRow = tuple[str, dict[str, Any], float]  # kind, body, when it happened: what Journal.append_timed takes


class Unwritable(Protocol):
    """Why the journal refused a write (journal/failures.py JournalUnwritableError is one): its one-line text,
    its cause ("disk full", "read-only", "I/O error") and the detail."""

    @property
    def cause(self) -> str: ...

    @property
    def detail(self) -> str: ...


Error = TypeVar("Error", bound=Unwritable)


def outage_alarm(error: Unwritable) -> Alarm:
    """The alarm of an outage: names the file and the cause; no box, no money."""
    return Alarm(kind=AlarmKind.JOURNAL_UNWRITABLE, rule=OUTAGE_RULE,
                 message=f"{error}: play stops, no device input is acknowledged until the journal can be written "
                         "again (retried by itself; nothing is lost)")


@dataclass(frozen=True, slots=True)
class HeldRow:
    """A row that could not be written yet, and the time it happened."""

    row: JournalRow
    ts: float


@dataclass(slots=True, kw_only=True)
class JournalOutage(Generic[Error]):
    """One outage: since when, its latest error, the rows held for the journal, the inputs refused."""

    error: Error
    since: float
    alarm: AlarmRaised | None = None  # the journal_unwritable alarm (its id becomes its seq once written)
    held: list[HeldRow] = field(default_factory=list)
    refused_inputs: int = 0
    attempts: int = 0
    logged_at: float = 0.0  # when the log last said the outage goes on (runtime/controller.py)
    _last_id: int = 0

    def provisional_id(self) -> int:
        """An id for an alarm raised during the outage, until its row is written: negative, never a seq."""
        self._last_id -= 1
        return self._last_id

    def hold(self, row: JournalRow, ts: float) -> None:
        self.held.append(HeldRow(row, ts))

    def hold_alarm(self, alarm: Alarm, alarms: AlarmLedger, number: int, ts: float) -> int:
        """`alarm` of round `number` raised at `ts` while the journal is out: held, and folded into `alarms` at once
        (shown); one of a storm kind whose alarm is open counts on it (`AlarmLedger.row_for`), as a held
        `alarm_updated` row journaled with the others once the outage ends: nothing counted is lost. Its id (a
        provisional one for a new alarm)."""
        row = alarms.row_for(alarm, self.provisional_id, number)
        self.hold(row, ts)
        if isinstance(row, AlarmUpdated):
            alarms.updated(row)
        else:
            alarms.raised(row)
        return row.id

    def summary(self, now: float) -> dict[str, Any]:
        """The status row that closes the outage."""
        return {"type": "JournalWritable", "cause": self.error.cause, "detail": self.error.detail,
                "unwritable_seconds": round(max(0.0, now - self.since), 3), "refused_inputs": self.refused_inputs,
                "attempts": self.attempts}

    def closing_rows(self, last_seq: int, now: float) -> tuple[list[TimedRow], int]:
        """The rows that end the outage, after row `last_seq`, and the outage alarm's id once written: the held rows
        in order (an alarm's provisional id becomes its seq, a count on it names it so), the outage's alarm
        cleared `by: "journal"` and a `JournalWritable` note. One transaction: all or none (a small row fitting
        proves nothing, journal/failures.py)."""
        assert self.alarm is not None
        written, alarm_id = self._written(last_seq)
        rows: list[TimedRow] = [(row.row_kind, row.to_json(), held.ts) for row, held in zip(written, self.held,
                                                                                             strict=True)]
        rows.append((RowKind.ALARM_CLEARED, AlarmCleared(id=alarm_id, by="journal").to_json(), now))
        rows.append((RowKind.STATUS, NoteRow.of(RowKind.STATUS, {**self.summary(now), "schema_version":
                                                                 SCHEMA_VERSION}).to_json(), now))
        return rows, alarm_id

    def _written(self, last_seq: int) -> tuple[list[JournalRow], int]:
        """The held rows as they are written after row `last_seq` (an alarm's provisional id becomes its seq, a count
        on it names it so), and the outage alarm's id then."""
        assert self.alarm is not None
        seq = last_seq
        written: list[JournalRow] = []
        renamed: dict[int, int] = {}  # provisional id -> the seq its alarm is written at
        for held in self.held:
            seq += 1
            row = held.row
            if isinstance(row, AlarmRaised) and row.id < 0:
                renamed[row.id] = seq
                row = dataclasses.replace(row, id=seq, seq=seq)
            elif isinstance(row, AlarmUpdated):  # a count on an alarm of the outage names it by its new id
                row = dataclasses.replace(row, id=renamed.get(row.id, row.id), seq=seq)
            written.append(row)
        return written, renamed[self.alarm.id]

    def closed(self, rows: list[TimedRow], alarms: AlarmLedger, alarm_id: int) -> None:
        """The `closing_rows` are committed: the ledger's alarms take their ids, the outage's alarm is cleared."""
        for held, (_, written, _) in zip(self.held, rows, strict=False):
            if isinstance(held.row, AlarmRaised) and held.row.id < 0:
                alarms.renumbered(held.row.id, written)
        self.held.clear()
        alarms.cleared(alarm_id)
