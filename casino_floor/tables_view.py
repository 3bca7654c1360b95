"""What the pit sees of each table, folded from the feed's messages (pure: no I/O, no clock).

`FloorView.apply(topic_name, payload)` takes one decoded feed payload as it arrived on
``{prefix}/tables/{tableId}/{topic_name}`` (``status``, ``state``, ``events``, ``alarms``, ``rounds``,
``head``) or a floor alarm (topic name ``floor_alarms``, a row of the store's floor_alarms table as a dict);
`overview()` is the JSON-ready state the pit page shows. Delivery is at least once and out of order across
reconnects, so everything is idempotent: a round is counted once per (journal, round number), an alarm is
one per (journal, id), a state older than the one shown is ignored.

Money, as finance names it (casino_floor/money.py): ``handle_cents`` is what was staked in the shift's settled
rounds (every stake of every payout: seated, behind, doubles, splits, insurance), ``drop_cents`` the buy-ins
the dealers recorded (cash and markers exchanged for chips at the table: `BuyInRecorded` events, each once by
journal and seq), ``win_cents`` the house's win (minus the players' net), ``hold_pct`` the win over the drop in
percent (None with no drop) and ``win_to_handle_pct`` the win over the handle.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any

from casino_floor.money import BUY_IN_EVENT, ShiftMoney
from casino_floor.shifts import Shifts
from table_runtime.core.alarm_ledger import SUPERVISOR_ACK_KINDS, DeliveredAlarms
from table_runtime.core.journal_rows import AlarmRaised
from table_runtime.game.codec import CodecError

TOPICS = frozenset({"status", "state", "events", "alarms", "rounds", "head", "floor_alarms"})
# The kinds of journal rows `FloorView._event` folds (a dealer's input, most of a table's rows, changes nothing).
_EVENT_KINDS = frozenset({"alarm", "alarm_cleared", "alarm_updated", "round", "event"})
# The types of ``event`` rows it folds: the phase, the round's number, a buy-in (most events change nothing here).
_EVENT_TYPES = frozenset({"PhaseChanged", "RoundStarted", BUY_IN_EVENT})
SHIFTS_KEPT = 3  # a table's money and counted rounds are kept for its last three shifts (the pit shows the current)
CLEARED_KEPT = 4096  # cleared alarms remembered per journal, so a raise arriving after its clear stays cleared
_SUPERVISOR = frozenset(str(kind) for kind in SUPERVISOR_ACK_KINDS)


UNDECODABLE = (CodecError, KeyError, TypeError, ValueError)  # what an alarm body that does not decode raises


def _decodes(body: dict[str, Any]) -> bool:
    try:
        AlarmRaised.from_json(body)
    except UNDECODABLE:
        return False
    return True


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def as_time(value: Any) -> float | None:
    """A message's time as a finite float; None for what is none (a number past a double's range included)."""
    if type(value) is float and math.isfinite(value):  # a stored row's: the fold's every row
        return value
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


@dataclass(slots=True)
class TableView:
    """One table as the pit sees it."""

    table_id: str
    status: str = "unknown"
    status_reason: str | None = None
    version: str | None = None
    journal: str | None = None
    seq: int = 0
    ts: float | None = None
    state_seq: int = -1
    snapshot: dict[str, Any] = field(default_factory=dict)
    phase: str | None = None
    round: int = 0
    # The alarms by journal (an alarm's id is its row in its journal), each the core's own ledger as a feed's
    # reader needs it (core/alarm_ledger.py DeliveredAlarms: at least once, in any order).
    alarms: dict[str, DeliveredAlarms] = field(default_factory=dict)
    rounds_seen: dict[str, set[tuple[str, int]]] = field(default_factory=dict)  # by shift, as `money`
    buy_ins_seen: dict[str, set[tuple[str, int]]] = field(default_factory=dict)  # (journal, seq) by shift
    money: dict[str, ShiftMoney] = field(default_factory=dict)  # the last SHIFTS_KEPT shifts
    head: dict[str, Any] | None = None
    floor_alarms: dict[int, dict[str, Any]] = field(default_factory=dict)

    def touch(self, payload: dict[str, Any]) -> None:
        journal = payload.get("journal")
        if isinstance(journal, str) and journal:
            if journal != self.journal and self.journal is not None:  # a new journal: a new sequence
                self.seq, self.state_seq = 0, -1
            self.journal = journal
        self.seq = max(self.seq, _int(payload.get("seq")))
        ts = as_time(payload.get("ts"))
        if ts is not None:
            self.ts = ts if self.ts is None else max(self.ts, ts)

    def journal_of(self, payload: dict[str, Any]) -> str:
        journal = payload.get("journal")
        return journal if isinstance(journal, str) else (self.journal or "")

    def ledger(self, journal: str) -> DeliveredAlarms:
        ledger = self.alarms.get(journal)
        if ledger is None:
            ledger = self.alarms[journal] = DeliveredAlarms(remembered=CLEARED_KEPT)
        return ledger

    @property
    def open_alarms(self) -> list[AlarmRaised]:
        return [alarm for ledger in self.alarms.values() for alarm in ledger.open_alarms]


class FloorView:
    """Every followed table's overview, folded from its messages; see the module docstring."""

    def __init__(self, *, shifts: Shifts | None = None, tables: tuple[str, ...] = ()) -> None:
        self.shifts = shifts or Shifts()
        self._tables: dict[str, TableView] = {}
        for table_id in tables:
            self.table(table_id)

    def table(self, table_id: str) -> TableView:
        view = self._tables.get(table_id)
        if view is None:
            view = self._tables[table_id] = TableView(table_id)
        return view

    def apply(self, topic_name: str, payload: dict[str, Any]) -> None:
        """Fold one message in; a message of no known topic or without a table id is ignored."""
        table_id = payload.get("table_id")
        if topic_name not in TOPICS or not isinstance(table_id, str) or not table_id:
            return
        view = self.table(table_id)
        if topic_name == "floor_alarms":
            self._floor_alarm(view, payload)
            return
        view.touch(payload)
        if topic_name == "status":
            view.status = str(payload.get("status") or "unknown")
            view.status_reason = payload.get("reason") if isinstance(payload.get("reason"), str) else None
            view.version = payload.get("version") if isinstance(payload.get("version"), str) else None
        elif topic_name == "state":
            self._state(view, payload)
        elif topic_name == "head":
            view.head = {key: payload.get(key) for key in ("journal", "seq", "hash", "ts")}
        elif topic_name == "alarms":
            alarm = payload.get("alarm")
            if isinstance(alarm, dict):
                self._alarm(view, view.journal_of(payload), payload.get("type"), alarm)
        elif topic_name == "rounds":
            record = payload.get("round")
            if isinstance(record, dict):
                self._round(view, view.journal_of(payload), record, payload.get("ts"))
        else:
            self._event(view, payload)

    def apply_rows(self, rows: list[dict[str, Any]]) -> None:
        """Fold the ``events`` rows of one message (version 1 payloads, in order) as `apply` folds each, the table's
        newest seq and time moved once for each run of rows of one table and journal rather than once a row."""
        view: TableView | None = None
        run: tuple[Any, Any] = (None, None)
        seq, ts = 0, None
        for row in rows:
            key = (row.get("table_id"), row.get("journal"))
            if key != run:
                if view is not None:
                    view.touch({"journal": run[1], "seq": seq, "ts": ts})
                run, view, seq, ts = key, None, 0, None
                if isinstance(key[0], str) and key[0]:
                    view = self.table(key[0])
            if view is None:
                continue
            seq = max(seq, _int(row.get("seq")))
            row_ts = as_time(row.get("ts"))
            if row_ts is not None:
                ts = row_ts if ts is None else max(ts, row_ts)
            kind = row.get("kind")
            if kind in _EVENT_KINDS:
                if kind == "event":
                    body = row.get("body")
                    if not isinstance(body, dict) or body.get("type") not in _EVENT_TYPES:
                        continue  # `_event` would change nothing (the run's last `touch` moves the journal on)
                if isinstance(run[1], str) and run[1] and run[1] != view.journal:
                    view.touch({"journal": run[1], "seq": seq, "ts": ts})  # a new journal: a new sequence first
                self._event(view, row)
        if view is not None:
            view.touch({"journal": run[1], "seq": seq, "ts": ts})

    def _state(self, view: TableView, payload: dict[str, Any]) -> None:
        snapshot = payload.get("snapshot")
        seq = _int(payload.get("seq"))
        if not isinstance(snapshot, dict) or seq < view.state_seq:
            return
        view.state_seq, view.snapshot = seq, snapshot
        view.phase = snapshot.get("phase") if isinstance(snapshot.get("phase"), str) else view.phase
        view.round = _int(snapshot.get("round"), view.round)
        shown = snapshot.get("alarms")
        if isinstance(shown, list):  # the table's own list of open alarms at `seq` wins over older messages
            bodies = [{**alarm, "seq": _int(alarm.get("seq"), seq)} for alarm in shown if isinstance(alarm, dict)]
            journal = view.journal or ""
            ledger = view.ledger(journal)
            ledger.shown([body for body in bodies if _decodes(body)], seq)
            view.alarms = {journal: ledger}  # the table's whole list: an older journal's alarms are not open now

    def _event(self, view: TableView, payload: dict[str, Any]) -> None:
        kind, body, journal = payload.get("kind"), payload.get("body"), view.journal_of(payload)
        if not isinstance(body, dict):
            return
        if kind == "alarm":
            self._alarm(view, journal, "AlarmRaised", body)
        elif kind == "alarm_cleared":
            self._alarm(view, journal, "AlarmCleared", body)
        elif kind == "alarm_updated":  # a storm's open alarm counting on
            self._alarm(view, journal, "AlarmUpdated", body)
        elif kind == "round":
            self._round(view, journal, body, payload.get("ts"))
        elif kind == "event" and body.get("type") == BUY_IN_EVENT:
            self._buy_in(view, journal, _int(payload.get("seq")), body, payload.get("ts"))
        elif kind == "event" and _int(payload.get("seq")) > view.state_seq:
            if body.get("type") == "PhaseChanged" and isinstance(body.get("phase"), str):
                view.phase = body["phase"]
            if body.get("type") == "RoundStarted":
                view.round = max(view.round, _int(body.get("round")))

    def _alarm(self, view: TableView, journal: str, type_: Any, alarm: dict[str, Any]) -> None:
        """One alarm row's body, folded by the core's own ledger code (a body that does not decode is dropped)."""
        ledger = view.ledger(journal)
        with contextlib.suppress(*UNDECODABLE):
            if type_ == "AlarmCleared":
                ledger.cleared(int(alarm["id"]))
            elif type_ == "AlarmUpdated":  # a storm counting on its open alarm: the alarm as the core counts it
                ledger.updated(alarm)
            else:
                ledger.raised(alarm)

    def _shift_money(self, view: TableView, ts: Any, seen: dict[str, set[tuple[str, int]]], key: tuple[str, int]
                     ) -> ShiftMoney | None:
        """The money of the shift `ts` falls in, for what `key` names the first time it is seen; else None."""
        when = as_time(ts)
        if when is None:
            return None
        shift = self.shifts.name_of(when)
        kept = sorted(view.money)
        if len(kept) >= SHIFTS_KEPT and shift < kept[0]:
            return None  # a shift the pit no longer keeps
        seen_now = seen.setdefault(shift, set())
        if key in seen_now:
            return None
        seen_now.add(key)
        money = view.money.setdefault(shift, ShiftMoney())
        for old in sorted(view.money)[:-SHIFTS_KEPT]:
            del view.money[old]
            view.rounds_seen.pop(old, None)
            view.buy_ins_seen.pop(old, None)
        return money

    def _round(self, view: TableView, journal: str, record: dict[str, Any], ts: Any) -> None:
        money = self._shift_money(view, ts, view.rounds_seen, (journal, _int(record.get("round"))))
        if money is not None:
            money.add_round(record)  # a voided round's stakes go back: no handle, no win

    def _buy_in(self, view: TableView, journal: str, seq: int, body: dict[str, Any], ts: Any) -> None:
        money = self._shift_money(view, ts, view.buy_ins_seen, (journal, seq))
        if money is not None:
            money.add_buy_in(body)

    def _floor_alarm(self, view: TableView, row: dict[str, Any]) -> None:
        alarm_id = _int(row.get("id"))
        if row.get("cleared_at") is not None:
            view.floor_alarms.pop(alarm_id, None)
        else:
            view.floor_alarms[alarm_id] = {key: row.get(key) for key in
                                           ("id", "kind", "journal", "first_seq", "last_seq", "message", "raised_at")}

    def overview(self) -> dict[str, Any]:
        """The pit's view: every table (by id), and the floor's money per shift."""
        tables = [self._table_overview(self._tables[table_id]) for table_id in sorted(self._tables)]
        totals: dict[str, ShiftMoney] = {}
        for view in self._tables.values():
            for shift, money in view.money.items():
                totals.setdefault(shift, ShiftMoney()).add(money)
        return {
            "tables": tables,
            "shifts": [totals[shift].to_dict(shift) for shift in sorted(totals)],
            "open_alarms": sum(len(table["alarms"]) + len(table["floor_alarms"]) for table in tables),
        }

    def _table_overview(self, view: TableView) -> dict[str, Any]:
        snapshot = view.snapshot
        boxes = [{"box": box.get("box"), "owner": box.get("owner"),
                  "stakes_cents": sum(_int(hand.get("stakes_cents")) for hand in box.get("hands") or ()
                                      if isinstance(hand, dict)) or _int(box.get("seated_cents"))}
                 for box in snapshot.get("boxes") or () if isinstance(box, dict)]
        alarms = sorted(({**alarm.to_json(), "supervisor": alarm.kind in _SUPERVISOR} for alarm in view.open_alarms),
                        key=lambda alarm: (not alarm["supervisor"], _int(alarm.get("seq")), _int(alarm.get("id"))))
        return {
            "table_id": view.table_id,
            "status": view.status,
            "status_reason": view.status_reason,
            "version": view.version,
            "journal": view.journal,
            "seq": view.seq,
            "ts": view.ts,
            "phase": view.phase,
            "round": view.round,
            "limits": snapshot.get("limits"),
            "boxes": boxes,
            "shoe": snapshot.get("shoe"),
            "devices": snapshot.get("devices") or {},
            "alarms": alarms,
            "floor_alarms": [view.floor_alarms[key] for key in sorted(view.floor_alarms)],
            "head": view.head,
            "shifts": [view.money[shift].to_dict(shift) for shift in sorted(view.money)],
        }
