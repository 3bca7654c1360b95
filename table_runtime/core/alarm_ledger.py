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

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, Final

from table_runtime.core.journal_rows import AlarmCleared, AlarmRaised, AlarmUpdated, JournalRow
from table_runtime.game.alarm_kinds import ADVICE_KINDS, AGGREGATED_KINDS, AlarmKind
from table_runtime.game.events import Alarm

SUPERVISOR_ACK_KINDS: Final[frozenset[AlarmKind]] = frozenset({
    AlarmKind.PAST_POSTING, AlarmKind.WRONG_PAYOUT, AlarmKind.WRONG_WINDOW_AMOUNT,
    AlarmKind.COUNTERFEIT_CHIP, AlarmKind.STOLEN_CHIP, AlarmKind.VOID_CHIP, AlarmKind.OTHER_CASINO_CHIP,
    AlarmKind.TAG_MISMATCH,
    AlarmKind.CARD_OVERCOUNT, AlarmKind.SHOE_COUNT_MISMATCH, AlarmKind.MISSED_CARDS, AlarmKind.SHOE_DOOR_OPEN,
    AlarmKind.SUPERVISOR_PIN_LOCKED, AlarmKind.STAFF_PIN_LOCKED, AlarmKind.REGISTRY_UNREADABLE,
    AlarmKind.JOURNAL_BROKEN,
    AlarmKind.ADVANTAGE_PLAY,
})
"""The kinds only the supervisor clears (with the supervisor PIN on the display, the key on the panel)."""

HALTING_KINDS: Final[frozenset[AlarmKind]] = frozenset({AlarmKind.JOURNAL_BROKEN})
"""While an alarm of these kinds is open, play is stopped (each is also a supervisor's kind)."""

_NOTHING_COUNTED: Final[Mapping[int, AlarmUpdated]] = MappingProxyType({})
SHOWN_MAX: Final = 100  # alarms the snapshot carries at most (the oldest first); `alarms_hidden` counts the rest

AlarmBody = dict[str, Any]  # an alarm as JSON (core/journal_rows.py AlarmRaised.to_json): the display, the feed


def needs_supervisor(kind: str) -> bool:
    """Whether an alarm of this kind is cleared only by the supervisor (not by the dealer alone)."""
    return kind in SUPERVISOR_ACK_KINDS


def is_advice(alarm: Mapping[str, Any]) -> bool:
    """Whether an alarm (as JSON) is advice for the supervisor (ADVICE_KINDS, a rated session's flags): the pit,
    the supervisor's ratings view and the feed carry it; the dealer's screen never shows it."""
    return alarm.get("kind") in ADVICE_KINDS


def for_the_dealer(view: dict[str, Any]) -> dict[str, Any]:
    """`view` (a snapshot, a recalled round: anything whose `alarms` is a list of alarms as JSON) as a dealer's
    screen gets it: without the advice for the supervisor; `view` itself when it holds none."""
    alarms = view.get("alarms") or ()
    if not any(is_advice(alarm) for alarm in alarms):
        return view
    return {**view, "alarms": [alarm for alarm in alarms if not is_advice(alarm)]}


def storm_key(kind: str, box: int | None) -> tuple[str, int | None] | None:
    """What an alarm of `kind` on `box` is counted under, or None if it is always an alarm of its own."""
    return (kind, box) if kind in AGGREGATED_KINDS else None


def alarm_body(alarm: Alarm, seq: int, number: int) -> AlarmBody:
    """The journal body of an alarm raised at `seq` in round `number` (0: between rounds); a refused command's
    also its `reason` code (game/refusals.py). The JSON of `AlarmRaised.of` (core/journal_rows.py)."""
    return AlarmRaised.of(alarm, seq, number).to_json()


def counted_body(open_alarm: Mapping[str, Any] | AlarmRaised, alarm: Alarm, count: int) -> AlarmBody:
    """The `alarm_updated` body of `alarm` counting on `open_alarm` (of its storm), whose count was `count`. The
    JSON of `AlarmUpdated.of` (core/journal_rows.py); its `seq` is the row's, set when it is written."""
    counting = open_alarm if isinstance(open_alarm, AlarmRaised) else AlarmRaised.from_json(open_alarm)
    body = AlarmUpdated.of(counting, alarm, count).to_json()
    del body["seq"]
    return body


