"""The table controller: every input goes through `submit`, which journals it with its events, then shows it.

The controller owns the game `Table`, the journal and the alarm board. An input
and the events it causes are committed to the journal in one transaction
(synchronous, fsynced) before anyone sees them: the display, the feed and the
lamps are told only after the commit. At start-up the journal is replayed: the
same round, cards, stakes and turn come back, and if a round was in play the
controller says "recovered" (journal, display, feed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from table_runtime.errors import ConfigError, TableError
from table_runtime.game.codec import input_from_dict, to_dict
from table_runtime.game.events import Alarm, Event, RoundClosed, RoundStarted, RoundVoided
from table_runtime.game.inputs import SCHEMA_VERSION, Input
from table_runtime.game.round import IN_PLAY
from table_runtime.game.rules import RuleOptions, TableLimits, rules_from_mapping
from table_runtime.game.snapshot import payout_dict, table_snapshot
from table_runtime.game.table import Table
from table_runtime.journal import Journal, JournalEntry
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
    ) -> None:
        self.table_id = table_id
        self.rules = rules
        self.limits = limits
        self.journal = journal
        self.clock = clock
        self.table = Table(rules, limits)
        self.alarms = AlarmBoard()
        self.recovered = False
        self.devices: dict[str, str] = {"shoe": "offline", "chips": "offline", "broker": "disabled"}
        self.extra: dict[str, Any] = {}  # runtime facts shown beside the game (e.g. live zone totals)
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

    def _replay(self) -> None:
        """Rebuild table and alarms from the journal, then note the start (and a recovery)."""
        table = self.table
        for entry in self.journal.entries(kinds=("input", "alarm", "alarm_cleared")):  # events follow from inputs
            if entry.kind == "input":
                for event in table.apply(input_from_dict(entry.body)):
                    if isinstance(event, RoundStarted):
                        self._round_alarms = []
                        self._round_started_seq = entry.seq
            elif entry.kind == "alarm":
                self.alarms.raised(entry.body)
                self._round_alarms.append(entry.body)
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

    def touch(self) -> None:
        """Something shown beside the game changed (zone totals): tell the listeners, journal nothing."""
        self._changed()

    def _changed(self) -> None:
        for listener in self._listeners:
            listener()

    def submit(self, item: Input, *, source: str = "dealer") -> list[Event]:
        """Apply one input: journal it and its events in one transaction, then tell the listeners."""
        return self.submit_all([(item, source)])[0]

    def submit_all(self, items: Sequence[tuple[Input, str]]) -> list[list[Event]]:
        """Apply inputs (each with its source) as one step: all journaled in one transaction, the
        listeners told once, after the last (CONFIRM of the insurance window places every box's
        insurance and closes the window at once: a crash keeps all or none). The events per input.

        If the journal refuses the rows (a full or failing card), the table is put back as the
        journal has it and the `JournalError` is raised: nothing is shown or acted on that a
        restart would not replay.
        """
        round_alarms, round_started_seq = list(self._round_alarms), self._round_started_seq
        try:
            applied, alarms, closed = self._apply_and_journal(items)
        except BaseException:
            self._round_alarms, self._round_started_seq = round_alarms, round_started_seq
            self.table = self._journaled_table()
            raise
        for body in alarms:
            self.alarms.raised(body)
        if closed:
            self.recovered = False
        self._changed()
        return applied

    def _journaled_table(self) -> Table:
        """The table rebuilt from the journal's inputs alone."""
        table = Table(self.rules, self.limits)
        for entry in self.journal.entries(kinds=("input",)):
            table.apply(input_from_dict(entry.body))
        return table

    def _apply_and_journal(
        self, items: Sequence[tuple[Input, str]]
    ) -> tuple[list[list[Event]], list[dict[str, Any]], bool]:
        rows: list[tuple[str, dict[str, Any]]] = []
        applied: list[list[Event]] = []
        alarms: list[dict[str, Any]] = []
        closed = False
        seq = self.journal.last_seq
        for item, source in items:
            events = self.table.apply(item)
            applied.append(events)
            seq += 1
            rows.append(("input", {**to_dict(item), "source": source}))
            input_seq = seq
            round_ = self.table.round
            number = 0 if round_ is None else round_.number
            closes = any(isinstance(event, (RoundClosed, RoundVoided)) for event in events)
            alarm_round = number if closes or self.table.round_in_play else 0  # 0: between rounds
            for event in events:
                seq += 1
                if isinstance(event, Alarm):
                    body = self._alarm_body(event, seq, alarm_round)
                    alarms.append(body)
                    self._round_alarms.append(body)
                    rows.append(("alarm", body))
                    continue
                if isinstance(event, RoundStarted):
                    self._round_alarms = [alarm for alarm in self._round_alarms if alarm["seq"] > input_seq]
                    self._round_started_seq = input_seq
                rows.append(("event", {**to_dict(event), "round": number}))
            if closes:
                seq += 1
                rows.append(("round", self._round_record(seq)))
            closed = closed or closes
        self.journal.append_many(rows, ts=self.clock())
        return applied, alarms, closed

    def _alarm_body(self, alarm: Alarm, seq: int, number: int) -> dict[str, Any]:
        return {"type": "Alarm", "schema_version": SCHEMA_VERSION, "id": seq, "seq": seq, "kind": alarm.kind,
                "message": alarm.message, "rule": alarm.rule, "box": alarm.box, "amounts": dict(alarm.amounts),
                "round": number, "acknowledged": False}

    def raise_alarm(self, alarm: Alarm) -> int:
        """A device or chip alarm (not from the game): journaled, shown, published. Returns its id."""
        seq = self.journal.last_seq + 1
        round_ = self.table.round
        number = round_.number if round_ is not None and self.table.round_in_play else 0  # 0: between rounds
        body = self._alarm_body(alarm, seq, number)
        self.journal.append("alarm", body, ts=self.clock())
        self.alarms.raised(body)
        self._round_alarms.append(body)
        self._changed()
        return seq

    def acknowledge(self, alarm_id: int, *, by: str = "dealer") -> bool:
        """An alarm acknowledged `by` the dealer or the supervisor: it leaves the banner (and stays in the journal).

        Who may acknowledge which kind (alarms.SUPERVISOR_ACK_KINDS) is checked by the command path
        (TableApp.apply_command), which knows who is acting.
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

    def _round_record(self, seq: int) -> dict[str, Any]:
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
            "alarms": [{key: alarm[key] for key in ("id", "kind", "box", "message", "rule", "amounts")}
                       for alarm in self._round_alarms],
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
            "recovered": self.recovered,
            "devices": dict(self.devices),
            **self.extra,
        })
        return snapshot
