"""The controller's steps while its journal cannot be written (full, read-only, failing): the outage starts at
the first refused row, the alarms of the moment are shown at once and held (the rules: core/journal_outage.py),
and `retry_journal` writes what was held once the card takes the table's rows again (docs/journal.md). The log
says it when an outage starts, every `OUTAGE_LOG_SECONDS` while it lasts and when it ends, with the inputs
refused so far (not a line per refused card: the shoe resends each twice a second).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial

from table_runtime.core.alarm_ledger import AlarmLedger
from table_runtime.core.journal_outage import JournalOutage, outage_alarm
from table_runtime.core.journal_rows import AlarmRaised, AlarmUpdated, JournalRow
from table_runtime.game.events import Alarm
from table_runtime.journal import RESUME_RESERVE_BYTES, JournalEntry, JournalUnwritableError, short_of_room
from table_runtime.runtime.journal_steps import JournalSteps
from table_runtime.runtime.journal_writer import Plan

log = logging.getLogger(__name__)
OUTAGE_LOG_SECONDS = 60.0  # while an outage lasts, how often the log says so (with the inputs refused so far)


class JournalOutageSteps(JournalSteps):
    """Mixed into the table controller: what it does with rows its journal refuses."""

    outage: JournalOutage[JournalUnwritableError] | None
    resume_reserve: int = RESUME_RESERVE_BYTES  # bytes free on the journal's file system before play resumes

    @property
    def alarms(self) -> AlarmLedger:
        raise NotImplementedError

    def _alarm_round(self) -> int:
        raise NotImplementedError

    def _hold_alarms(self, alarms: Sequence[Alarm]) -> list[int]:
        """The journal is out: each alarm shown now and held for it, a storm kind's count on its open alarm as a held
        `alarm_updated` row (journaled with the others once the outage ends: nothing counted is lost)."""
        assert self.outage is not None
        ids: list[int] = []
        for alarm in alarms:
            counting = self.alarms.counting(str(alarm.kind), alarm.box)
            if counting is not None:
                update = AlarmUpdated.of(counting, alarm, counting.count)  # its seq: once written
                self.outage.hold(update, self.clock())
                self.alarms.updated(update)
                ids.append(counting.id)
                continue
            row = AlarmRaised.of(alarm, self.outage.provisional_id(), self._alarm_round())
            self.outage.hold(row, self.clock())
            self.alarms.raised(row)
            ids.append(row.id)
        self._changed()
        return ids

    def _write_rows(self, rows: Sequence[JournalRow]) -> Plan[list[JournalEntry]]:
        """Rows outside an input's transaction (alarms, a note); refused at once during an outage that a retry
        does not end."""
        if self.outage is not None and not (yield from self.plan_retry_journal()):
            raise self.outage.error
        try:
            return (yield from self._append(rows))
        except JournalUnwritableError as error:
            self._start_outage(error)
            raise

    def _write(self, row: JournalRow) -> Plan[JournalEntry]:
        return (yield from self._write_rows([row]))[0]

    def _start_outage(self, error: JournalUnwritableError, *, refused_input: bool = False) -> None:
        """A write was refused: the outage starts (its alarm shown at once and held) or goes on with this error.
        `refused_input`: the refused rows were an input's (counted in the outage's summary)."""
        if self.outage is not None:
            self.outage.error = error
            self.outage.refused_inputs += refused_input
            return
        now = self.clock()
        self.outage = outage = JournalOutage(error=error, since=now, refused_inputs=int(refused_input), logged_at=now)
        row = AlarmRaised.of(outage_alarm(error), outage.provisional_id(), 0)
        outage.alarm = row
        outage.hold(row, now)
        self.alarms.raised(row)
        log.error("%s: play stops, every input is refused until the journal takes rows again (retried by itself; "
                  "play resumes once %d bytes are free on its file system)", error, self.resume_reserve)
        self._changed()

    def retry_journal(self) -> bool:
        """`plan_retry_journal` on this thread."""
        return self.writer.run_now(self.plan_retry_journal())

    def plan_retry_journal(self) -> Plan[bool]:
        """Write what the outage held, in order; True once the journal takes the table's rows again (the outage
        is over: its alarm is journaled, then cleared `by: "journal"`, and a `JournalWritable` note says how long
        it lasted, all in one transaction). False while it still cannot: the alarm stays on."""
        outage = self.outage
        if outage is None:
            return True
        now = self.clock()
        outage.attempts += 1
        try:
            # A small row fitting proves nothing (journal/failures.py): the reserve first, then every held row and
            # the outage's end in one transaction; only then is the ledger told.
            short = yield partial(short_of_room, self.journal.path, self.resume_reserve)  # a stat of a slow disk
            if short is not None:
                raise short
            rows, alarm_id = outage.closing_rows(self.last_seq, now)
            yield from self._append_timed(rows)
        except JournalUnwritableError as error:
            outage.error = error
            if now - outage.logged_at >= OUTAGE_LOG_SECONDS:
                outage.logged_at = now
                log.warning("%s: play still stopped after %.0f s; %d inputs refused so far", error, now - outage.since,
                            outage.refused_inputs)
            return False
        outage.closed(rows, self.alarms, alarm_id)
        self.outage = None
        log.warning("%s: the journal takes rows again after %.1f s; %d inputs were refused meanwhile (%d attempts)",
                    self.journal.path, now - outage.since, outage.refused_inputs, outage.attempts)
        self._changed()
        return True