def cleared_body(alarm_id: int, by: str) -> AlarmBody:
    """The journal body that clears alarm `alarm_id`, `by` the dealer, the supervisor or the journal."""
    return AlarmCleared(id=alarm_id, by=by).to_json()


def _raised(alarm: AlarmRaised | Mapping[str, Any]) -> AlarmRaised:
    return alarm if isinstance(alarm, AlarmRaised) else AlarmRaised.from_json(alarm)


class AlarmLedger:
    """The open alarms (in the order raised), the count raised per kind, the round's alarms, and the halt.

    It holds `AlarmRaised` values (core/journal_rows.py) and replaces them as they are counted or renumbered,
    never changing one in place; what the display, the feed's state and a checkpoint see is their JSON."""

    def __init__(self) -> None:
        self._active: dict[int, AlarmRaised] = {}
        self._open: dict[tuple[str, int | None], int] = {}  # storm key -> id of the open alarm counting it
        self.counts: dict[str, int] = {}
        self._round: dict[int, AlarmRaised] = {}  # the alarms since the round in play started (its record's), by id
        self.round_started_seq = 0  # the row of the input that started the round in play
        self._halting: dict[int, str] = {}  # the open alarms of a halting kind: id -> why play is stopped

    # -- the fold: one call per journaled row ------------------------------------------------------
    def fold(self, row: JournalRow) -> None:
        """An alarm row (`alarm`, `alarm_updated`, `alarm_cleared`); any other row changes nothing here."""
        if isinstance(row, AlarmRaised):
            self.raised(row)
        elif isinstance(row, AlarmUpdated):
            self.updated(row)
        elif isinstance(row, AlarmCleared):
            self.cleared(row.id)

    def raised(self, row: AlarmRaised | Mapping[str, Any]) -> None:
        """An `alarm` row (typed, or its JSON body)."""
        alarm = dataclasses.replace(_raised(row), origin=None)  # where the row came from is not the alarm's state
        if alarm.id in self._active:  # the same row again (a feed delivers at least once): its count stays
            return
        self._active[alarm.id] = alarm
        self._round[alarm.id] = alarm
        self.counts[alarm.kind] = self.counts.get(alarm.kind, 0) + 1
        key = storm_key(alarm.kind, alarm.box)
        if key is not None:
            self._open.setdefault(key, alarm.id)
        if alarm.kind in HALTING_KINDS:
            self._halting[alarm.id] = f"{alarm.kind}: {alarm.message}"

    def updated(self, row: AlarmUpdated | Mapping[str, Any]) -> None:
        """An `alarm_updated` row (typed, or its JSON body): the open alarm's count, last message and amounts."""
        update = row if isinstance(row, AlarmUpdated) else AlarmUpdated.from_json(row)
        alarm = self._active.get(update.id)
        if alarm is not None and update.count >= alarm.count:  # a count only grows: a lower one is an older row
            self.counts[alarm.kind] = self.counts.get(alarm.kind, 0) + update.count - alarm.count
            self._replace(alarm.counted(update))

    def _replace(self, alarm: AlarmRaised) -> None:
        self._active[alarm.id] = alarm
        if alarm.id in self._round:
            self._round[alarm.id] = alarm

    def cleared(self, alarm_id: int) -> bool:
        """An `alarm_cleared` row: the alarm leaves the banner (it stays in the journal and the round's record)."""
        alarm = self._active.pop(alarm_id, None)
        if alarm is None:
            return False
        key = storm_key(alarm.kind, alarm.box)
        if key is not None and self._open.get(key) == alarm_id:
            del self._open[key]
        self._halting.pop(alarm_id, None)
        return True

    def round_started(self, seq: int) -> None:
        """The input at row `seq` started a round: its record lists the alarms from there on."""
        self._round = {alarm_id: alarm for alarm_id, alarm in self._round.items() if alarm.seq > seq}
        self.round_started_seq = seq

    def renumbered(self, old_id: int, written: AlarmRaised | Mapping[str, Any]) -> None:
        """An alarm held in memory during a journal outage got its journal seq as its id (`written`'s): the same
        alarm."""
        alarm = self._active.pop(old_id, None)
        if alarm is None:
            return
        new_id, new_seq = (written.id, written.seq) if isinstance(written, AlarmRaised) else (
            int(written["id"]), int(written["seq"]))
        alarm = dataclasses.replace(alarm, id=new_id, seq=new_seq)
        self._active[new_id] = alarm
        if old_id in self._round:  # in its place among the round's alarms
            self._round = {new_id if key == old_id else key: alarm if key == old_id else held
                           for key, held in self._round.items()}
        if old_id in self._halting:
            self._halting[new_id] = self._halting.pop(old_id)
        key = storm_key(alarm.kind, alarm.box)
        if key is not None and self._open.get(key) == old_id:
            self._open[key] = new_id

    # -- checkpoints ---------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps (between rounds): the open alarms in order and the counts per kind."""
        return {"alarms": [alarm.to_json() for alarm in self._active.values()], "alarm_counts": dict(self.counts)}

    @classmethod
    def restore(cls, alarms: Iterable[Mapping[str, Any]], counts: Mapping[str, Any]) -> AlarmLedger:
        """The ledger a checkpoint's `state()` describes (KeyError, TypeError, ValueError on a bad one)."""
        ledger = cls()
        for alarm in alarms:
            ledger.raised(alarm)
        ledger._round = {}
        ledger.counts = {str(kind): int(count) for kind, count in counts.items()}
        return ledger

    # -- views ----------------------------------------------------------------------------------------
    def __contains__(self, alarm_id: int) -> bool:
        return alarm_id in self._active

    @property
    def open_alarms(self) -> list[AlarmRaised]:
        """The open alarms, in the order raised."""
        return list(self._active.values())

    @property
    def active(self) -> list[AlarmBody]:
        """The open alarms as JSON (their `alarm` rows' bodies, counted on), in the order raised."""
        return [alarm.to_json() for alarm in self._active.values()]

    @property
    def round_alarms(self) -> list[AlarmRaised]:
        """The alarms since the round in play started, as they are now (counted on; cleared ones too)."""
        return list(self._round.values())

    @property
    def kinds(self) -> dict[int, str]:
        """The open alarms: id -> kind (what the command table needs to decide a clearing)."""
        return {alarm_id: alarm.kind for alarm_id, alarm in self._active.items()}

    def get(self, alarm_id: int) -> AlarmRaised | None:
        """The open alarm with this id, or None (never raised, or cleared already)."""
        return self._active.get(alarm_id)

    def row_for(self, alarm: Alarm, new_id: Callable[[], int], number: int, *,
                counted: Mapping[int, AlarmUpdated] = _NOTHING_COUNTED) -> AlarmRaised | AlarmUpdated:
        """The row `alarm` makes on this ledger (the storms' rule): a count on the open alarm of its storm, else a
        new alarm of id `new_id()` in round `number`. `counted`: the counts on open alarms not folded yet (a
        step's, `AlarmStep`), which the count adds to. Folds nothing: the caller writes or holds the row."""
        counting = self.counting(str(alarm.kind), alarm.box)
        if counting is None:
            return AlarmRaised.of(alarm, new_id(), number)
        before = counted.get(counting.id)
        return AlarmUpdated.of(counting, alarm, counting.count if before is None else before.count, before=before)

    def counting(self, kind: str, box: int | None) -> AlarmRaised | None:
        """The open alarm a new alarm of `kind` on `box` would count on instead of being raised, if any."""
        key = storm_key(kind, box)
        alarm_id = None if key is None else self._open.get(key)
        return None if alarm_id is None else self._active.get(alarm_id)

    def active_of_kind(self, kind: str) -> list[int]:
        return [alarm_id for alarm_id, alarm in self._active.items() if alarm.kind == kind]

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
            shown.append({**alarm.to_json(), "supervisor": needs_supervisor(alarm.kind)})
        return shown

    @property
    def hidden(self) -> int:
        """Open alarms the snapshot leaves out (over SHOWN_MAX)."""
        return max(0, len(self._active) - SHOWN_MAX)

    @staticmethod
    def as_recorded(alarm: AlarmRaised | Mapping[str, Any]) -> AlarmBody:
        """An alarm of the round as its RoundRecord lists it (its count if over 1)."""
        return _raised(alarm).recorded()

    @property
    def recorded(self) -> list[AlarmBody]:
        """The round's alarms as its RoundRecord lists them."""
        return [alarm.recorded() for alarm in self._round.values()]


