"""While the journal cannot be written (full disk, read-only, I/O error): what the table holds in memory.

Nothing may be acted on before it is journaled, so during an outage the table takes no input: the
controller refuses it (a card is not acknowledged to the shoe, which resends it), and the only things it
keeps are the rows that cannot wait for the disk: the `journal_unwritable` alarm itself, and the alarms
and status notes raised meanwhile. They are on the display and the feed's state (the alarm board holds
them under provisional, negative ids) and are journaled, in order and with the time they happened, as
soon as a write works again (docs/journal.md, "When the journal cannot be written").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from table_runtime.core.alarm_ledger import AlarmLedger, cleared_body
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import SCHEMA_VERSION
from table_runtime.journal import Journal, JournalUnwritableError

OUTAGE_RULE = "TABLE.md Power loss: the table acts only on what is journaled"


def outage_alarm(error: JournalUnwritableError) -> Alarm:
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
class JournalOutage:
    """One outage: since when, its latest error, the rows held for the journal, the inputs refused."""

    error: JournalUnwritableError
    since: float
    alarm: dict[str, Any] | None = None  # the journal_unwritable alarm's body (its id becomes its seq once written)
    held: list[HeldRow] = field(default_factory=list)
    refused_inputs: int = 0
    attempts: int = 0
    _last_id: int = 0
    _renamed: dict[int, int] = field(default_factory=dict)  # provisional id -> the seq its alarm was written at

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

    def write_held(self, journal: Journal, alarms: AlarmLedger, *, now: float) -> None:
        """Journal the held rows in order (an alarm's id becomes its seq), then close the outage: its alarm
        cleared `by: "journal"` and a `JournalWritable` note. Raises `JournalUnwritableError` while the journal
        still cannot be written; what was written stays written, the rest stays held."""
        self.attempts += 1
        while self.held:
            row = self.held[0]
            provisional = int(row.body["id"]) if row.kind == "alarm" else 0
            if row.kind == "alarm_updated":  # a count on an alarm of the outage names it by its new id
                row.body["id"] = self._renamed.get(int(row.body["id"]), int(row.body["id"]))
                row.body["seq"] = journal.last_seq + 1
            if provisional < 0:
                row.body["id"] = row.body["seq"] = journal.last_seq + 1
            try:
                journal.append(row.kind, row.body, ts=row.ts)
            except JournalUnwritableError:
                if provisional < 0:
                    row.body["id"] = row.body["seq"] = provisional
                raise
            self.held.pop(0)
            if provisional < 0:
                self._renamed[provisional] = int(row.body["id"])
                alarms.renumbered(provisional, row.body)
        assert self.alarm is not None
        journal.append("alarm_cleared", cleared_body(int(self.alarm["id"]), "journal"), ts=now)
        alarms.cleared(int(self.alarm["id"]))
        journal.append("status", {**self.summary(now), "schema_version": SCHEMA_VERSION}, ts=now)
