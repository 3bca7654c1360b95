"""The chip watcher of the table core: what the chips on the zones must be, and an alarm when they are not.

`ChipWatch` holds the judged contents of every zone (journaled `ZoneChanged`
inputs) and follows the round after each input the table applied, in the same
step (table_core.py): no listener, no re-entry, nothing inferred from counts.

1. betting: chips come and go freely; a chip the registry refuses is an alarm when it joins a zone;
2. a round started (`BetsLocked` accepted): every zone is locked as it stands;
3. windows: the hand whose turn it is and that may double or split has its box's seated and behind zones
   open for exactly its stake; a DOUBLE or SPLIT *the round accepted* closes them with their verdicts
   (`ActionRecord`, which UNDO takes back); a turn that moves on closes them (chips added: past-posting).
   A bank ace opens the insurance lines for half of each seated stake until the insurance phase ends;
4. any other change of a locked zone is past-posting, except the dead stake of a busted hand taken off
   and the zones paid before the settlement (a blackjack paid at once: its payment is checked);
5. settlement: each zone must end at stake + net payout; the round's CONFIRM checks it (`wrong_payout`).

Pure: the caller passes inputs and the round; nothing here reads a clock or does I/O.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from table_runtime.core import chip_alarms as alarms
from table_runtime.core import hyper_field
from table_runtime.core.inputs import ZoneChanged, ZoneChip
from table_runtime.core.zones_due import dead_stakes, early_payments, expected_zones, paid_early_zones, zone_box
from table_runtime.game.decisions import insurance_cents
from table_runtime.game.events import ActionUndone, Alarm, Event, HandDoubled, HandSplit, RoundClosed
from table_runtime.game.round import CLOSED, INSURANCE, PLAYING, SETTLEMENT, VOIDED, Round


class Phase(enum.StrEnum):
    """Where the chip watch is in the round: bets open, stakes locked, or the payout being checked."""

    BETTING = "betting"
    LOCKED = "locked"
    SETTLING = "settling"

WindowKind = Literal["double", "split", "insurance"]


@dataclass(frozen=True, slots=True)
class Lock:
    """A zone as it was locked: its value and its chips."""

    cents: int
    uids: frozenset[str]


@dataclass(frozen=True, slots=True)
class Window:
    """Chips of exactly `expected_cents` may join the zone (a double or split of `box`, or its insurance)."""

    kind: WindowKind
    box: int
    expected_cents: int


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """What one accepted DOUBLE or SPLIT closed: each zone with its lock before it (UNDO puts them back)."""

    kind: WindowKind
    locks: tuple[tuple[str, Lock], ...]


@dataclass(frozen=True, slots=True)
class Verdict:
    """A window's chips now: `added` (cents) against `expected`."""

    zone: str
    window: Window
    added: int

    @property
    def accepted(self) -> bool:
        return self.added == self.window.expected_cents


def _lock_of(chips: Iterable[ZoneChip]) -> Lock:
    chips = tuple(chips)
    return Lock(sum(chip.cents for chip in chips), frozenset(chip.uid for chip in chips))


