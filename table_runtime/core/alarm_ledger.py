"""The alarm ledger: every rule of an alarm's life, and the halt, in one place of the core.

An alarm is raised by an `alarm` row (its id is that row's seq, so the feed, the display and recall all
name it the same way), counted on by `alarm_updated` rows, and cleared by an `alarm_cleared` row. The
ledger holds what those rows make: the open alarms in the order raised, how many of each kind were raised,
the alarms of the round in play (its `RoundRecord` lists them), and whether play is stopped.

- **Storms.** A kind that comes in storms (game/alarm_kinds.py AGGREGATED_KINDS) has at most one open
  alarm per box: the next one of that kind and box adds to its `count` and replaces its message and amounts
  (one `alarm_updated` row per step, whatever it counted), so ten thousand junk tags journal one alarm.
- **Who clears.** The alarms that exist to catch the dealer, or a device or chip the dealer could exploit,
  are cleared only by the supervisor (SUPERVISOR_ACK_KINDS; docs/alarms.md marks the same kinds).
- **The halt.** While an alarm of a HALTING_KINDS kind is open, play is stopped: the core consults
  `halted` on every input (core/table_core.py) and the command table refuses every command but the
  clearing (core/commands.py). Only the supervisor's clearing of that alarm resumes play.

The same fold serves the live table and every replay (core/record.py): the live step plans its rows with
`AlarmStep` and folds each into the ledger as it is final, a replay folds the journaled rows; both call
`raised`, `updated`, `cleared` and `round_started`, so the two cannot disagree. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from table_runtime.core.row_kinds import RowKind
from table_runtime.game.alarm_kinds import AGGREGATED_KINDS, AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import SCHEMA_VERSION

SUPERVISOR_ACK_KINDS: Final[frozenset[AlarmKind]] = frozenset({
    AlarmKind.PAST_POSTING, AlarmKind.WRONG_PAYOUT, AlarmKind.WRONG_WINDOW_AMOUNT,
    AlarmKind.COUNTERFEIT_CHIP, AlarmKind.STOLEN_CHIP, AlarmKind.VOID_CHIP, AlarmKind.OTHER_CASINO_CHIP,
    AlarmKind.TAG_MISMATCH,
    AlarmKind.CARD_OVERCOUNT, AlarmKind.SHOE_COUNT_MISMATCH, AlarmKind.MISSED_CARDS, AlarmKind.SHOE_DOOR_OPEN,
    AlarmKind.SUPERVISOR_PIN_LOCKED, AlarmKind.REGISTRY_UNREADABLE, AlarmKind.JOURNAL_BROKEN,
})
"""The kinds only the supervisor clears (with the supervisor PIN on the display, the key on the panel)."""

HALTING_KINDS: Final[frozenset[AlarmKind]] = frozenset({AlarmKind.JOURNAL_BROKEN})
"""While an alarm of these kinds is open, play is stopped (each is also a supervisor's kind)."""

SHOWN_MAX: Final = 100  # alarms the snapshot carries at most (the oldest first); `alarms_hidden` counts the rest

AlarmBody = dict[str, Any]
Row = tuple[str, AlarmBody]


def needs_supervisor(kind: str) -> bool:
    """Whether an alarm of this kind is cleared only by the supervisor (not by the dealer alone)."""
    return kind in SUPERVISOR_ACK_KINDS


def storm_key(kind: str, box: int | None) -> tuple[str, int | None] | None:
    """What an alarm of `kind` on `box` is counted under, or None if it is always an alarm of its own."""
    return (kind, box) if kind in AGGREGATED_KINDS else None


def alarm_body(alarm: Alarm, seq: int, number: int) -> AlarmBody:
    """The journal body of an alarm raised at `seq` in round `number` (0: between rounds); a refused command's
    also its `reason` code (game/refusals.py)."""
    body = {"type": "Alarm", "schema_version": SCHEMA_VERSION, "id": seq, "seq": seq, "kind": str(alarm.kind),
            "message": alarm.message, "rule": alarm.rule, "box": alarm.box, "amounts": dict(alarm.amounts),
            "round": number, "acknowledged": False, "count": alarm.count}
    if alarm.reason:
        body["reason"] = str(alarm.reason)
    return body


def counted_body(open_alarm: Mapping[str, Any], alarm: Alarm, count: int) -> AlarmBody:
    """The `alarm_updated` body of `alarm` counting on `open_alarm` (of its storm), whose count was `count`: the new
    count, the last message and amounts (and a refused command's reason). Its `seq` is the row's, set when it is
    written."""
    body = {"type": "AlarmUpdated", "schema_version": SCHEMA_VERSION, "id": int(open_alarm["id"]),
            "kind": open_alarm["kind"], "box": open_alarm["box"], "count": count + alarm.count,
            "message": alarm.message, "amounts": dict(alarm.amounts)}
    if alarm.reason:
        body["reason"] = str(alarm.reason)
    return body


def cleared_body(alarm_id: int, by: str) -> AlarmBody:
    """The journal body that clears alarm `alarm_id`, `by` the dealer, the supervisor or the journal."""
    return {"type": "AlarmCleared", "schema_version": SCHEMA_VERSION, "id": alarm_id, "by": by}


class AlarmLedger:
    """The open alarms (in the order raised), the count raised per kind, the round's alarms, and the halt."""

    def __init__(self) -> None:
        self._active: dict[int, AlarmBody] = {}
        self._open: dict[tuple[str, int | None], int] = {}  # storm key -> id of the open alarm counting it
        self.counts: dict[str, int] = {}
        self.round_alarms: list[AlarmBody] = []  # the alarms since the round in play started (its record's)
        self.round_started_seq = 0  # the row of the input that started the round in play
        self._halting: dict[int, str] = {}  # the open alarms of a halting kind: id -> why play is stopped

    # -- the fold: one call per journaled row ------------------------------------------------------
    def raised(self, body: Mapping[str, Any]) -> None:
        """An `alarm` row."""
        alarm = dict(body)  # the ledger's own copy: a row is never changed after it is planned
        self._active[int(alarm["id"])] = alarm
        self.round_alarms.append(alarm)
        self.counts[alarm["kind"]] = self.counts.get(alarm["kind"], 0) + 1
        key = storm_key(str(alarm["kind"]), alarm.get("box"))
        if key is not None:
            self._open.setdefault(key, int(alarm["id"]))
        if alarm["kind"] in HALTING_KINDS:
            self._halting[int(alarm["id"])] = f"{alarm['kind']}: {alarm['message']}"

    def updated(self, update: Mapping[str, Any]) -> None:
        """An `alarm_updated` row: the open alarm's count, last message and amounts."""
        alarm = self._active.get(int(update["id"]))
        if alarm is not None:
            added = int(update["count"]) - int(alarm.get("count", 1))
            self.counts[alarm["kind"]] = self.counts.get(alarm["kind"], 0) + added
            alarm.update(count=update["count"], message=update["message"], amounts=dict(update["amounts"]))
            if "reason" in update:
                alarm["reason"] = update["reason"]

    def cleared(self, alarm_id: int) -> bool:
        """An `alarm_cleared` row: the alarm leaves the banner (it stays in the journal and the round's record)."""
        alarm = self._active.pop(alarm_id, None)
        if alarm is None:
            return False
        key = storm_key(str(alarm["kind"]), alarm.get("box"))
        if key is not None and self._open.get(key) == alarm_id:
            del self._open[key]
        self._halting.pop(alarm_id, None)
        return True

    def round_started(self, seq: int) -> None:
        """The input at row `seq` started a round: its record lists the alarms from there on."""
        self.round_alarms = [alarm for alarm in self.round_alarms if int(alarm["seq"]) > seq]
        self.round_started_seq = seq

    def renumbered(self, old_id: int, body: Mapping[str, Any]) -> None:
        """An alarm held in memory during a journal outage got its journal seq as its id: the same alarm."""
        alarm = self._active.pop(old_id, None)
        if alarm is None:
            return
        alarm.update(id=body["id"], seq=body["seq"])
        self._active[int(alarm["id"])] = alarm
        if old_id in self._halting:
            self._halting[int(alarm["id"])] = self._halting.pop(old_id)
        key = storm_key(str(alarm["kind"]), alarm.get("box"))
        if key is not None and self._open.get(key) == old_id:
            self._open[key] = int(alarm["id"])

    # -- checkpoints ---------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps (between rounds): the open alarms in order and the counts per kind."""
        return {"alarms": [dict(alarm) for alarm in self._active.values()], "alarm_counts": dict(self.counts)}

    @classmethod
    def restore(cls, alarms: Iterable[Mapping[str, Any]], counts: Mapping[str, Any]) -> AlarmLedger:
        """The ledger a checkpoint's `state()` describes (KeyError, TypeError, ValueError on a bad one)."""
        ledger = cls()
        for alarm in alarms:
            ledger.raised(alarm)
        ledger.round_alarms = []
        ledger.counts = {str(kind): int(count) for kind, count in counts.items()}
        return ledger

    # -- views ----------------------------------------------------------------------------------------
    def __contains__(self, alarm_id: int) -> bool:
        return alarm_id in self._active

    @property
    def active(self) -> list[AlarmBody]:
        return list(self._active.values())

    @property
    def kinds(self) -> dict[int, str]:
        """The open alarms: id -> kind (what the command table needs to decide a clearing)."""
        return {alarm_id: str(alarm["kind"]) for alarm_id, alarm in self._active.items()}

    def get(self, alarm_id: int) -> AlarmBody | None:
        """The open alarm with this id, or None (never raised, or cleared already)."""
        return self._active.get(alarm_id)

    def counting(self, kind: str, box: int | None) -> AlarmBody | None:
        """The open alarm a new alarm of `kind` on `box` would count on instead of being raised, if any."""
        key = storm_key(kind, box)
        alarm_id = None if key is None else self._open.get(key)
        return None if alarm_id is None else self._active.get(alarm_id)

    def active_of_kind(self, kind: str) -> list[int]:
        return [alarm_id for alarm_id, alarm in self._active.items() if alarm["kind"] == kind]

    @property
    def halted(self) -> str:
        """Why play is stopped (the first open halting alarm's message), or "" while it is not (asked by every
        input: kept as the alarms come and go, not searched for)."""
        return next(iter(self._halting.values()), "")

    @property
    def shown(self) -> list[AlarmBody]:
        """The open alarms as the display shows them (at most SHOWN_MAX, the oldest): each also says whether it
        needs the supervisor."""
        shown: list[AlarmBody] = []
        for alarm in self._active.values():
            if len(shown) == SHOWN_MAX:
                break
            shown.append({**alarm, "supervisor": needs_supervisor(str(alarm["kind"]))})
        return shown

    @property
    def hidden(self) -> int:
        """Open alarms the snapshot leaves out (over SHOWN_MAX)."""
        return max(0, len(self._active) - SHOWN_MAX)

    @staticmethod
    def as_recorded(alarm: Mapping[str, Any]) -> AlarmBody:
        """An alarm of the round as its RoundRecord lists it (its count if over 1)."""
        record = {key: alarm[key] for key in ("id", "kind", "box", "message", "rule", "amounts")}
        if int(alarm.get("count", 1)) > 1:
            record["count"] = alarm["count"]
        return record

    @property
    def recorded(self) -> list[AlarmBody]:
        """The round's alarms as its RoundRecord lists them."""
        return [self.as_recorded(alarm) for alarm in self.round_alarms]


class AlarmStep:
    """The alarm rows of one journaled step, written into the step's `rows` in order. A new alarm is folded into
    the ledger at once (a later alarm of its storm in the same step counts on it); the counts on open alarms
    are written as one `alarm_updated` row per alarm and folded at `flush` (before a round record, and at the
    end of the step), so the ledger always holds what the rows written so far replay to."""

    def __init__(self, ledger: AlarmLedger, rows: list[tuple[str, dict[str, Any]]]) -> None:
        self.ledger = ledger
        self.rows = rows
        self.updates: dict[int, AlarmBody] = {}  # open alarm id -> its AlarmUpdated body, not written yet

    def add(self, alarm: Alarm, seq: int, number: int) -> int:
        """Journal `alarm`, the step's last seq being `seq`; returns the last seq after it."""
        counting = self.ledger.counting(str(alarm.kind), alarm.box)
        if counting is not None:
            alarm_id = int(counting["id"])
            before = self.updates.get(alarm_id)  # counted on already in this step: one row for the step
            count = int(counting.get("count", 1)) if before is None else int(before["count"])
            self.updates[alarm_id] = {**(before or {}), **counted_body(counting, alarm, count)}
            return seq
        body = alarm_body(alarm, seq + 1, number)
        self.rows.append((RowKind.ALARM, body))
        self.ledger.raised(body)
        return seq + 1

    def flush(self, seq: int) -> int:
        """Write the step's AlarmUpdated rows after row `seq` and fold them; returns the last seq."""
        for update in self.updates.values():
            seq += 1
            update["seq"] = seq
            self.rows.append((RowKind.ALARM_UPDATED, update))
            self.ledger.updated(update)
        self.updates = {}
        return seq
