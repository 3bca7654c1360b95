"""The table controller: every change of the table is one of its methods, which journals the change, then shows it.

The controller owns the table core (the game `Table`, the chip watch, the alarm ledger), the journal and the
devices' status. A press is decided by the core's command table (`press`), a card may bring the bet lock
(`draw`), the readers' zones come as `ZoneChanged` (`report_zones`), a device's alarms come alone
(`raise_alarms`): an input and the events it causes (chip alarms included) are committed to the journal in one
transaction (fsynced) before anyone sees them: the display, the feed and the lamps are told only after the commit.

Each change is an ordinary method: it applies the change to the core, makes its journal calls and returns. The
running table makes it a step (`await controller.step(controller.press, ...)`, runtime/journal_writer.py): the
whole method runs in the journal's writer thread, one step after the other, while the loop goes on serving the
display, the feed and the devices; readers on the loop meanwhile see the committed view
(runtime/committed_view.py) and listeners are told once the step is over, never half of it. The start, the fast
table and the tests call the same methods on their own thread.

A journal that cannot be written (full, read-only, failing) stops play safely instead: the input is refused
(`JournalUnwritableError`), a `journal_unwritable` alarm is held in memory (core/journal_outage.py) and
`retry_journal` writes what was held once the card takes rows again (docs/journal.md); the log says it when an
outage starts, every `OUTAGE_LOG_SECONDS` while it lasts and when it ends, with the inputs refused so far (not a
line per refused card: the shoe resends each twice a second).

At start-up the journal is replayed: the same round, cards, stakes, turn and chips come back, and if a round was
in play the controller says "recovered" (journal, display, feed).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any, ParamSpec, TypeVar

from table_runtime.core import commands
from table_runtime.core.alarm_ledger import AlarmLedger, AlarmStep
from table_runtime.core.core_state import checkpoint_before
from table_runtime.core.inputs import CoreInput, ZoneChanged
from table_runtime.core.journal_outage import JournalOutage, TimedRow, outage_alarm
from table_runtime.core.journal_rows import (
    AlarmCleared,
    AlarmRaised,
    InputRow,
    JournalRow,
    NoteRow,
    row_to_json,
    rows_to_json,
    with_step_origin,
)
from table_runtime.core.meters_snapshots import GamingDays, SnapshotReason, seances_closed, snapshot_body
from table_runtime.core.record import fold, starting_core
from table_runtime.core.row_kinds import RowKind
from table_runtime.core.table_core import TableCore
from table_runtime.core.terms import TableTerms
from table_runtime.errors import JournalError
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.codec import to_dict
from table_runtime.game.events import Alarm, Event, RoundClosed, RoundVoided
from table_runtime.game.inputs import SCHEMA_VERSION, CardDrawn
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.game.table import Table
from table_runtime.journal import (
    CHECKPOINT_ROWS,
    RESUME_RESERVE_BYTES,
    Journal,
    JournalEntry,
    JournalUnwritableError,
    short_of_room,
)
from table_runtime.runtime.checkpointing import rebuild
from table_runtime.runtime.committed_view import CommittedView, committed_view
from table_runtime.runtime.journal_writer import JournalWriter
from table_runtime.runtime.meters_report import last_metered_ts
from table_runtime.runtime.terms import round_record, settle_terms
from table_runtime.version import installed_version

Listener = Callable[[], None]
P = ParamSpec("P")
T = TypeVar("T")

log = logging.getLogger(__name__)
OUTAGE_LOG_SECONDS = 60.0  # while an outage lasts, how often the log says so (with the inputs refused so far)


class TableController:
    """The one place where the table changes. Call it from the event loop only: a change directly (no step in
    flight) or as a step (`step`), which runs it in the journal's writer thread (runtime/journal_writer.py)."""

    resume_reserve: int = RESUME_RESERVE_BYTES  # bytes free on the journal's file system before play resumes

    def __init__(
        self,
        *,
        table_id: str,
        rules: RuleOptions,
        limits: TableLimits,
        journal: Journal,
        clock: Callable[[], float],
        zones: Sequence[str] = (),
        checkpoint_rows: int = CHECKPOINT_ROWS,
        staff: bool = False,
        seance_required: bool = False,
        changed_by: str | None = None,
    ) -> None:
        self.table_id = table_id
        self.rules = rules
        self.limits = limits
        self.journal = journal
        self.clock = clock
        self.zones = tuple(zones)  # the chip zones the readers report (none: no chip watch)
        configured = TableTerms.of(table_id, rules, limits, self.zones, staff=staff,  # staff: a registry rules it
                                   seance_required=seance_required)
        self.core = starting_core(configured)  # until the journal's is rebuilt (`_replay`)
        self.recovered = False
        self.devices: dict[str, str] = {"shoe": "offline", "chips": "offline", "broker": "disabled"}
        self._listeners: list[Listener] = []
        self.checkpoint_rows = checkpoint_rows  # rows between two checkpoints (core/core_state.py)
        self._checkpoint_seq = 0  # the newest checkpoint's row (0: none), where a rebuild starts
        self.outage: JournalOutage[JournalUnwritableError] | None = None  # set while the journal cannot be written
        self.writer = JournalWriter()  # the journal's thread and the order of the steps
        journal.before_close(self.writer.close)  # the thread ends with the journal (or with the app's run)
        self._view: CommittedView | None = None  # the last committed state, once built (committed_view.py)
        self._step_changed = False  # a step in flight committed a change: told when the step is over
        journal.claim_writer()
        self.days = GamingDays(last_metered_ts(journal))  # the meters' day_end snapshots (core/meters_snapshots.py)
        # the journal's terms row (runtime/terms.py); `changed_by`: who changed the configuration, if it changed
        self.terms = settle_terms(journal, configured, ts=clock(), by=changed_by)
        self._replay()

    # ------------------------------------------------------------ start-up

    @property
    def table(self) -> Table:
        """The game table of the core."""
        return self.core.table

    @property
    def alarms(self) -> AlarmLedger:
        """The core's alarm ledger: the open alarms, storms, the halt."""
        return self.core.alarms

    @property
    def halted(self) -> str:
        """Why play is stopped (an open halting alarm, core/alarm_ledger.py), else empty."""
        return self.core.halted

    def _replay(self) -> None:
        """Rebuild the core (game, chips, alarms, halt) from the journal, then note the start (and a recovery).

        The one fold of the journal (core/record.py) from the newest checkpoint the journal verified when it
        opened (the rows after it only), else from the first row. The chip watch is journaled too (`ZoneChanged`
        inputs): a journal written before it has none, and the zones of a round it left in play are locked as the
        readers first report them.
        """
        start = self.journal.start_checkpoint
        self.core = rebuild(self.journal, start)
        self._checkpoint_seq = 0 if start is None else start.seq
        now = self.clock()
        self._close_day(now)  # a day that ended while the table was off: its meters as the journal left them
        round_ = self.table.round
        status: dict[str, Any] = {"type": "Started", "table_id": self.table_id, "profile": self.rules.profile,
                                  "version": installed_version()}
        if round_ is not None and self.core.recovering:
            self.recovered = True
            status = {"type": "Recovered", "table_id": self.table_id, "round": round_.number, "phase": round_.phase,
                      "message": f"recovered round {round_.number} in phase {round_.phase} from the journal",
                      "version": installed_version()}
        self.journal.append(*row_to_json(NoteRow.of(RowKind.STATUS, {**status, "schema_version": SCHEMA_VERSION})),
                            ts=now)

    # --------------------------------------------------------------- steps

    async def step(self, change: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """Make one change (`change(*args, **kwargs)`, one of the methods below or a device's composition of them)
        after those asked for before it, in the writer's thread: the loop serves the display, the feed and the
        devices while the disk commits; readers see the committed view; listeners are told once it is over."""
        return await self.writer.run(partial(change, *args, **kwargs), before=self._keep_view, after=self._step_over)

    def _keep_view(self) -> None:
        if self._view is None:  # the core is the journal's now: what readers see until the step is over
            self._view = self._build_view()

    def _step_over(self) -> None:
        """The step is over (its last commit durable, or the core put back): readers and listeners see it whole,
        never half (a reader gone offline and its alarm, a registry's zones and its note, are one step)."""
        if self._step_changed:
            self._step_changed = False
            self._changed()

    def subscribe(self, listener: Listener) -> None:
        """`listener()` runs on the loop after every committed change (display push, feed wake-up, lamps)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        if self.writer.stepping:  # told on the loop once the whole step is over (`_step_over`)
            self._step_changed = True
            return
        self._view = None  # built again when a reader asks, or when the next step starts
        for listener in self._listeners:
            listener()

    # ------------------------------------------------------------- inputs

    def submit(self, item: CoreInput, *, source: str = "dealer", origin: Mapping[str, Any] | None = None
               ) -> list[Event]:
        """Apply one input: journal it and its events in one transaction, then tell the listeners. `origin`:
        which device message it was, written into its row as `origin` (the shoe's boot id and sequence)."""
        return self.submit_all([(item, source)], origin=origin)[0]

    def submit_all(self, items: Iterable[tuple[CoreInput, str] | Alarm], *, alarms: Sequence[Alarm] = (),
                   origin: Mapping[str, Any] | None = None, employee: str | None = None) -> list[list[Event]]:
        """Apply inputs (each with its source) as one change: all journaled in one transaction, the listeners told
        once, after the last (CONFIRM of the insurance window places every box's insurance and closes the window
        at once: a crash keeps all or none). The events per input. `items` is read one at a time, each after the
        one before it was applied (a card's bet lock); an `Alarm` among them (a device's, runtime/shoe_link.py)
        is journaled in its place; `alarms` (the devices' own, of the same step) are journaled after them, in the
        same transaction. `origin`: which device message the step was, written into its last input row (else its
        last alarm row). `employee`: who made the inputs (a supervisor by name); else each row names the dealer on
        shift (core/shift.py `Shift.author`).

        If the journal refuses the rows (a full or failing card), the table is put back as the journal has it and
        the `JournalError` is raised: nothing is shown or acted on that a restart would not replay.
        """
        self.writer.check()
        now = self.clock()  # the time of the step's rows, and the day it is in
        self._close_day(now)
        if self.outage is not None and not self.retry_journal():
            self.outage.refused_inputs += 1
            raise self.outage.error  # refused before the core saw it: nothing to put back
        try:
            applied, closed = self._apply_and_journal(items, alarms, origin, employee, now)
        except BaseException as error:
            self.core = self._journaled_core()
            if isinstance(error, JournalUnwritableError):
                self._start_outage(error, refused_input=True)
            raise
        if closed:
            self.recovered = False
        self._changed()
        return applied

    def _apply_and_journal(
        self, items: Iterable[tuple[CoreInput, str] | Alarm], device_alarms: Sequence[Alarm],
        origin: Mapping[str, Any] | None = None, employee: str | None = None, now: float | None = None
    ) -> tuple[list[list[Event]], bool]:
        """Apply the step to the core and journal its rows (inputs, events, alarms, round records) in one
        transaction, then the checkpoint due before a round it started; raises what the journal raises (the
        caller rebuilds the core from the journal)."""
        core = self.core
        rows: list[JournalRow] = []
        step = AlarmStep(core.alarms, rows)
        applied: list[list[Event]] = []
        closed = False
        seq = self.last_seq
        checkpoint: tuple[int, dict[str, Any]] | None = None
        for entry in items:
            if isinstance(entry, Alarm):
                seq = step.add(entry, seq, core.alarm_round())
                continue
            item, source = entry
            input_seq = seq + 1
            events, state = checkpoint_before(item, core, seq, self._checkpoint_seq, self.checkpoint_rows,
                                              partial(core.step, item, input_seq))
            if state is not None:
                checkpoint = (seq, state)  # the table just before the input that started a round
            applied.append(events)
            seq = input_seq
            rows.append(InputRow(item=item, source=source, employee=employee or core.shift.author(item)))
            round_ = self.table.round
            number = 0 if round_ is None else round_.number
            alarm_round = core.alarm_round(events)
            for event in events:
                if isinstance(event, Alarm):
                    seq = step.add(event, seq, alarm_round)
                    continue
                seq += 1
                rows.append(NoteRow.of(RowKind.EVENT, {**to_dict(event), "round": number}))
            closes = any(isinstance(event, (RoundClosed, RoundVoided)) for event in events)
            if closes:
                seq = step.flush(seq) + 1
                rows.append(NoteRow.of(RowKind.ROUND, round_record(self.table, self.table_id, seq,
                                                                   started_seq=core.alarms.round_started_seq,
                                                                   alarms=core.alarms.recorded)))
            closed = closed or closes
            for seance in seances_closed(events):  # the meters at the séance's close (core/meters_snapshots.py)
                seq += 1
                rows.append(NoteRow.of(RowKind.METERS, snapshot_body(
                    core.meters.view(), SnapshotReason.SEANCE_CLOSED, day=self.days.day or "", seance=seance)))
        for alarm in device_alarms:
            seq = step.add(alarm, seq, core.alarm_round())
        step.flush(seq)
        if origin:  # the device message the step was: on its last input (a card after its bet lock), else alarm
            rows = with_step_origin(rows, origin)
        self._append(rows, now)
        if origin:
            core.note_origin(origin)  # as the fold notes it from the row (core/record.py)
        if checkpoint is not None:
            self._checkpoint(*checkpoint)
        return applied, closed

    def draw(self, item: CardDrawn, *, source: str, origin: Mapping[str, Any] | None = None) -> list[Event]:
        """A card out of the shoe (or entered by hand): the first of a round may lock the bets first."""
        return self.submit_all(self.core.card_inputs(item, source), origin=origin)[-1]

    def report_zones(self, changes: Sequence[ZoneChanged], alarms: Sequence[Alarm] = ()) -> None:
        """Zones as the readers' edge judged them (those that differ from the core's) and the readers' own
        alarms of the same scan: one journaled change."""
        items = [(change, "chips") for change in changes if self.core.chips.differs(change)]
        if items or alarms:
            self.submit_all(items, alarms=alarms)

    def press(self, name: str, args: dict[str, Any], *, role: str, source: str,
              refusal_alarm: bool = False, employee: str | None = None) -> dict[str, Any]:
        """A dealer's or supervisor's command: the core decides what it means, the inputs are journaled and
        applied as one change. `refusal_alarm`: a refusal is also an alarm (the panel has no screen to say it).
        `employee`: who acts, his credential checked by the shell (runtime/staff_desk.py)."""
        decision = self.core.decide(name, args, role=role, source=source, employee=employee)
        try:
            if isinstance(decision, commands.Submit):
                reply = commands.result(decision, self.submit_all(decision.inputs, employee=employee))
            elif isinstance(decision, commands.Acknowledge):
                acknowledged = self.acknowledge(decision.alarm_id, by=decision.by, employee=decision.employee)
                reply = {"ok": acknowledged, "message": "acknowledged" if acknowledged else "no such alarm"}
                if not acknowledged:
                    reply["reason"] = RefusalReason.NO_SUCH_ALARM
            elif isinstance(decision, commands.Done):
                reply = {"ok": True, "message": decision.message}
            else:
                reply = {"ok": False, "message": decision.message, "reason": decision.reason}
        except JournalUnwritableError as error:  # not done; the journal_unwritable alarm is on already
            return {"ok": False, "message": f"not done: {error}", "alarmed": True}
        if (refusal_alarm or reply.get("reason") in commands.ALARMED_REFUSALS) and not reply["ok"] \
                and not reply.get("alarmed"):
            self.raise_alarms([commands.refusal_alarm(reply["message"], str(reply.get("reason", "")))])
        return reply

    # ------------------------------------------------- alarms and notes outside an input

    def raise_alarm(self, alarm: Alarm) -> int:
        """A device or chip alarm (not from the game): journaled, shown, published. Returns its id (the open
        alarm's when one counts its kind on its box; a provisional, negative one while the journal cannot be
        written)."""
        return self.raise_alarms([alarm])[-1]

    def raise_alarms(self, alarms: Sequence[Alarm]) -> list[int]:
        """Device alarms (not from the game) of one moment: one transaction, then shown and published; their ids.
        While the journal cannot be written they are shown at once and held (core/journal_outage.py) until the
        outage ends."""
        self.writer.check()
        if not alarms:
            return []
        if self.outage is not None and not self.retry_journal():
            return self._hold_alarms(alarms)
        rows: list[JournalRow] = []
        step = AlarmStep(self.core.alarms, rows)
        seq = self.last_seq
        for alarm in alarms:
            seq = step.add(alarm, seq, self.core.alarm_round())
        step.flush(seq)
        try:
            self._write_rows(rows)
        except JournalUnwritableError:
            self.core = self._journaled_core()  # the ledger as the journal (and the outage) has it
            return self._hold_alarms(alarms)
        self._changed()
        return [self._alarm_id(alarm) for alarm in alarms]

    def _alarm_id(self, alarm: Alarm) -> int:
        counting = self.alarms.counting(str(alarm.kind), alarm.box)
        return counting.id if counting is not None else self.last_seq

    def ratings(self, messages: Sequence[Mapping[str, Any]], advice: Sequence[Alarm]) -> bool:
        """The rating fold's `ratings` messages as `rating` rows, with the advice they came with as alarms, in one
        transaction (runtime/rating_watch.py: a restart then neither repeats nor loses them). False while the journal
        cannot be written: nothing of it is written, the watch offers it again."""
        self.writer.check()
        if not messages and not advice:
            return True
        rows: list[JournalRow] = [NoteRow.of(RowKind.RATING, message) for message in messages]
        step = AlarmStep(self.core.alarms, rows)
        seq = self.last_seq + len(rows)
        for alarm in advice:
            seq = step.add(alarm, seq, self.core.alarm_round())
        step.flush(seq)
        try:
            self._write_rows(rows)
        except JournalUnwritableError:
            self.core = self._journaled_core()  # the ledger as the journal has it
            return False
        if advice:
            self._changed()
        return True

    def program_verified(self, body: Mapping[str, Any], alarm: Alarm | None = None) -> int | None:
        """A check of the installed program (runtime/program_watch.py): its `verification` row and, for a program
        not as released, its halting alarm, in one transaction; the row's seq. During a journal outage the row is
        held and the alarm shown at once (None)."""
        self.writer.check()
        row = NoteRow.of(RowKind.VERIFICATION, body)
        rows: list[JournalRow] = [row]
        if self.outage is None or self.retry_journal():
            if alarm is not None:
                step = AlarmStep(self.core.alarms, rows)
                step.flush(step.add(alarm, self.last_seq + 1, self.core.alarm_round()))
            try:
                entry = self._write_rows(rows)[0]
            except JournalUnwritableError:
                self.core = self._journaled_core()  # the ledger as the journal has it
            else:
                self._changed()
                return entry.seq
        assert self.outage is not None
        self.outage.hold(row, self.clock())
        if alarm is not None:
            self._hold_alarms([alarm])
        self._changed()
        return None

    def journal_broken(self, seq: int | None, reason: str) -> None:
        """The background audit found the rows before the start's checkpoint broken: a supervisor's alarm, and
        play stops (a halting kind, core/alarm_ledger.py) until the supervisor clears it: every command but the
        clearing is refused, a card out of the shoe is held."""
        if self.halted:
            return
        self.raise_alarms([Alarm(
            kind=AlarmKind.JOURNAL_BROKEN, rule="table check, docs/rules.md « Corrections and recall »",
            message=f"{self.journal.path}: {reason}; play is stopped until the journal is restored",
            amounts=(("row", seq or 0),))])

    def acknowledge(self, alarm_id: int, *, by: str = "dealer", employee: str | None = None) -> bool:
        """An alarm acknowledged `by` the dealer or the supervisor: it leaves the banner (and stays in the journal).

        Who may acknowledge which kind (SUPERVISOR_ACK_KINDS) is checked by the command table
        (core/commands.py), which knows who is acting.
        """
        self.writer.check()
        if alarm_id not in self.alarms:
            return False
        self._write_rows([AlarmCleared(id=alarm_id, by=by, employee=employee or self.core.shift.dealer)])
        self.alarms.cleared(alarm_id)
        self._changed()
        return True

    def note(self, body: dict[str, Any]) -> JournalEntry | None:
        """A lifecycle fact (`status` row): started, stopping, device online/offline. During a journal outage
        it is held and written when the outage ends (None)."""
        self.writer.check()
        row = NoteRow.of(RowKind.STATUS, {**body, "schema_version": SCHEMA_VERSION})
        entry: JournalEntry | None
        try:
            entry = self._write_rows([row])[0]
        except JournalUnwritableError:
            assert self.outage is not None
            self.outage.hold(row, self.clock())
            entry = None
        self._changed()
        return entry

    def set_device(self, name: str, status: str | None) -> None:
        """A device's status on the display, noted in the journal when it changes (None: unchanged)."""
        self.writer.check()
        if status is not None and self.devices.get(name) != status:
            self.devices = {**self.devices, name: status}  # a new dict: the loop's readers never see one changing
            self.note({"type": "DeviceStatus", "device": name, "status": status})

    def _close_day(self, now: float) -> None:
        """The gaming day ended (at `now`) since the journal's last input: its `day_end` meters snapshot, alone,
        before the next day's first input and at a start (core/meters_snapshots.py). The meters change only by
        inputs, so these are the day's after its last input. During a journal outage it waits for the outage's end.
        """
        day = self.days.ended(now)
        if day is None or (self.outage is not None and not self.retry_journal()):
            return
        row = NoteRow.of(RowKind.METERS, snapshot_body(self.core.meters.view(), SnapshotReason.DAY_END, day=day))
        try:
            self._append([row], now)
        except JournalUnwritableError as error:
            self._start_outage(error)
            return
        self.days.snapshotted(now)

    # ------------------------------------------------------------ journal outage

    def _hold_alarms(self, alarms: Sequence[Alarm]) -> list[int]:
        """The journal is out: each alarm shown now and held for it (core/journal_outage.py `hold_alarm`)."""
        assert self.outage is not None
        outage = self.outage
        ids = [outage.hold_alarm(alarm, self.alarms, self.core.alarm_round(), self.clock()) for alarm in alarms]
        self._changed()
        return ids

    def _write_rows(self, rows: Sequence[JournalRow]) -> list[JournalEntry]:
        """Rows outside an input's transaction (alarms, a note); refused at once during an outage that a retry
        does not end."""
        if self.outage is not None and not self.retry_journal():
            raise self.outage.error
        try:
            return self._append(rows)
        except JournalUnwritableError as error:
            self._start_outage(error)
            raise

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
        """Write what the outage held, in order; True once the journal takes the table's rows again (the outage
        is over: its alarm is journaled, then cleared `by: "journal"`, and a `JournalWritable` note says how long
        it lasted, all in one transaction). False while it still cannot: the alarm stays on."""
        self.writer.check()
        outage = self.outage
        if outage is None:
            return True
        now = self.clock()
        outage.attempts += 1
        try:
            # A small row fitting proves nothing (journal/failures.py): the reserve first, then every held row and
            # the outage's end in one transaction; only then is the ledger told.
            short = short_of_room(self.journal.path, self.resume_reserve)  # a stat of a slow disk
            if short is not None:
                raise short
            rows, alarm_id = outage.closing_rows(self.last_seq, now)
            self._append_timed(rows)
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

    # -------------------------------------------------------------- journal calls

    @property
    def last_seq(self) -> int:
        """The last durable row's seq, read without waiting for a commit in flight (`Journal.written_seq`)."""
        return self.journal.written_seq

    def _append(self, rows: Sequence[JournalRow], now: float | None = None) -> list[JournalEntry]:
        """Rows in one fsynced transaction, at `now` (None: the clock's time now)."""
        return self.journal.append_many(rows_to_json(rows), ts=self.clock() if now is None else now)

    def _append_timed(self, rows: Sequence[TimedRow]) -> list[JournalEntry]:
        """Rows each with the time it happened (what a journal outage held), in one transaction."""
        return self.journal.append_timed(rows)

    def _checkpoint(self, seq: int, state: dict[str, Any]) -> None:
        """Seal the state after row `seq`; a start replays from there. A checkpoint that fails costs only time."""
        try:
            written = self.journal.write_checkpoint(seq, state)
        except JournalError as error:
            log.warning("no checkpoint at row %d: %s", seq, error)
            return
        self._checkpoint_seq = written.seq

    def _journaled_core(self) -> TableCore:
        """The core as the journal has it (the one fold, from the newest checkpoint), and the rows a journal
        outage holds for it (its alarms are on the banner already)."""
        core = rebuild(self.journal, self.journal.checkpoint_before(self._checkpoint_seq + 1))
        for held in [] if self.outage is None else self.outage.held:
            fold(core, 0, held.row)
        return core

    # -------------------------------------------------------------- views

    def _build_view(self) -> CommittedView:
        return committed_view(self.core, table_id=self.table_id, seq=self.last_seq, recovered=self.recovered,
                              devices=self.devices)

    @property
    def committed(self) -> CommittedView:
        """The table as the journal has it (committed_view.py): what the display, lamps and metrics read, even while
        a step is being journaled."""
        if self._view is None:
            assert not self.writer.stepping, "a step keeps the view before it changes the core"
            self._view = self._build_view()
        return self._view

    def snapshot(self) -> dict[str, Any]:
        """The whole snapshot contract of docs/display.md, as the journal has the table (shared: read only)."""
        return self.committed.snapshot
