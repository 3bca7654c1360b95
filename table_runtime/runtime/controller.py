"""The table controller: every input goes through `submit`, which journals it with its events, then shows it.

The controller owns the table core (the game `Table` and the chip watch), the
journal and the alarm board. A press is decided by the core's command table
(`press`), a card may bring the bet lock (`draw`), the readers' zones come as
`ZoneChanged` (`report_zones`); an input and the events it causes (chip alarms
included) are committed to the journal in one transaction (synchronous, fsynced)
before anyone sees them: the display, the feed and the lamps are told only after
the commit. At start-up the journal is replayed: the same round, cards, stakes,
turn and chips come back, and if a round was in play the controller says
"recovered" (journal, display, feed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from table_runtime.core import commands
from table_runtime.core.inputs import CoreInput, ZoneChanged, core_input_from_dict, core_to_dict
from table_runtime.core.table_core import TableCore, replay
from table_runtime.errors import ConfigError, TableError
from table_runtime.game.codec import to_dict
from table_runtime.game.events import Alarm, Event, RoundClosed, RoundStarted, RoundVoided
from table_runtime.game.inputs import SCHEMA_VERSION, CardDrawn
from table_runtime.game.round import IN_PLAY
from table_runtime.game.rules import RuleOptions, TableLimits, rules_from_mapping
from table_runtime.game.snapshot import payout_dict, table_snapshot
from table_runtime.game.table import Table
from table_runtime.journal import Journal, JournalEntry
from table_runtime.runtime.alarm_step import AlarmStep
from table_runtime.runtime.alarms import AlarmBoard
from table_runtime.version import installed_version

Listener = Callable[[], None]


def stored_terms(journal: Journal) -> tuple[str, RuleOptions, TableLimits] | None:
    """The table id, rules and limits a journal was written under (None for a new journal)."""
    stored = journal.get_meta("terms")
    if stored is None:
        return None
    terms = json.loads(stored)
    return (terms["table_id"], RuleOptions(**terms["rules"]), TableLimits(**terms["limits"]))


class TableController:
    """The one place where the table changes. Not thread-safe: call it from the event loop only."""

    def __init__(
        self,
        *,
        table_id: str,
        rules: RuleOptions,
        limits: TableLimits,
        journal: Journal,
        clock: Callable[[], float],
        zones: Sequence[str] = (),
    ) -> None:
        self.table_id = table_id
        self.rules = rules
        self.limits = limits
        self.journal = journal
        self.clock = clock
        self.zones = tuple(zones)  # the chip zones the readers report (none: no chip watch)
        self.core = TableCore(rules, limits, zones=self.zones)
        self.alarms = AlarmBoard()
        self.recovered = False
        self.devices: dict[str, str] = {"shoe": "offline", "chips": "offline", "broker": "disabled"}
        self._listeners: list[Listener] = []
        self._round_alarms: list[dict[str, Any]] = []
        self._round_started_seq = 0
        journal.claim_writer()
        self._check_terms()
        self._replay()

    # ------------------------------------------------------------ start-up

    def _check_terms(self) -> None:
        """The journal replays only under the rules it was written with: keep them beside it."""
        terms = json.dumps({"table_id": self.table_id, "rules": self.rules.to_dict(),
                            "limits": {"min_bet_cents": self.limits.min_bet_cents,
                                       "max_bet_cents": self.limits.max_bet_cents}}, sort_keys=True)
        stored = self.journal.get_meta("terms")
        if stored is None:
            self.journal.set_meta("terms", terms)
        elif stored != terms and not self._same_terms(stored):
            raise ConfigError("rules", f"{self.journal.path} was written under other terms ({stored}); "
                              "use a new data directory for new rules, limits or table id")

    def _same_terms(self, stored: str) -> bool:
        """Terms written by an earlier version, which knew fewer rule options: the same game when every option
        it did not know is at its profile's value (a new option's default keeps the old game)."""
        try:
            old = json.loads(stored)
            rules = rules_from_mapping(old["rules"])
        except (ValueError, KeyError, TypeError, TableError):  # unreadable, or an option this version lacks
            return False
        limits = {"min_bet_cents": self.limits.min_bet_cents, "max_bet_cents": self.limits.max_bet_cents}
        return old.get("table_id") == self.table_id and old.get("limits") == limits and rules == self.rules

    @property
    def table(self) -> Table:
        """The game table of the core."""
        return self.core.table

    def _replay(self) -> None:
        """Rebuild the core (game and chips) and the alarms from the journal, then note the start (and a recovery).

        The chip watch is journaled too (`ZoneChanged` inputs): a journal written before it has none, and
        the zones of a round it left in play are locked as the readers first report them.
        """
        core = self.core
        table = core.table
        for entry in self.journal.entries(kinds=("input", "alarm", "alarm_updated", "alarm_cleared")):
            if entry.kind == "input":
                for event in core.apply(core_input_from_dict(entry.body)):
                    if isinstance(event, RoundStarted):
                        self._round_alarms = []
                        self._round_started_seq = entry.seq
            elif entry.kind == "alarm":
                self.alarms.raised(entry.body)
                self._round_alarms.append(entry.body)
            elif entry.kind == "alarm_updated":
                self.alarms.updated(entry.body)  # the same body as in _round_alarms
            elif entry.kind == "alarm_cleared":
                self.alarms.cleared(int(entry.body["id"]))
        round_ = table.round
        status: dict[str, Any] = {"type": "Started", "table_id": self.table_id, "profile": self.rules.profile,
                                  "version": installed_version()}
        if round_ is not None and round_.phase in IN_PLAY:
            self.recovered = True
            status = {"type": "Recovered", "table_id": self.table_id, "round": round_.number, "phase": round_.phase,
                      "message": f"recovered round {round_.number} in phase {round_.phase} from the journal",
                      "version": installed_version()}
        self.journal.append("status", {**status, "schema_version": SCHEMA_VERSION}, ts=self.clock())

    # ------------------------------------------------------------- changes

    def subscribe(self, listener: Listener) -> None:
        """`listener()` runs after every committed change (display push, feed wake-up, lamps)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in self._listeners:
            listener()

    def submit(self, item: CoreInput, *, source: str = "dealer") -> list[Event]:
        """Apply one input: journal it and its events in one transaction, then tell the listeners."""
        return self.submit_all([(item, source)])[0]

    def submit_all(self, items: Iterable[tuple[CoreInput, str]], *, alarms: Sequence[Alarm] = ()) -> list[list[Event]]:
        """Apply inputs (each with its source) as one step: all journaled in one transaction, the
        listeners told once, after the last (CONFIRM of the insurance window places every box's
        insurance and closes the window at once: a crash keeps all or none). The events per input.
        `items` is read one at a time, each after the one before it was applied (`draw_all`); `alarms`
        (the devices' own, of the same step) are journaled after them, in the same transaction.

        If the journal refuses the rows (a full or failing card), the table is put back as the
        journal has it and the `JournalError` is raised: nothing is shown or acted on that a
        restart would not replay.
        """
        round_alarms, round_started_seq = list(self._round_alarms), self._round_started_seq
        try:
            applied, step, closed = self._apply_and_journal(items, alarms)
        except BaseException:
            self._round_alarms, self._round_started_seq = round_alarms, round_started_seq
            self.core = self._journaled_core()
            raise
        step.show()
        if closed:
            self.recovered = False
        self._changed()
        return applied

    def _journaled_core(self) -> TableCore:
        """The core rebuilt from the journal's inputs alone."""
        inputs = (core_input_from_dict(entry.body) for entry in self.journal.entries(kinds=("input",)))
        return replay(self.rules, inputs, self.limits, zones=self.zones)

    def report_zones(self, changes: Sequence[ZoneChanged], alarms: Sequence[Alarm] = ()) -> None:
        """Zones as the readers' edge judged them (those that differ from the core's) and the readers' own
        alarms of the same scan: one journaled step."""
        items = [(change, "chips") for change in changes if self.core.chips.differs(change)]
        if items or alarms:
            self.submit_all(items, alarms=alarms)

    def draw(self, item: CardDrawn, *, source: str) -> list[Event]:
        """A card out of the shoe (or entered by hand): the first of a round may lock the bets first."""
        return self.submit_all(self.core.card_inputs(item, source))[-1]

    def draw_all(self, cards: Sequence[CardDrawn], *, source: str, alarms: Sequence[Alarm] = ()) -> None:
        """Cards that came together (a burst from the shoe): each as `draw` would take it, all one step."""
        core = self.core

        def inputs() -> Iterator[tuple[CoreInput, str]]:
            for card in cards:
                yield from core.card_inputs(card, source)  # after the card before it was applied

        self.submit_all(inputs(), alarms=alarms)

    def press(self, name: str, args: dict[str, Any], *, role: str, source: str,
              refusal_alarm: bool = False) -> dict[str, Any]:
        """A dealer's or supervisor's command: the core decides what it means, the inputs are journaled and
        applied as one step. `refusal_alarm`: a refusal is also an alarm (the panel has no screen to say it)."""
        decision = self.core.decide(name, args, role=role, source=source,
                                    alarm_kinds={int(alarm["id"]): str(alarm["kind"]) for alarm in self.alarms.active})
        if isinstance(decision, commands.Submit):
            reply = commands.result(decision, self.submit_all(decision.inputs))
        elif isinstance(decision, commands.Acknowledge):
            acknowledged = self.acknowledge(decision.alarm_id, by=decision.by)
            reply = {"ok": acknowledged, "message": "acknowledged" if acknowledged else "no such alarm"}
        elif isinstance(decision, commands.Done):
            reply = {"ok": True, "message": decision.message}
        else:
            reply = {"ok": False, "message": decision.message}
        if refusal_alarm and not reply["ok"] and not reply.get("alarmed"):
            self.raise_alarm(commands.refusal_alarm(reply["message"]))
        return reply

    def _apply_and_journal(
        self, items: Iterable[tuple[CoreInput, str]], device_alarms: Sequence[Alarm]
    ) -> tuple[list[list[Event]], AlarmStep, bool]:
        rows: list[tuple[str, dict[str, Any]]] = []
        step = AlarmStep(self.alarms, rows)
        applied: list[list[Event]] = []
        closed = False
        seq = self.journal.last_seq
        for item, source in items:
            events = self.core.apply(item)
            applied.append(events)
            seq += 1
            rows.append(("input", {**core_to_dict(item), "source": source}))
            input_seq = seq
            round_ = self.table.round
            number = 0 if round_ is None else round_.number
            closes = any(isinstance(event, (RoundClosed, RoundVoided)) for event in events)
            alarm_round = number if closes or self.table.round_in_play else 0  # 0: between rounds
            for event in events:
                if isinstance(event, Alarm):
                    before = len(step.raised)
                    seq = step.add(event, seq, alarm_round)
                    self._round_alarms += step.raised[before:]
                    continue
                seq += 1
                if isinstance(event, RoundStarted):
                    self._round_alarms = [alarm for alarm in self._round_alarms if alarm["seq"] > input_seq]
                    self._round_started_seq = input_seq
                rows.append(("event", {**to_dict(event), "round": number}))
            if closes:
                seq = step.flush(seq) + 1
                rows.append(("round", self._round_record(seq, step)))
            closed = closed or closes
        for alarm in device_alarms:
            before = len(step.raised)
            seq = step.add(alarm, seq, self._alarm_round())
            self._round_alarms += step.raised[before:]
        step.flush(seq)
        self.journal.append_many(rows, ts=self.clock())
        return applied, step, closed

    def _alarm_round(self) -> int:
        round_ = self.table.round
        return round_.number if round_ is not None and self.table.round_in_play else 0  # 0: between rounds

    def raise_alarm(self, alarm: Alarm) -> int:
        """A device or chip alarm (not from the game): journaled, shown, published. Returns its id (the open
        alarm's when one counts its kind on its box)."""
        self.raise_alarms([alarm])
        counting = self.alarms.counting(alarm.kind, alarm.box)
        return int(counting["id"]) if counting is not None else self.journal.last_seq

    def raise_alarms(self, alarms: Sequence[Alarm]) -> None:
        """Device alarms (not from the game) of one moment: one transaction, then shown and published."""
        rows: list[tuple[str, dict[str, Any]]] = []
        step = AlarmStep(self.alarms, rows)
        seq = self.journal.last_seq
        for alarm in alarms:
            seq = step.add(alarm, seq, self._alarm_round())
        step.flush(seq)
        self.journal.append_many(rows, ts=self.clock())
        self._round_alarms += step.raised
        step.show()
        self._changed()

    def acknowledge(self, alarm_id: int, *, by: str = "dealer") -> bool:
        """An alarm acknowledged `by` the dealer or the supervisor: it leaves the banner (and stays in the journal).

        Who may acknowledge which kind (SUPERVISOR_ACK_KINDS) is checked by the command table
        (core/commands.py), which knows who is acting.
        """
        if alarm_id not in self.alarms:
            return False
        self.journal.append("alarm_cleared", {"type": "AlarmCleared", "schema_version": SCHEMA_VERSION,
                                              "id": alarm_id, "by": by}, ts=self.clock())
        self.alarms.cleared(alarm_id)
        self._changed()
        return True

    def note(self, body: dict[str, Any]) -> JournalEntry:
        """A lifecycle fact (`status` row): started, stopping, device online/offline."""
        entry = self.journal.append("status", {**body, "schema_version": SCHEMA_VERSION}, ts=self.clock())
        self._changed()
        return entry

    def set_device(self, name: str, status: str) -> None:
        if self.devices.get(name) != status:
            self.devices[name] = status
            self.note({"type": "DeviceStatus", "device": name, "status": status})

    def _round_record(self, seq: int, step: AlarmStep) -> dict[str, Any]:
        round_ = self.table.round
        assert round_ is not None
        return {
            "type": "RoundRecord", "schema_version": SCHEMA_VERSION, "seq": seq, "round": round_.number,
            "table_id": self.table_id, "shoe_id": self.table.shoe.shoe_id, "result": round_.phase,
            "started_seq": self._round_started_seq, "closed_seq": seq,
            "bank": [card.code for card in round_.bank.cards],
            "boxes": [{"box": box.number, "owner": box.bet.owner, "seated_cents": box.bet.seated_cents,
                       "behind": [{"owner": b.owner, "cents": b.cents} for b in box.bet.behind],
                       "hands": [[card.code for card in hand.cards] for hand in box.hands]}
                      for box in round_.boxes],
            "payouts": [payout_dict(payout) for payout in round_.payouts],
            "alarms": [step.as_recorded(alarm) for alarm in self._round_alarms],
        }

    # -------------------------------------------------------------- views

    def snapshot(self) -> dict[str, Any]:
        """The whole snapshot contract of docs/display.md."""
        snapshot = table_snapshot(self.table)
        snapshot["shoe"]["online"] = self.devices.get("shoe") == "online"
        snapshot.update({
            "schema_version": SCHEMA_VERSION,
            "table_id": self.table_id,
            "seq": self.journal.last_seq,
            "alarms": self.alarms.shown,
            "alarms_hidden": self.alarms.hidden,
            "recovered": self.recovered,
            "devices": dict(self.devices),
            **self.core.snapshot_extra(),
        })
        return snapshot