@dataclass(slots=True)
class ChipWatch:
    """Zones, locks, windows and settlement of one table; see the module docstring. Compare two with `==`."""

    zones: tuple[str, ...]
    contents: dict[str, tuple[ZoneChip, ...]] = field(default_factory=dict)
    unlisted: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)  # zone -> refused, not listed
    reported: set[str] = field(default_factory=set)  # zones the readers reported since the journal began
    phase: Phase = Phase.BETTING
    round_number: int = 0
    locks: dict[str, Lock] = field(default_factory=dict)
    windows: dict[str, Window] = field(default_factory=dict)
    actions: list[ActionRecord] = field(default_factory=list)
    insurance_opened: bool = False
    expected: dict[str, int] = field(default_factory=dict)
    paid_early: frozenset[str] = frozenset()
    collectable: dict[str, int] = field(default_factory=dict)
    emptied_from: dict[str, int] = field(default_factory=dict)  # paid-early zone -> what it held when emptied

    # -- views ---------------------------------------------------------------------------------
    def total(self, zone: str) -> int:
        return sum(chip.cents for chip in self.contents.get(zone, ()))

    def totals(self) -> dict[str, int]:
        return {zone: self.total(zone) for zone in self.zones}

    def has_stakes(self) -> bool:
        """Chips on any seated zone: a card out of the shoe then means NO MORE BETS."""
        return any(self.total(zone) for zone in self.zones if "." not in zone)

    def differs(self, item: ZoneChanged) -> bool:
        """Whether a report changes anything (a zone read again after a restart, as the journal has it: no)."""
        return (item.zone not in self.reported or self.contents.get(item.zone, ()) != item.chips
                or self.unlisted.get(item.zone, ()) != item.unlisted)

    def verdicts(self, box: int) -> list[Verdict]:
        """The open double/split windows of `box` as the chips stand (what a DOUBLE or SPLIT now would find)."""
        return [self._verdict(zone) for zone, window in self.windows.items()
                if window.box == box and window.kind != "insurance"]

    def insurance_lines(self) -> dict[int, int]:
        """Per box, the chips added on its open insurance line (what CONFIRM places as insurance)."""
        lines = {}
        for zone, window in self.windows.items():
            if window.kind == "insurance":
                added = self._verdict(zone).added
                if added > 0:
                    lines[window.box] = added
        return lines

    def payout_check(self) -> dict[str, dict[str, int]]:
        """While settling, per zone whose end is checked: what is due and what is on it now (an empty zone
        that had no stake and is owed nothing is left out). For a blackjack paid at once: the payment."""
        check: dict[str, dict[str, int]] = {}
        if self.phase is Phase.SETTLING:
            for zone, due in self.expected.items():
                seen = self._seen(zone)
                if due or seen or (zone in self.locks and self.locks[zone].cents):
                    check[zone] = {"due_cents": due, "seen_cents": seen}
        return check

    # -- inputs --------------------------------------------------------------------------------
    def zone_changed(self, item: ZoneChanged) -> list[Alarm]:
        """A zone's judged contents: integrity alarms for refused chips joining it, past-posting on a lock."""
        zone = item.zone
        old = self.contents.get(zone, ())
        self.contents[zone] = item.chips
        old_unlisted = dict(self.unlisted.get(zone, ()))
        self.unlisted[zone] = item.unlisted
        first = zone not in self.reported
        self.reported.add(zone)
        before = {chip.uid: chip for chip in old}
        refused: dict[str, list[ZoneChip]] = {}  # by kind: one alarm counts them
        for chip in item.chips:
            if chip.refused and (chip.uid not in before or not before[chip.uid].refused):
                refused.setdefault(chip.refused, []).append(chip)
        more = {kind: count - old_unlisted.get(kind, 0) for kind, count in item.unlisted
                if count > old_unlisted.get(kind, 0)}  # refused chips not listed: counted by kind
        out = [alarms.refused_chips(zone, refused.get(kind, []), more.get(kind, 0), kind)
               for kind in [*refused, *(kind for kind in more if kind not in refused)]]
        if self.phase is Phase.BETTING:
            return out
        if zone not in self.locks:
            if first:  # a zone never read before the lock (an old journal, a reader that was offline)
                self.locks[zone] = _lock_of(item.chips)
            return out
        if zone in self.paid_early and not zone.endswith(".insurance") and not item.chips and old:
            self.emptied_from[zone] = sum(chip.cents for chip in old)
        if self.phase is Phase.LOCKED and zone not in self.windows and zone not in self.paid_early:
            out += self._past_posting(zone, old, item.chips)
        return out

    def _past_posting(self, zone: str, old: tuple[ZoneChip, ...], new: tuple[ZoneChip, ...]) -> list[Alarm]:
        lock = self.locks[zone]
        uids = frozenset(chip.uid for chip in new)
        if uids == lock.uids:
            return []  # put back exactly as locked
        total = sum(chip.cents for chip in new)
        collectable = self.collectable.get(zone, 0)
        if collectable and uids < lock.uids and total >= lock.cents - collectable:
            return []  # a dead stake collected (no more than it): settlement checks what the zone ends at
        before = {chip.uid for chip in old}
        added = [chip for chip in new if chip.uid not in before]
        removed = [chip for chip in old if chip.uid not in uids]
        if not added and not removed:
            return []
        if hyper_field.is_hyper_zone(zone):  # 55-4 6°: the alarm names the hyper case
            return [hyper_field.past_posting(zone, lock.cents, total, added, removed)]
        return [alarms.past_posting(zone, lock.cents, total, added, removed)]

    def bets_locked(self, round_: Round | None, started: bool) -> list[Alarm]:
        """NO MORE BETS reached the round: what the zones say about it; when a round `started`, lock them."""
        out = []
        boxes = sorted({box for zone in self.zones if (box := zone_box(zone)) is not None})
        for box in boxes:
            if self.total(f"box{box}.behind") and not self.total(f"box{box}"):
                out.append(alarms.behind_without_seated(box, self.total(f"box{box}.behind")))
            if self.total(f"box{box}.insurance"):
                out.append(alarms.chips_out_of_place(box, self.total(f"box{box}.insurance")))
        if started and round_ is not None:
            self._end_round()
            self.phase = Phase.LOCKED
            self.round_number = round_.number
            self.locks = {zone: _lock_of(self.contents.get(zone, ())) for zone in self.reported}
        return out

    def follow(self, round_: Round | None, events: list[Event]) -> list[Alarm]:
        """After an input the round applied: its events say what it accepted; the round says what is open now."""
        if self.phase is Phase.BETTING:
            return []
        out: list[Alarm] = []
        if round_ is None or round_.number != self.round_number or round_.phase in (CLOSED, VOIDED):
            if round_ is not None and self.phase is Phase.SETTLING and any(isinstance(e, RoundClosed) for e in events):
                out += self._verify_payouts()
            self._end_round()
            return out
        for event in events:
            if isinstance(event, (HandDoubled, HandSplit)):
                out += self._action(event)
            elif isinstance(event, ActionUndone) and event.action in ("double", "split") and self.actions:
                for zone, lock in self.actions.pop().locks:
                    self.windows.pop(zone, None)
                    self.locks[zone] = lock  # the dealer hands those chips back: quiet; anything else is not
        if self.phase is Phase.SETTLING and round_.phase != SETTLEMENT:
            self.phase = Phase.LOCKED  # UNDO took the round back out of settlement
            self.expected = {}
        if self.phase is not Phase.LOCKED:
            return out
        self.paid_early = frozenset(paid_early_zones(round_)) & frozenset(self.locks)
        self.collectable = {zone: cents for zone, cents in dead_stakes(round_).items() if cents and zone in self.locks}
        if round_.phase == INSURANCE and not self.insurance_opened:
            self.insurance_opened = True
            for box in round_.boxes:
                half = insurance_cents(box.bet.seated_cents)
                self._open(f"box{box.number}.insurance", Window("insurance", box.number, half))
        elif round_.phase != INSURANCE:
            out += self._close_insurance()
        if round_.phase == PLAYING:
            out += self._follow_turn(round_)
        else:
            out += self._close_play_windows(None)
        if round_.phase == SETTLEMENT:
            self.phase = Phase.SETTLING
            expected = expected_zones(round_)
            expected.update(early_payments(round_))  # a blackjack paid at once: the payment, before it is taken
            expected.update(hyper_field.hyper_due(round_, {zone: lock.cents for zone, lock in self.locks.items()}))
            self.expected = {zone: expected.get(zone, lock.cents) for zone, lock in self.locks.items()}
        return out

    # -- windows -------------------------------------------------------------------------------
    def _open(self, zone: str, window: Window) -> None:
        if zone in self.locks and zone not in self.windows and window.expected_cents > 0:
            self.windows[zone] = window

    def _verdict(self, zone: str) -> Verdict:
        window = self.windows[zone]
        lock = self.locks[zone]
        added = self.total(zone) - lock.cents
        return Verdict(zone, window, added + self._collected(zone, lock))

    def _collected(self, zone: str, lock: Lock) -> int:
        """The locked value gone from `zone` as a dead stake collected (no more than its allowance), else 0."""
        collectable = self.collectable.get(zone, 0)
        chips = self.contents.get(zone, ())
        gone = lock.uids - {chip.uid for chip in chips}
        value = lock.cents - sum(chip.cents for chip in chips if chip.uid in lock.uids)
        return value if collectable and gone and 0 < value <= collectable else 0

    def _close(self, zone: str) -> Verdict:
        verdict = self._verdict(zone)
        del self.windows[zone]
        self.locks[zone] = _lock_of(self.contents.get(zone, ()))
        return verdict

    def _action(self, event: HandDoubled | HandSplit) -> list[Alarm]:
        """A DOUBLE or SPLIT the round accepted closes its box's windows; the seated stake must have been added."""
        kind: WindowKind = "double" if isinstance(event, HandDoubled) else "split"
        zones = [zone for zone, window in self.windows.items()
                 if window.box == event.box and window.kind != "insurance"]
        record = ActionRecord(kind, tuple((zone, self.locks[zone]) for zone in zones))
        out = []
        for zone in zones:
            verdict = self._close(zone)
            if verdict.added < 0:
                out.append(alarms.taken_off(verdict, kind, self.total(zone)))
            elif not zone.endswith(".behind") and not verdict.accepted:
                out.append(alarms.stake_not_added(verdict, kind))
            elif zone.endswith(".behind") and verdict.added and not verdict.accepted:
                out.append(alarms.wrong_window_amount(verdict))
        self.actions.append(record)
        return out

    def _follow_turn(self, round_: Round) -> list[Alarm]:
        hand = round_.current_hand
        allowed = round_.allowed()
        box = None if hand is None or not ({"DOUBLE", "SPLIT"} & set(allowed)) else hand.box
        out = self._close_play_windows(box)
        if hand is not None and box is not None:
            stakes = hand.base_stakes()
            self._open(f"box{box}", Window("double", box, stakes[0].cents))
            self._open(f"box{box}.behind", Window("double", box, sum(stake.cents for stake in stakes[1:])))
        return out

    def _close_play_windows(self, keep_box: int | None) -> list[Alarm]:
        """The turn moved on with no DOUBLE or SPLIT: chips added in the window are past-posting, any amount."""
        out = []
        for zone, window in list(self.windows.items()):
            if window.box != keep_box and window.kind != "insurance":
                verdict = self._close(zone)
                if verdict.added > 0:
                    out.append(alarms.added_without_action(verdict, self.total(zone)))
                elif verdict.added < 0:
                    out.append(alarms.taken_off(verdict, window.kind, self.total(zone)))
        return out

    def _close_insurance(self) -> list[Alarm]:
        """The insurance phase is over: the lines lock as they stand (CONFIRM placed their chips)."""
        out = []
        for zone, window in list(self.windows.items()):
            if window.kind == "insurance":
                verdict = self._close(zone)
                if verdict.added < 0:
                    out.append(alarms.taken_off(verdict, "insurance", self.total(zone)))
        return out

    # -- settlement ----------------------------------------------------------------------------
    def _seen(self, zone: str) -> int:
        """What a zone shows at settlement; a blackjack paid at once and taken away: what the player took."""
        seen = self.total(zone)
        return self.emptied_from.get(zone, 0) if not seen and zone in self.emptied_from else seen

    def _verify_payouts(self) -> list[Alarm]:
        """CONFIRM closed the round: every zone against what the dealer had to pay or collect."""
        out = []
        for zone, due in self.expected.items():
            seen = self._seen(zone)
            if seen != due:
                out.append(alarms.wrong_payout(zone, due, seen, self.locks[zone].cents))
        return out

    def _end_round(self) -> None:
        self.phase = Phase.BETTING
        self.round_number = 0
        self.locks = {}
        self.windows = {}
        self.actions = []
        self.insurance_opened = False
        self.expected = {}
        self.paid_early = frozenset()
        self.collectable = {}
        self.emptied_from = {}