class AlarmStep:
    """The alarm rows of one journaled step, written into the step's `rows` in order. A new alarm is folded into
    the ledger at once (a later alarm of its storm in the same step counts on it); the counts on open alarms
    are written as one `alarm_updated` row per alarm and folded at `flush` (before a round record, and at the
    end of the step), so the ledger always holds what the rows written so far replay to."""

    def __init__(self, ledger: AlarmLedger, rows: list[JournalRow]) -> None:
        self.ledger = ledger
        self.rows = rows
        self.updates: dict[int, AlarmUpdated] = {}  # open alarm id -> its count in this step, not written yet

    def add(self, alarm: Alarm, seq: int, number: int) -> int:
        """Journal `alarm`, the step's last seq being `seq`; returns the last seq after it."""
        row = self.ledger.row_for(alarm, lambda: seq + 1, number, counted=self.updates)
        if isinstance(row, AlarmUpdated):  # counted on: one row for the step, written at `flush`
            self.updates[row.id] = row
            return seq
        self.rows.append(row)
        self.ledger.raised(row)
        return seq + 1

    def flush(self, seq: int) -> int:
        """Write the step's AlarmUpdated rows after row `seq` and fold them; returns the last seq."""
        for update in self.updates.values():
            seq += 1
            row = dataclasses.replace(update, seq=seq)
            self.rows.append(row)
            self.ledger.updated(row)
        self.updates = {}
        return seq


