"""The dealer's work, read from the journal: per dealer and stint at the table, his pace and his errors (issue 34).

A pit manager places his dealers by how fast they deal and how often they err. Every input the table journals
after a login names its author (core/shift.py), and a dealer's stint runs from his `EmployeeLoggedIn` to his
`EmployeeLoggedOut` (a logout, or a push by the next dealer). This reads the rows as the table wrote them (it
decides nothing again: the rounds, the alarms and the authors are the journal's) and counts, per stint:

- `rounds` (a `round` row: closed or voided) and `hands` (the hands of its boxes, splits included), `box_rounds`
  (the boxes in play of each round, summed): a full table deals fewer rounds an hour, so the pace a pit compares is
  `box_rounds_per_hour` as much as `rounds_per_hour`;
- `seconds` on shift, `seconds_in_rounds` (from each round's `RoundStarted` to its record), `shuffle_seconds`
  (from the shoe's end, the record of the round the cut card came out in, to the next shoe's `ShoeShuffled`: the
  shuffle, or the change of shoe) and `idle_seconds` (the rest: bets, pauses, waiting for players);
- `errors` by kind: `refused` (a command the table refused and alarmed, each of a storm's count), `undo` (an
  UNDO taken), `manual_card` (a card entered by hand), `wrong_payout` and `bank_draw` (a card drawn for the bank
  when it must stand, or the bank settled when it must draw), the ones the table caught; and
  `errors_per_100_rounds`.

A round, an alarm or an input belongs to the stint open when it was journaled. Summed over a shift's stints the
rounds and errors are the table's own for the rows after the first login (tests/table_runtime/staff/
test_dealer_work.py). Pure: rows in, figures out; the time is the rows' own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple, Protocol

from table_runtime.game.alarm_kinds import AlarmKind

ERROR_KINDS: Final = ("refused", "undo", "manual_card", "wrong_payout", "bank_draw")
_ALARM_ERRORS: Final = {AlarmKind.COMMAND_REFUSED: "refused", AlarmKind.WRONG_PAYOUT: "wrong_payout",
                        AlarmKind.BANK_MUST_STAND: "bank_draw", AlarmKind.BANK_MUST_DRAW: "bank_draw"}


class Row(Protocol):
    """A journal row as read (journal/rows.py JournalEntry is one)."""

    @property
    def seq(self) -> int: ...

    @property
    def ts(self) -> float: ...

    @property
    def kind(self) -> str: ...

    @property
    def body(self) -> Mapping[str, Any]: ...


@dataclass(slots=True)
class Stint:
    """One dealer's time at the table, from his login (row `since_seq`, at `since`) to his logout (None: on
    shift)."""

    employee: str
    since_seq: int
    since: float
    until: float | None = None
    last_ts: float = 0.0  # the newest row of the stint (its end while it is open)
    rounds: int = 0
    hands: int = 0
    box_rounds: int = 0
    seconds_in_rounds: float = 0.0
    shuffle_seconds: float = 0.0
    errors: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ERROR_KINDS, 0))
    summed_seconds: float | None = None  # several stints summed (`by_dealer`): their time on shift

    @property
    def seconds(self) -> float:
        if self.summed_seconds is not None:
            return self.summed_seconds
        return max(0.0, (self.until if self.until is not None else self.last_ts) - self.since)

    def per_hour(self, count: int) -> float:
        return 0.0 if self.seconds <= 0 else count * 3600.0 / self.seconds

    @property
    def errors_per_100_rounds(self) -> float:
        return 0.0 if not self.rounds else 100.0 * sum(self.errors.values()) / self.rounds

    def view(self) -> dict[str, Any]:
        """The stint as the supervisor's view and the feed's `DealerWork` note give it."""
        return {
            "employee": self.employee, "since_seq": self.since_seq, "since": self.since, "until": self.until,
            "seconds": round(self.seconds, 3), "seconds_in_rounds": round(self.seconds_in_rounds, 3),
            "shuffle_seconds": round(self.shuffle_seconds, 3),
            "idle_seconds": round(max(0.0, self.seconds - self.seconds_in_rounds - self.shuffle_seconds), 3),
            "rounds": self.rounds, "hands": self.hands, "box_rounds": self.box_rounds,
            "rounds_per_hour": round(self.per_hour(self.rounds), 2),
            "hands_per_hour": round(self.per_hour(self.hands), 2),
            "box_rounds_per_hour": round(self.per_hour(self.box_rounds), 2),
            "errors": dict(self.errors), "errors_per_100_rounds": round(self.errors_per_100_rounds, 2),
        }


class _Fields(NamedTuple):
    seq: int
    ts: float
    kind: str
    body: Mapping[str, Any]


# What `WorkTally.add` reads of a row beyond its time: rows of these kinds, and rows of these (kind, type).
_READ_KINDS: Final = frozenset({"round", "alarm", "alarm_updated"})
_READ_TYPES: Final = frozenset({("input", "EmployeeLoggedIn"), ("input", "EmployeeLoggedOut"),
                                ("input", "ShoeShuffled"), ("input", "Undo"), ("event", "RoundStarted"),
                                ("event", "CutCardSeen")})


class WorkTally:
    """The stints of a journal's rows, fed in order (`add`), the open one last."""

    def __init__(self) -> None:
        self.stints: list[Stint] = []
        self._open: Stint | None = None
        self._round_started: float | None = None
        self._cut_card_in_round = False  # the cut card came out in the round in play: the shoe ends with it
        self._shoe_ended: float | None = None  # when the shoe ended and the shuffle began

    @property
    def open(self) -> Stint | None:
        return self._open

    def add(self, row: Row) -> None:
        body, stint = row.body, self._open
        if stint is not None:
            stint.last_ts = max(stint.last_ts, row.ts)
        kind, type_ = row.kind, body.get("type")
        if kind == "input":
            if type_ == "EmployeeLoggedIn":
                self._close(row.ts)
                self._open = Stint(employee=str(body["employee"]), since_seq=row.seq, since=row.ts, last_ts=row.ts)
                self.stints.append(self._open)
            elif type_ == "EmployeeLoggedOut":
                if stint is not None and stint.employee == body.get("employee"):
                    self._close(row.ts)
            elif type_ == "ShoeShuffled":
                if stint is not None and self._shoe_ended is not None:
                    stint.shuffle_seconds += max(0.0, row.ts - max(self._shoe_ended, stint.since))
                self._shoe_ended = None
            elif stint is not None and type_ == "Undo":
                stint.errors["undo"] += 1
            elif stint is not None and type_ == "CardDrawn" and body.get("manual"):
                stint.errors["manual_card"] += 1
        elif kind == "event" and type_ == "RoundStarted":
            self._round_started = row.ts
        elif kind == "event" and type_ == "CutCardSeen":
            if self._round_started is None:
                self._shoe_ended = row.ts  # between rounds: the shoe ends now
            else:
                self._cut_card_in_round = True
        elif kind == "round" and stint is not None:
            boxes = body.get("boxes") or []
            stint.rounds += 1
            stint.box_rounds += len(boxes)
            stint.hands += sum(len(box.get("hands") or []) for box in boxes)
            if self._round_started is not None:
                stint.seconds_in_rounds += max(0.0, row.ts - max(self._round_started, stint.since))
            self._round_started = None
            if self._cut_card_in_round:
                self._shoe_ended, self._cut_card_in_round = row.ts, False
        elif kind in ("alarm", "alarm_updated") and stint is not None:
            error = _ALARM_ERRORS.get(AlarmKind(body["kind"])) if body.get("kind") in _ALARM_ERRORS else None
            if error is not None:
                stint.errors[error] += 1

    def add_fields(self, seq: int, ts: float, kind: str, body: Mapping[str, Any]) -> None:
        """`add` of a row given by its fields (a feed's reader folding every row): a row `add` reads only the time
        of moves the open stint's end, with no row made."""
        type_ = body.get("type")
        if kind in _READ_KINDS or (kind, type_) in _READ_TYPES or (type_ == "CardDrawn" and kind == "input"
                                                                   and body.get("manual")):
            self.add(_Fields(seq, ts, kind, body))
        elif self._open is not None:
            self._open.last_ts = max(self._open.last_ts, ts)

    def _close(self, ts: float) -> None:
        if self._open is not None:
            self._open.until = ts
            self._open.last_ts = ts
            self._open = None


def dealer_work(rows: Iterable[Row]) -> list[Stint]:
    """Every stint of these rows (a journal's, in order), oldest first."""
    tally = WorkTally()
    for row in rows:
        tally.add(row)
    return tally.stints


def by_dealer(stints: Iterable[Stint]) -> dict[str, Stint]:
    """The stints summed per dealer (his time, rounds, hands, errors): what the supervisor's view lists."""
    totals: dict[str, Stint] = {}
    for stint in stints:
        total = totals.get(stint.employee)
        if total is None:
            total = totals[stint.employee] = Stint(employee=stint.employee, since_seq=stint.since_seq,
                                                   since=stint.since, summed_seconds=0.0)
        total.summed_seconds = (total.summed_seconds or 0.0) + stint.seconds
        total.until = stint.until
        total.rounds += stint.rounds
        total.hands += stint.hands
        total.box_rounds += stint.box_rounds
        total.seconds_in_rounds += stint.seconds_in_rounds
        total.shuffle_seconds += stint.shuffle_seconds
        for kind, count in stint.errors.items():
            total.errors[kind] += count
    return totals
