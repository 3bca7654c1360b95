"""The table controller: every input goes through `submit`, which journals it with its events, then shows it.

The controller owns the table core (the game `Table` and the chip watch), the
journal and the alarm board. A press is decided by the core's command table
(`press`), a card may bring the bet lock (`draw`), the readers' zones come as
`ZoneChanged` (`report_zones`); an input and the events it causes (chip alarms
included) are committed to the journal in one transaction (fsynced) before anyone
sees them: the display, the feed and the lamps are told only after the commit.
Each change is a *plan* (`plan_submit_all`, `plan_press`, ...; runtime/journal_writer.py):
the running table awaits `step(plan)`, which journals it in the writer's thread, one
step after the other, while the loop goes on; readers meanwhile see the committed
view (runtime/committed_view.py). The plain methods (`submit_all`, `press`, ...) run
the same plan on the caller's thread (the start, the fast table, the tests).
A journal that cannot be written (full, read-only, failing) stops play safely
instead: the input is refused (`JournalUnwritableError`), a `journal_unwritable`
alarm is held in memory (core/journal_outage.py) and `retry_journal` writes what
was held once the card takes rows again. At
start-up the journal is replayed: the same round, cards, stakes, turn and chips
come back, and if a round was in play the controller says "recovered"
(journal, display, feed).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

from table_runtime.core import commands
from table_runtime.core.alarm_ledger import AlarmLedger, AlarmStep
from table_runtime.core.core_state import checkpoint_state
from table_runtime.core.inputs import CoreInput, ZoneChanged
from table_runtime.core.journal_outage import JournalOutage
from table_runtime.core.journal_rows import (
    InputRow,
    JournalRow,
    NoteRow,
    row_to_json,
    with_step_origin,
)
from table_runtime.core.record import fold, starting_core
from table_runtime.core.row_kinds import RowKind
from table_runtime.core.table_core import TableCore
from table_runtime.core.terms import TableTerms
from table_runtime.errors import JournalError
from table_runtime.game.codec import to_dict
from table_runtime.game.events import Alarm, Event, RoundClosed, RoundStarted, RoundVoided
from table_runtime.game.inputs import SCHEMA_VERSION, CardDrawn
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.round import IN_PLAY
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.game.table import Table
from table_runtime.journal import CHECKPOINT_ROWS, Journal, JournalEntry, JournalUnwritableError
from table_runtime.runtime.alarm_steps import AlarmSteps
from table_runtime.runtime.checkpointing import checkpoint_due, rebuild
from table_runtime.runtime.committed_view import CommittedView, committed_view
from table_runtime.runtime.journal_writer import JournalWriter, Plan
from table_runtime.runtime.terms import round_record, settle_terms
from table_runtime.version import installed_version

Listener = Callable[[], None]
T = TypeVar("T")

log = logging.getLogger(__name__)


class TableController(AlarmSteps):
    """The one place where the table changes. Not thread-safe: call it from the event loop only (its journal
    calls run in the writer's thread, runtime/journal_writer.py)."""

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
    ) -> None:
        self.table_id = table_id
        self.rules = rules
        self.limits = limits
        self.journal = journal
        self.clock = clock
        self.zones = tuple(zones)  # the chip zones the readers report (none: no chip watch)
        configured = TableTerms.of(table_id, rules, limits, self.zones)
        self.core = starting_core(configured)  # until the journal's is rebuilt (`_replay`)
        self.recovered = False
        self.devices: dict[str, str] = {"shoe": "offline", "chips": "offline", "broker": "disabled"}
        self._listeners: list[Listener] = []
        self.checkpoint_rows = checkpoint_rows  # rows between two checkpoints (checkpointing.py)
        self._checkpoint_seq = 0  # the newest checkpoint's row (0: none), where a rebuild starts
        self.outage: JournalOutage[JournalUnwritableError] | None = None  # set while the journal cannot be written
        self.writer = JournalWriter()  # the journal's thread and the order of the steps
        journal.before_close(self.writer.close)  # the thread ends with the journal (or with the app's run)
        self._view: CommittedView | None = None  # the last committed state, once built (committed_view.py)
        self._step_changed = False  # a step in flight committed a change: told when the step is over
        journal.claim_writer()
        self.terms = settle_terms(journal, configured, ts=clock())  # the journal's terms row (runtime/terms.py)
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
        round_ = self.table.round
        status: dict[str, Any] = {"type": "Started", "table_id": self.table_id, "profile": self.rules.profile,
                                  "version": installed_version()}
        if round_ is not None and round_.phase in IN_PLAY:
            self.recovered = True
            status = {"type": "Recovered", "table_id": self.table_id, "round": round_.number, "phase": round_.phase,
                      "message": f"recovered round {round_.number} in phase {round_.phase} from the journal",
                      "version": installed_version()}
        self.journal.append(*row_to_json(NoteRow.of(RowKind.STATUS, {**status, "schema_version": SCHEMA_VERSION})),
                            ts=self.clock())

    # ------------------------------------------------------------- changes

    def subscribe(self, listener: Listener) -> None:
        """`listener()` runs after every committed change (display push, feed wake-up, lamps)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        if self.writer.stepping:  # told once the whole step is over (`_step_over`)
            self._step_changed = True
            return
        self._view = None  # built again when a reader asks, or when the next step starts
        for listener in self._listeners:
            listener()

    def submit(self, item: CoreInput, *, source: str = "dealer", origin: Mapping[str, Any] | None = None
               ) -> list[Event]:
        """Apply one input: journal it and its events in one transaction, then tell the listeners. `origin`:
        which device message it was, written into its row as `origin` (the shoe's boot id and sequence)."""
        return self.submit_all([(item, source)], origin=origin)[0]

    def submit_all(self, items: Iterable[tuple[CoreInput, str] | Alarm], *, alarms: Sequence[Alarm] = (),
                   origin: Mapping[str, Any] | None = None) -> list[list[Event]]:
        """`plan_submit_all` on this thread."""
        return self.writer.run_now(self.plan_submit_all(items, alarms=alarms, origin=origin))

    def plan_submit_all(self, items: Iterable[tuple[CoreInput, str] | Alarm], *, alarms: Sequence[Alarm] = (),
                        origin: Mapping[str, Any] | None = None) -> Plan[list[list[Event]]]:
        """Apply inputs (each with its source) as one step: all journaled in one transaction, the
        listeners told once, after the last (CONFIRM of the insurance window places every box's
        insurance and closes the window at once: a crash keeps all or none). The events per input.
        `items` is read one at a time, each after the one before it was applied (a card's bet lock); an `Alarm`
        among them (a device's, runtime/shoe_link.py) is journaled in its place; `alarms` (the devices'
        own, of the same step) are journaled after them, in the same transaction. `origin`: which device
        message the step was, written into its last input row (else its last alarm row).

        If the journal refuses the rows (a full or failing card), the table is put back as the
        journal has it and the `JournalError` is raised: nothing is shown or acted on that a
        restart would not replay.
        """
        if self.outage is not None and not (yield from self.plan_retry_journal()):
            self.outage.refused_inputs += 1
            raise self.outage.error  # refused before the core saw it: nothing to put back
        try:
            applied, closed = yield from self._apply_and_journal(items, alarms, origin)
        except BaseException as error:
            if isinstance(error, GeneratorExit):  # the plan itself is dropped: nothing more may be yielded
                raise
            self.core = yield from self._journaled_core()
            if isinstance(error, JournalUnwritableError):
                self._start_outage(error, refused_input=True)
            raise
        if closed:
            self.recovered = False
        self._changed()
        return applied

    def _journaled_core(self) -> Plan[TableCore]:
        """The core as the journal has it (the one fold, from the newest checkpoint), and the rows a journal
        outage holds for it (its alarms are on the banner already); folded in the writer's thread."""
        after = self._checkpoint_seq + 1
        held = [] if self.outage is None else [item.row for item in self.outage.held]

        def replay() -> TableCore:
            core = rebuild(self.journal, self.journal.checkpoint_before(after))
            for row in held:
                fold(core, 0, row)
            return core

        core: TableCore = yield replay
        return core

    def report_zones(self, changes: Sequence[ZoneChanged], alarms: Sequence[Alarm] = ()) -> None:
        """`plan_report_zones` on this thread."""
        self.writer.run_now(self.plan_report_zones(changes, alarms))

    def plan_report_zones(self, changes: Sequence[ZoneChanged], alarms: Sequence[Alarm] = ()) -> Plan[None]:
        """Zones as the readers' edge judged them (those that differ from the core's) and the readers' own
        alarms of the same scan: one journaled step."""
        items = [(change, "chips") for change in changes if self.core.chips.differs(change)]
        if items or alarms:
            yield from self.plan_submit_all(items, alarms=alarms)

    def draw(self, item: CardDrawn, *, source: str, origin: Mapping[str, Any] | None = None) -> list[Event]:
        """A card out of the shoe (or entered by hand): the first of a round may lock the bets first."""
        return self.submit_all(self.core.card_inputs(item, source), origin=origin)[-1]

    def press(self, name: str, args: dict[str, Any], *, role: str, source: str,
              refusal_alarm: bool = False) -> dict[str, Any]:
        """`plan_press` on this thread."""
        return self.writer.run_now(self.plan_press(name, args, role=role, source=source, refusal_alarm=refusal_alarm))

    def plan_press(self, name: str, args: dict[str, Any], *, role: str, source: str,
                   refusal_alarm: bool = False) -> Plan[dict[str, Any]]:
        """A dealer's or supervisor's command: the core decides what it means, the inputs are journaled and
        applied as one step. `refusal_alarm`: a refusal is also an alarm (the panel has no screen to say it)."""
        decision = self.core.decide(name, args, role=role, source=source)
        try:
            if isinstance(decision, commands.Submit):
                reply = commands.result(decision, (yield from self.plan_submit_all(decision.inputs)))
            elif isinstance(decision, commands.Acknowledge):
                acknowledged = yield from self.plan_acknowledge(decision.alarm_id, by=decision.by)
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
            yield from self.plan_raise_alarms([commands.refusal_alarm(reply["message"], str(reply.get("reason", "")))])
        return reply

    def _apply_and_journal(
        self, items: Iterable[tuple[CoreInput, str] | Alarm], device_alarms: Sequence[Alarm],
        origin: Mapping[str, Any] | None = None
    ) -> Plan[tuple[list[list[Event]], bool]]:
        """Apply the step to the core and journal its rows (inputs, events, alarms, round records) in one
        transaction; raises what the journal raises (the caller rebuilds the core from the journal)."""
        core = self.core
        rows: list[JournalRow] = []
        step = AlarmStep(core.alarms, rows)
        applied: list[list[Event]] = []
        closed = False
        seq = self.last_seq
        checkpoint: tuple[int, dict[str, Any]] | None = None
        for entry in items:
            if isinstance(entry, Alarm):
                seq = step.add(entry, seq, self._alarm_round())
                continue
            item, source = entry
            due = checkpoint_due(item, core, seq, self._checkpoint_seq, self.checkpoint_rows)
            state = checkpoint_state(core) if due else None  # what the rows up to `seq` fold to
            input_seq = seq + 1
            events = core.step(item, input_seq)
            if state is not None and any(isinstance(event, RoundStarted) for event in events):
                checkpoint = (seq, state)  # the table just before the input that started a round
            applied.append(events)
            seq = input_seq
            rows.append(InputRow(item=item, source=source))
            round_ = self.table.round
            number = 0 if round_ is None else round_.number
            closes = any(isinstance(event, (RoundClosed, RoundVoided)) for event in events)
            alarm_round = number if closes or self.table.round_in_play else 0  # 0: between rounds
            for event in events:
                if isinstance(event, Alarm):
                    seq = step.add(event, seq, alarm_round)
                    continue
                seq += 1
                rows.append(NoteRow.of(RowKind.EVENT, {**to_dict(event), "round": number}))
            if closes:
                seq = step.flush(seq) + 1
                rows.append(NoteRow.of(RowKind.ROUND, round_record(self.table, self.table_id, seq,
                                                                   started_seq=core.alarms.round_started_seq,
                                                                   alarms=core.alarms.recorded)))
            closed = closed or closes
        for alarm in device_alarms:
            seq = step.add(alarm, seq, self._alarm_round())
        step.flush(seq)
        if origin:  # the device message the step was: on its last input (a card after its bet lock), else alarm
            rows = with_step_origin(rows, origin)
        yield from self._append(rows)
        if checkpoint is not None:
            yield from self._checkpoint(*checkpoint)
        return applied, closed

    def _checkpoint(self, seq: int, state: dict[str, Any]) -> Plan[None]:
        """Seal the state after row `seq`; a start replays from there. A checkpoint that fails costs only time."""
        try:
            written = yield partial(self.journal.write_checkpoint, seq, state)
        except JournalError as error:
            log.warning("no checkpoint at row %d: %s", seq, error)
            return
        self._checkpoint_seq = written.seq

    def _alarm_round(self) -> int:
        round_ = self.table.round
        return round_.number if round_ is not None and self.table.round_in_play else 0  # 0: between rounds

    def note(self, body: dict[str, Any]) -> JournalEntry | None:
        """`plan_note` on this thread."""
        return self.writer.run_now(self.plan_note(body))

    def plan_note(self, body: dict[str, Any]) -> Plan[JournalEntry | None]:
        """A lifecycle fact (`status` row): started, stopping, device online/offline. During a journal outage
        it is held and written when the outage ends (None)."""
        row = NoteRow.of(RowKind.STATUS, {**body, "schema_version": SCHEMA_VERSION})
        try:
            entry: JournalEntry | None = yield from self._write(row)
        except JournalUnwritableError:
            assert self.outage is not None
            self.outage.hold(row, self.clock())
            entry = None
        self._changed()
        return entry

    def set_device(self, name: str, status: str) -> None:
        """`plan_set_device` on this thread."""
        self.writer.run_now(self.plan_set_device(name, status))

    def plan_set_device(self, name: str, status: str) -> Plan[None]:
        if self.devices.get(name) != status:
            self.devices[name] = status
            yield from self.plan_note({"type": "DeviceStatus", "device": name, "status": status})

    # -------------------------------------------------------------- views

    def _build_view(self) -> CommittedView:
        return committed_view(self.core, table_id=self.table_id, seq=self.last_seq, recovered=self.recovered,
                              devices=self.devices)

    def snapshot(self) -> dict[str, Any]:
        """The whole snapshot contract of docs/display.md, as the journal has the table (shared: read only)."""
        return self.committed.snapshot