class DeliveredAlarms:
    """The alarm ledger of a reader that gets a table's alarm rows at least once and in any order (the pit's view
    of the feed, casino_floor/tables_view.py): the table's own `AlarmLedger` raises, counts and clears; this adds
    only what such a delivery needs. A clear is remembered (the last `remembered`), so a raise that arrives after
    it stays cleared; a count that arrives before its raise waits for it; a row seen twice, or an older count,
    changes nothing (the ledger's own rules). A body that does not decode raises what its codec raises
    (`CodecError`, `KeyError`, `TypeError`, `ValueError`): the caller drops it."""

    def __init__(self, *, remembered: int = 4096) -> None:
        self.ledger = AlarmLedger()
        self.remembered = remembered
        self._cleared: dict[int, None] = {}  # the last `remembered` cleared ids, oldest first
        self._ahead: dict[int, AlarmUpdated] = {}  # counts whose raise has not arrived yet, by alarm id

    def raised(self, body: Mapping[str, Any]) -> None:
        """An `alarm` row's body."""
        alarm = AlarmRaised.from_json(body)
        if alarm.id in self._cleared:
            return
        self.ledger.raised(alarm)
        ahead = self._ahead.pop(alarm.id, None)
        if ahead is not None:
            self.ledger.updated(ahead)

    def updated(self, body: Mapping[str, Any]) -> None:
        """An `alarm_updated` row's body."""
        update = AlarmUpdated.from_json(body)
        if update.id in self._cleared:
            return
        if update.id in self.ledger:
            self.ledger.updated(update)
            return
        before = self._ahead.get(update.id)
        if before is None or update.count >= before.count:
            self._ahead[update.id] = update
            _bound(self._ahead, self.remembered)

    def cleared(self, alarm_id: int) -> None:
        """An `alarm_cleared` row's alarm id."""
        self._cleared[alarm_id] = None
        _bound(self._cleared, self.remembered)
        self._ahead.pop(alarm_id, None)
        self.ledger.cleared(alarm_id)

    def shown(self, alarms: Iterable[Mapping[str, Any]], seq: int) -> None:
        """The table's own list of its open alarms after row `seq` (its state): it replaces every open alarm raised
        at or before that row; one raised after it stays, a cleared one stays cleared."""
        later = [alarm for alarm in self.ledger.open_alarms if alarm.seq > seq]
        ledger = AlarmLedger()
        for alarm in [*(AlarmRaised.from_json(body) for body in alarms), *later]:
            if alarm.id not in self._cleared:
                ledger.raised(alarm)
        self.ledger = ledger

    @property
    def open_alarms(self) -> list[AlarmRaised]:
        """The open alarms, in the order raised (as the ledger holds them)."""
        return self.ledger.open_alarms


def _bound(remembered: dict[int, Any], most: int) -> None:
    while len(remembered) > most:
        del remembered[next(iter(remembered))]
