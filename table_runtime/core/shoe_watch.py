"""The shoe's rules: which of its events is an alarm, and the count check after it comes back online.

docs/rules.md "Shoe integrity". Pure: `ShoeWatch`
is given each event with what the table knows (`TableCounts`) and the time
`now`, and returns the alarms; it never reads a clock and schedules nothing.

- a door opened during a round, an unreadable card (the dealer enters it),
  a jam, the shoe offline, events the link lost for good (`MissedCards`):
  each an alarm at once;
- the shoe locked its card gate because its resend buffer is full (it holds
  every card the table has not journaled, docs/protocols/shoe.md §3): an alarm
  at once, so the dealer knows why no card comes out (the table is not taking
  them: see the journal's alarm); its unlocking raises nothing (the dealer
  acknowledges the alarm, like every shoe alarm);
- the shoe's own count when it comes back online (HELLO, docs/protocols/shoe.md
  §6): fewer cards than the journal counts is an alarm at once (it went back:
  not the shoe we counted); more, or another shoe than the journal's, is
  judged `grace_seconds` later, because the cards (or the SHOE_LOADED) that
  were in flight are resent right after HELLO. The shell asks `due(counts, now)`
  at `next_due` with its own clock. A later HELLO replaces the pending check
  (its count is the newer truth); the shoe going offline drops it (the next
  HELLO checks again).

Converting cards, shuffles and the cut card into game inputs, and the device
status, are the shell's (runtime/app.py): they are not rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers.ports import (
    BufferGateChanged,
    DoorOpened,
    Jam,
    MissedCards,
    ShoeEvent,
    ShoeOffline,
    ShoeOnline,
    UnreadableCard,
)
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.game.shoe_count import shoe_id_of
from table_runtime.game.table import Table

SHOE_RULE = citations.SHOE_INTEGRITY
SHOE_COUNT_GRACE_S = 2.0  # time for the shoe to resend what was in flight when it went offline


@dataclass(frozen=True, slots=True, kw_only=True)
class TableCounts:
    """What the shoe's rules need to know of the table: its round and the journal's count of the shoe."""

    round_in_play: bool
    loaded: bool  # a shoe was shuffled and loaded
    shoe_id: str  # the journal's shoe ("S3"), "" before the first
    dealt: int  # cards the journal counts out of it

    @classmethod
    def of(cls, table: Table) -> TableCounts:
        shoe = table.shoe
        return cls(round_in_play=table.round_in_play, loaded=shoe.loaded, shoe_id=shoe.shoe_id, dealt=shoe.dealt)


@dataclass(frozen=True, slots=True, kw_only=True)
class CountCheck:
    """A count to judge at `due`: the shoe said it holds `reported` with `cards_drawn` cards out, while the
    journal was counting `journal_shoe`."""

    due: float
    reported: str
    cards_drawn: int
    journal_shoe: str


class ShoeWatch:
    """The shoe's alarms, from its events; holds at most one pending count check."""

    __slots__ = ("grace_seconds", "pending")

    def __init__(self, grace_seconds: float = SHOE_COUNT_GRACE_S) -> None:
        self.grace_seconds = grace_seconds
        self.pending: CountCheck | None = None

    @property
    def next_due(self) -> float | None:
        """When `due` has a check to judge, if any."""
        return self.pending.due if self.pending is not None else None

    def on_event(self, event: ShoeEvent, counts: TableCounts, now: float) -> list[Alarm]:
        """The alarms `event` raises now; a count check may become due at `now + grace_seconds`."""
        if isinstance(event, UnreadableCard):
            return [Alarm(kind=AlarmKind.UNREADABLE_CARD, rule=SHOE_RULE,
                          message=f"card {event.card_number} of the shoe was unreadable: enter it on the display")]
        if isinstance(event, DoorOpened):
            if not counts.round_in_play:
                return []  # between rounds the dealer loads and checks the shoe
            return [Alarm(kind=AlarmKind.SHOE_DOOR_OPEN, rule=SHOE_RULE,
                          message="the shoe door was opened during a round")]
        if isinstance(event, Jam):
            return [Alarm(kind=AlarmKind.SHOE_JAM, rule=SHOE_RULE, message="the shoe reports a jam")]
        if isinstance(event, ShoeOffline):
            self.pending = None
            return [Alarm(kind=AlarmKind.SHOE_OFFLINE, rule=SHOE_RULE,
                          message=f"shoe {event.device} offline: {event.reason}; the round waits")]
        if isinstance(event, MissedCards):
            return [Alarm(kind=AlarmKind.MISSED_CARDS, rule=SHOE_RULE, amounts=(("cards", event.count),),
                          message=f"{event.count} card message(s) from the shoe were lost "
                                  f"(from sequence {event.first_sequence}): check the round")]
        if isinstance(event, BufferGateChanged):
            return [_gate_locked(event)] if event.locked else []
        if isinstance(event, ShoeOnline):
            return self._online(event, counts, now)
        return []

    def due(self, counts: TableCounts, now: float) -> list[Alarm]:
        """The alarm of the pending check if it is due at `now` and the journal still disagrees."""
        check = self.pending
        if check is None or now < check.due:
            return []
        self.pending = None
        if check.reported == check.journal_shoe:  # our shoe, with more cards out than the journal had then
            if counts.shoe_id != check.reported or counts.dealt >= check.cards_drawn:
                return []  # the resent cards arrived (or a new shoe was loaded since)
            return [_miscount(counts, check.cards_drawn)]
        if counts.shoe_id == check.reported:
            return []  # another shoe than the journal's, and its resent SHOE_LOADED arrived
        return [Alarm(
            kind=AlarmKind.SHOE_COUNT_MISMATCH, rule=SHOE_RULE,
            amounts=(("shoe_cards_drawn", check.cards_drawn), ("journal_cards", counts.dealt)),
            message=f"the shoe holds shoe {check.reported} ({check.cards_drawn} cards drawn); the journal counts "
                    f"shoe {counts.shoe_id} ({counts.dealt} cards) and never saw {check.reported} loaded: "
                    "shuffle and load again")]

    def _online(self, event: ShoeOnline, counts: TableCounts, now: float) -> list[Alarm]:
        self.pending = None
        if not counts.loaded:
            return []  # nothing counted yet: the shoe's SHOE_LOADED starts the count
        reported = shoe_id_of(event.shoe_id)
        if reported == counts.shoe_id and event.cards_drawn < counts.dealt:
            return [_miscount(counts, event.cards_drawn)]  # the shoe went back: not the shoe we counted
        if reported == counts.shoe_id and event.cards_drawn == counts.dealt:
            return []
        self.pending = CountCheck(due=now + self.grace_seconds, reported=reported, cards_drawn=event.cards_drawn,
                                  journal_shoe=counts.shoe_id)
        return []


def _gate_locked(event: BufferGateChanged) -> Alarm:
    return Alarm(
        kind=AlarmKind.SHOE_GATE_LOCKED, rule=SHOE_RULE,
        amounts=(("unacknowledged", event.held), ("capacity", event.capacity)),
        message=f"the shoe locked its card gate: it holds {event.held} of {event.capacity} events the table has "
                "not journaled, and lets no card out it could not send again; the gate unlocks by itself once "
                "the table takes them")


def _miscount(counts: TableCounts, cards_drawn: int) -> Alarm:
    return Alarm(
        kind=AlarmKind.SHOE_COUNT_MISMATCH, rule=SHOE_RULE,
        amounts=(("shoe_cards_drawn", cards_drawn), ("journal_cards", counts.dealt)),
        message=f"shoe {counts.shoe_id} says {cards_drawn} cards left it; the journal counts {counts.dealt}: "
                "check the round")
