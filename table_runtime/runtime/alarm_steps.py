"""The controller's alarm steps outside an input: a device's or the readers' alarms raised (held during a journal
outage), the background audit's `journal_broken`, an alarm acknowledged. Each is a plan (runtime/journal_writer.py):
`step(plan_…)` on the running table, the plain method on the caller's thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from table_runtime.core.alarm_ledger import AlarmStep
from table_runtime.core.journal_rows import AlarmCleared, JournalRow, NoteRow
from table_runtime.core.row_kinds import RowKind
from table_runtime.core.table_core import TableCore
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.journal import JournalUnwritableError
from table_runtime.runtime.journal_writer import Plan
from table_runtime.runtime.outage_steps import JournalOutageSteps

Alarms = Sequence[Alarm] | Callable[[], Sequence[Alarm]]  # a callable: read when the step's turn comes


class AlarmSteps(JournalOutageSteps):
    """Mixed into the table controller: the alarms it raises and clears outside an input."""

    core: TableCore

    @property
    def halted(self) -> str:
        raise NotImplementedError

    def _journaled_core(self) -> Plan[TableCore]:
        raise NotImplementedError

    def raise_alarm(self, alarm: Alarm) -> int:
        """A device or chip alarm (not from the game): journaled, shown, published. Returns its id (the open
        alarm's when one counts its kind on its box; a provisional, negative one while the journal cannot be
        written)."""
        return self.raise_alarms([alarm])[-1]

    def raise_alarms(self, alarms: Sequence[Alarm]) -> list[int]:
        """`plan_raise_alarms` on this thread."""
        return self.writer.run_now(self.plan_raise_alarms(alarms))

    def plan_raise_alarms(self, alarms: Alarms) -> Plan[list[int]]:
        """Device alarms (not from the game) of one moment: one transaction, then shown and published; their ids.
        A callable gives them when the step's turn comes (from the core as the journal has it then).

        While the journal cannot be written they are shown at once and held (core/journal_outage.py) until
        the outage ends; one of a storm kind whose alarm is open only counts on it."""
        raised = alarms() if callable(alarms) else alarms
        if not raised:
            return []
        if self.outage is not None and not (yield from self.plan_retry_journal()):
            return self._hold_alarms(raised)
        rows: list[JournalRow] = []
        step = AlarmStep(self.core.alarms, rows)
        seq = self.last_seq
        for alarm in raised:
            seq = step.add(alarm, seq, self._alarm_round())
        step.flush(seq)
        try:
            yield from self._write_rows(rows)
        except JournalUnwritableError:
            self.core = yield from self._journaled_core()  # the ledger as the journal (and the outage) has it
            return self._hold_alarms(raised)
        self._changed()
        return [self._alarm_id(alarm) for alarm in raised]

    def _alarm_id(self, alarm: Alarm) -> int:
        counting = self.alarms.counting(str(alarm.kind), alarm.box)
        return counting.id if counting is not None else self.last_seq

    def journal_broken(self, seq: int | None, reason: str) -> None:
        """`plan_journal_broken` on this thread."""
        self.writer.run_now(self.plan_journal_broken(seq, reason))

    def plan_ratings(self, messages: Sequence[Mapping[str, Any]], advice: Sequence[Alarm]) -> Plan[bool]:
        """The rating fold's `ratings` messages as `rating` rows, with the advice they came with as alarms, in one
        transaction (runtime/rating_watch.py: a restart then neither repeats nor loses them). False while the journal
        cannot be written: nothing of it is written, the watch offers it again."""
        if not messages and not advice:
            return True
        rows: list[JournalRow] = [NoteRow.of(RowKind.RATING, message) for message in messages]
        step = AlarmStep(self.core.alarms, rows)
        seq = self.last_seq + len(rows)
        for alarm in advice:
            seq = step.add(alarm, seq, self._alarm_round())
        step.flush(seq)
        try:
            yield from self._write_rows(rows)
        except JournalUnwritableError:
            self.core = yield from self._journaled_core()  # the ledger as the journal has it
            return False
        if advice:
            self._changed()
        return True

    def plan_journal_broken(self, seq: int | None, reason: str) -> Plan[None]:
        """The background audit found the rows before the start's checkpoint broken: a supervisor's alarm, and
        play stops (a halting kind, core/alarm_ledger.py) until the supervisor clears it: every command but the
        clearing is refused, a card out of the shoe is held."""
        if self.halted:
            return
        yield from self.plan_raise_alarms([Alarm(
            kind=AlarmKind.JOURNAL_BROKEN, rule="TABLE.md Corrections and recall",
            message=f"{self.journal.path}: {reason}; play is stopped until the journal is restored",
            amounts=(("row", seq or 0),))])

    def acknowledge(self, alarm_id: int, *, by: str = "dealer") -> bool:
        """`plan_acknowledge` on this thread."""
        return self.writer.run_now(self.plan_acknowledge(alarm_id, by=by))

    def plan_acknowledge(self, alarm_id: int, *, by: str = "dealer") -> Plan[bool]:
        """An alarm acknowledged `by` the dealer or the supervisor: it leaves the banner (and stays in the journal).

        Who may acknowledge which kind (SUPERVISOR_ACK_KINDS) is checked by the command table
        (core/commands.py), which knows who is acting.
        """
        if alarm_id not in self.alarms:
            return False
        yield from self._write(AlarmCleared(id=alarm_id, by=by))
        self.alarms.cleared(alarm_id)
        self._changed()
        return True
