"""The journal outage's rules (full disk, read-only, I/O error): what the table holds while its journal cannot be
written, and the rows that end the outage. Pure: the runtime does the writing (runtime/outage_steps.py).

Nothing may be acted on before it is journaled, so during an outage the table takes no input: the
controller refuses it (a card is not acknowledged to the shoe, which resends it), and the only things it
keeps are the rows that cannot wait for the disk: the `journal_unwritable` alarm itself, and the alarms,
storm counts and status notes raised meanwhile. They are on the display and the feed's state (the alarm
ledger holds them under provisional, negative ids) and are journaled, in order and with the time they
happened, in one transaction with the outage's end, once the journal can take the table's rows again
(docs/journal.md, "When the journal cannot be written").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from table_runtime.core.alarm_ledger import AlarmLedger, cleared_body
from table_runtime.core.row_kinds import RowKind
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import SCHEMA_VERSION

OUTAGE_RULE = "TABLE.md Power loss: the table acts only on what is journaled"
TimedRow = tuple[str, dict[str, Any], float]  # kind, body, when it happened


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


@dataclass(slots=True)
class HeldRow:
    """A row that could not be written yet: its kind, body and the time it happened."""

    kind: str
    body: dict[str, Any]
    ts: float


@dataclass(slots=True, kw_only=True)
class JournalOutage(Generic[Error]):
    """One outage: since when, its latest error, the rows held for the journal, the inputs refused."""

    error: Error
    since: float
    alarm: dict[str, Any] | None = None  # the journal_unwritable alarm's body (its id becomes its seq once written)
    held: list[HeldRow] = field(default_factory=list)
    refused_inputs: int = 0
    attempts: int = 0
    logged_at: float = 0.0  # when the log last said the outage goes on (runtime/outage_steps.py)
    _last_id: int = 0

    def provisional_id(self) -> int:
        """An id for an alarm raised during the outage, until its row is written: negative, never a seq."""
        self._last_id -= 1
        return self._last_id

    def hold(self, kind: str, body: dict[str, Any], ts: float) -> None:
        self.held.append(HeldRow(kind, body, ts))  # positional: `kind` is the row's, not an alarm's

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
        seq = last_seq
        rows: list[TimedRow] = []
        renamed: dict[int, int] = {}  # provisional id -> the seq its alarm is written at
        for row in self.held:
            seq += 1
            body = dict(row.body)
            if row.kind == RowKind.ALARM and int(body["id"]) < 0:
                renamed[int(body["id"])] = body["id"] = body["seq"] = seq
            elif row.kind == RowKind.ALARM_UPDATED:  # a count on an alarm of the outage names it by its new id
                body["id"], body["seq"] = renamed.get(int(body["id"]), int(body["id"])), seq
            rows.append((row.kind, body, row.ts))
        alarm_id = renamed[int(self.alarm["id"])]
        rows.append((RowKind.ALARM_CLEARED, cleared_body(alarm_id, "journal"), now))
        rows.append((RowKind.STATUS, {**self.summary(now), "schema_version": SCHEMA_VERSION}, now))
        return rows, alarm_id

    def closed(self, rows: list[TimedRow], alarms: AlarmLedger, alarm_id: int) -> None:
        """The `closing_rows` are committed: the ledger's alarms take their ids, the outage's alarm is cleared."""
        for row, (_, written, _) in zip(self.held, rows, strict=False):  # the ledger holds these: renamed in place
            provisional = int(row.body.get("id", 0))
            if row.kind in (RowKind.ALARM, RowKind.ALARM_UPDATED):
                row.body["id"], row.body["seq"] = written["id"], written["seq"]
            if row.kind == RowKind.ALARM and provisional < 0:
                alarms.renumbered(provisional, row.body)
        self.held.clear()
        alarms.cleared(alarm_id)
