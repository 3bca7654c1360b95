"""The bet watcher: what the chips on the table must be, and alarms when they are not.

`ChipWatcher` owns the zones of one table (a `ZoneTracker` valuing chips by the
registry) and follows the round through plain values the round engine gives:

1. betting: chips come and go freely; every chip joining a zone is checked
   against the registry (counterfeit, void, stolen, other casino, tag mismatch);
2. `lock_bets(limits)` at NO MORE BETS: each zone's contents are locked; the
   stakes per box (seated + behind) come back with the limit alarms;
3. `open_window(zone, kind, expected_cents)` / `close_window(zone)`: a double,
   split or insurance may add exactly `expected_cents` to that zone (or nothing:
   declined); any other change of a locked zone is **past-posting**;
4. `begin_settlement(expected_final)` then `verify_payouts()`: each zone must end
   at its expected amount (0 collected, stake untouched for a push, stake +
   payout paid); a wrong zone is an alarm naming the difference. Meanwhile
   `expected_final` says what each zone must end at, for a live check as the dealer pays;
5. `end_round()`: back to betting.

Pure: the caller passes scans with their time; nothing here reads a clock or
does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from firmware_bridge.rfid import Tag
from table_runtime.chips.integrity import check_chip, chip_value
from table_runtime.chips.registry import RegisteredChip
from table_runtime.chips.zones import DebounceRule, ZoneChanged, ZoneTracker
from table_runtime.errors import TableError
from table_runtime.game.rules import TableLimits

AlarmKind = Literal[
    "past_posting", "wrong_window_amount", "wrong_payout", "bet_under_minimum", "bet_over_maximum",
    "behind_without_seated", "chips_out_of_place", "counterfeit_chip", "void_chip", "stolen_chip",
    "other_casino_chip", "tag_mismatch", "reader_offline", "antenna_fault",
]
WindowKind = Literal["double", "split", "insurance"]
Phase = Literal["betting", "locked", "settling"]

RULE_PAST_POSTING = ("TABLE.md past-posting: no chip is added to or removed from a locked zone "
                     "outside a double, split or insurance window")
RULE_WINDOW = ("RULES.md Player decisions: a double or a split adds a stake equal to the original (000:30, 000:35); "
               "insurance is half the original bet (000:26)")
RULE_PAYOUT = ("TABLE.md settlement: lost stakes collected (zone empty), winners' zones equal stake + payout, "
               "pushes unchanged")
RULE_LIMITS = ("RULES.md Equipment and seats: the total on one box (seated + behind) is within the posted "
               "minimum and maximum (000:3, 002:31)")
RULE_BEHIND = "RULES.md Equipment and seats: a player behind bets on a seated player's box (000:3)"
RULE_INSURANCE_LINE = "TABLE.md: the insurance line holds chips only inside the insurance window"
RULE_READER = "TABLE.md shoe integrity: shoe or reader disconnected"
RULE_ANTENNA = "TABLE.md: every zone is read by its antenna several times a second"
ANTENNA_TROUBLE = {
    "OPEN": "antenna open (cable cut?)",
    "SHORT": "antenna short-circuited",
    "TOO_MANY_TAGS": "more chips than the reader reports: the zone is not fully read",
    "RF_NOISE": "radio noise: the zone is not read",
}


class WatcherUseError(TableError, RuntimeError):
    """The watcher was asked something out of order (a window before the lock, ...)."""


def zone_box(zone: str) -> int | None:
    """`box3.behind` -> 3; None for a zone that is not a box's."""
    head = zone.split(".", 1)[0]
    number = head.removeprefix("box")
    return int(number) if head.startswith("box") and number.isdigit() else None


def euros(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ChipAlarm:
    """Something the chips say is wrong: shown, journaled, published. Amounts in cents."""

    kind: AlarmKind
    zone: str | None
    box: int | None
    uid: str | None = None
    expected_cents: int | None = None
    seen_cents: int | None = None
    message: str
    rule: str

    @property
    def amounts(self) -> tuple[tuple[str, int], ...]:
        """The amounts by name, as `table_runtime.game.events.Alarm` holds them."""
        named = (("expected_cents", self.expected_cents), ("seen_cents", self.seen_cents))
        return tuple((name, value) for name, value in named if value is not None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Stake:
    """A box's locked stake."""

    box: int
    seated_cents: int
    behind_cents: int

    @property
    def total_cents(self) -> int:
        return self.seated_cents + self.behind_cents


@dataclass(frozen=True, slots=True, kw_only=True)
class BetsSnapshot:
    """What NO MORE BETS locked: stakes of boxes with chips, every zone's total, and the alarms."""

    stakes: tuple[Stake, ...]
    zones: Mapping[str, int]
    alarms: tuple[ChipAlarm, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class WindowClosed:
    """A double/split/insurance window closed: `accepted` when exactly the expected amount was added."""

    zone: str
    box: int | None
    kind: WindowKind
    expected_cents: int
    added_cents: int
    accepted: bool


PayoutOutcome = Literal["collected", "push", "paid", "part collected"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PayoutVerified:
    """A zone ended at its expected amount."""

    zone: str
    box: int | None
    outcome: PayoutOutcome
    stake_cents: int
    expected_cents: int


@dataclass(slots=True)
class _Lock:
    cents: int
    uids: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Window:
    kind: WindowKind
    expected_cents: int


class ChipWatcher:
    """Zones, locked stakes, windows and settlement of one table; see the module docstring."""

    def __init__(self, zones: Iterable[str], *, registry: Mapping[str, RegisteredChip], casino_id: int,
                 rule: DebounceRule | None = None) -> None:
        self._registry = registry
        self.casino_id = casino_id
        self.tracker = ZoneTracker(zones, value_of=self.value_of, rule=rule)
        self._phase: Phase = "betting"
        self._locks: dict[str, _Lock] = {}
        self._windows: dict[str, _Window] = {}
        self._expected: dict[str, int] = {}
        self._before_action: dict[str, list[_Lock]] = {}  # per zone, its lock before each DOUBLE/SPLIT, in order
        self._paid_early: frozenset[str] = frozenset()  # zones whose stakes were paid before the bank drew
        self._collectable: dict[str, int] = {}  # zone -> cents of dead stakes the dealer may take off now
        self._antennas: dict[str, str] = {}  # zone -> last antenna status name that was not OK

    # -- state ---------------------------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def zones(self) -> tuple[str, ...]:
        return self.tracker.zones

    def total_cents(self, zone: str) -> int:
        return self.tracker.total_cents(zone)

    def locked_cents(self, zone: str) -> int | None:
        lock = self._locks.get(zone)
        return None if lock is None else lock.cents

    @property
    def expected_final(self) -> Mapping[str, int]:
        """While settling, the amount each zone must end at (every locked zone); empty otherwise.
        A copy: the display reads it as the dealer pays, before CONFIRM checks it."""
        return dict(self._expected)

    def value_of(self, tag: Tag) -> int:
        return chip_value(tag, self._registry, self.casino_id)

    @property
    def registry(self) -> Mapping[str, RegisteredChip]:
        """The registry snapshot the chips are checked against."""
        return self._registry

    def use_registry(self, registry: Mapping[str, RegisteredChip]) -> list[ChipAlarm]:
        """A new registry snapshot (a chip marked stolen mid-shift): revalue every zone. The chips on the
        table that the new registry refuses and the old one accepted are alarms now (not only when they move)."""
        accepted = {zone: [tag for tag in self.tracker.chips(zone)
                           if check_chip(tag, self._registry, self.casino_id) is None] for zone in self.zones}
        self._registry = registry
        self.tracker.revalue()
        return [alarm for zone, tags in accepted.items() for alarm in self._refused(zone, tags)]

    # -- readings ------------------------------------------------------------------------------
    def scan(self, readings: Mapping[str, Iterable[Tag]], at: float,
             incomplete: Iterable[str] = ()) -> list[ZoneChanged | ChipAlarm]:
        """One scan of some zones: the zone changes it made stable and the alarms they raise."""
        out: list[ZoneChanged | ChipAlarm] = []
        for change in self.tracker.observe_scan(readings, at, incomplete):
            out.append(change)
            out += self._integrity(change)
            out += self._past_posting(change)
        return out

    def reader_offline(self, reader: str, zones: Iterable[str], reason: str) -> ChipAlarm:
        unread = tuple(zones)
        self.tracker.unread(unread)
        names = ", ".join(unread)
        return ChipAlarm(kind="reader_offline", zone=None, box=None,
                         message=f"chip reader {reader} offline ({reason}); zones not read: {names}",
                         rule=RULE_READER)

    def antenna_statuses(self, statuses: Mapping[str, str]) -> list[ChipAlarm]:
        """Antenna status names per zone (`OK`, `OPEN`, `SHORT`, `TOO_MANY_TAGS`, `RF_NOISE`, section 3.6 of
        docs/protocols/rfid.md): an alarm each time a zone's antenna turns faulty or changes fault."""
        alarms = []
        for zone, status in statuses.items():
            if status == "OK":
                self._antennas.pop(zone, None)
                continue
            if self._antennas.get(zone) == status:
                continue
            self._antennas[zone] = status
            trouble = ANTENNA_TROUBLE.get(status, status)
            alarms.append(ChipAlarm(kind="antenna_fault", zone=zone, box=zone_box(zone), rule=RULE_ANTENNA,
                                    message=f"{zone}: {trouble}; its chips keep their last known state"))
        return alarms

    def _integrity(self, change: ZoneChanged) -> list[ChipAlarm]:
        return self._refused(change.zone, change.added + change.updated)

    def _refused(self, zone: str, tags: Iterable[Tag]) -> list[ChipAlarm]:
        """An alarm for each of `tags` (on `zone`) that the registry refuses."""
        alarms = []
        for tag in tags:
            problem = check_chip(tag, self._registry, self.casino_id)
            if problem is not None:
                words = problem.kind.replace("_", " ")
                alarms.append(ChipAlarm(
                    kind=problem.kind, zone=zone, box=zone_box(zone), uid=tag.uid,
                    expected_cents=problem.expected_cents, seen_cents=problem.seen_cents,
                    message=f"{zone}: {words} {tag.uid}: {problem.detail}", rule=problem.rule))
        return alarms

    def _past_posting(self, change: ZoneChanged) -> list[ChipAlarm]:
        lock = self._locks.get(change.zone)
        if self._phase != "locked" or lock is None or change.zone in self._windows or change.zone in self._paid_early:
            return []
        uids = frozenset(tag.uid for tag in change.chips)
        if uids == lock.uids:
            return []  # put back exactly as locked
        collectable = self._collectable.get(change.zone, 0)
        if collectable and uids < lock.uids and change.total_cents >= lock.cents - collectable:
            return []  # a dead stake collected (no more than it): settlement checks what the zone ends at
        moved = [("added", tag) for tag in change.added] + [("removed", tag) for tag in change.removed]
        if not moved:
            return []
        listed = ", ".join(f"{verb} {tag.uid} ({euros(self.value_of(tag))})" for verb, tag in moved)
        return [ChipAlarm(
            kind="past_posting", zone=change.zone, box=zone_box(change.zone), uid=moved[0][1].uid,
            expected_cents=lock.cents, seen_cents=change.total_cents,
            message=(f"{change.zone}: chips changed on a locked zone outside any window: {listed}; "
                     f"locked {euros(lock.cents)}, now {euros(change.total_cents)}"),
            rule=RULE_PAST_POSTING)]

    # -- the round -----------------------------------------------------------------------------
    def lock_bets(self, limits: TableLimits) -> BetsSnapshot:
        """NO MORE BETS: lock every zone as it stands; the stakes and the limit alarms."""
        if self._phase != "betting":
            raise WatcherUseError(f"bets are already locked (phase {self._phase})")
        self._phase = "locked"
        self._locks = {zone: _Lock(self.total_cents(zone), frozenset(tag.uid for tag in self.tracker.chips(zone)))
                       for zone in self.zones}
        totals = {zone: lock.cents for zone, lock in self._locks.items()}
        boxes = sorted({box for zone in self.zones if (box := zone_box(zone)) is not None})
        stakes: list[Stake] = []
        alarms: list[ChipAlarm] = []
        for box in boxes:
            stake = Stake(box=box, seated_cents=totals.get(f"box{box}", 0),
                          behind_cents=totals.get(f"box{box}.behind", 0))
            if stake.total_cents:
                stakes.append(stake)
                alarms += self._limit_alarms(stake, limits)
            insurance = totals.get(f"box{box}.insurance", 0)
            if insurance:
                alarms.append(ChipAlarm(
                    kind="chips_out_of_place", zone=f"box{box}.insurance", box=box, expected_cents=0,
                    seen_cents=insurance, rule=RULE_INSURANCE_LINE,
                    message=f"box{box}.insurance: {euros(insurance)} on the insurance line at no more bets"))
        return BetsSnapshot(stakes=tuple(stakes), zones=totals, alarms=tuple(alarms))

    @staticmethod
    def _limit_alarms(stake: Stake, limits: TableLimits) -> list[ChipAlarm]:
        box, total = stake.box, stake.total_cents
        parts = f"seated {euros(stake.seated_cents)} + behind {euros(stake.behind_cents)} = {euros(total)}"
        if stake.seated_cents == 0:
            return [ChipAlarm(kind="behind_without_seated", zone=f"box{box}", box=box, expected_cents=None,
                              seen_cents=stake.behind_cents, rule=RULE_BEHIND,
                              message=f"box{box}: {euros(stake.behind_cents)} behind a box with no seated stake")]
        if total < limits.min_bet_cents:
            return [ChipAlarm(kind="bet_under_minimum", zone=f"box{box}", box=box,
                              expected_cents=limits.min_bet_cents, seen_cents=total, rule=RULE_LIMITS,
                              message=f"box{box}: {parts}, under the minimum {euros(limits.min_bet_cents)}")]
        if total > limits.max_bet_cents:
            return [ChipAlarm(kind="bet_over_maximum", zone=f"box{box}", box=box,
                              expected_cents=limits.max_bet_cents, seen_cents=total, rule=RULE_LIMITS,
                              message=f"box{box}: {parts}, over the maximum {euros(limits.max_bet_cents)}")]
        return []

    def open_window(self, zone: str, kind: WindowKind, expected_cents: int) -> None:
        """Let exactly `expected_cents` be added to `zone` (a double, a split or insurance)."""
        if self._phase != "locked":
            raise WatcherUseError(f"a {kind} window needs locked bets (phase {self._phase})")
        if zone not in self._locks:
            raise WatcherUseError(f"unknown zone {zone!r}")
        if zone in self._windows:
            raise WatcherUseError(f"{zone}: a {self._windows[zone].kind} window is already open")
        if expected_cents <= 0:
            raise WatcherUseError(f"{zone}: a {kind} window expects a positive amount, not {expected_cents}")
        self._windows[zone] = _Window(kind, expected_cents)

    def pay_early(self, zones: Iterable[str]) -> None:
        """The zones whose stakes are paid before the bank draws (RULES.md Settlement, 002: a blackjack paid and
        removed at once): chips leaving them are that payment, not past-posting. Replaces the previous set."""
        if self._phase != "locked":
            raise WatcherUseError(f"an early payment needs locked bets (phase {self._phase})")
        self._paid_early = frozenset(zones) & frozenset(self._locks)

    def allow_collection(self, cents: Mapping[str, int]) -> None:
        """Dead stakes the dealer collects at once (RULES.md Player decisions: over 21 the hand is dead at once,
        stake collected, 000): up to `cents[zone]` may leave each zone, nothing may join it. Replaces the
        previous allowances."""
        if self._phase != "locked":
            raise WatcherUseError(f"a collection needs locked bets (phase {self._phase})")
        self._collectable = {zone: amount for zone, amount in cents.items() if amount > 0 and zone in self._locks}

    def _collected(self, zone: str, lock: _Lock) -> int:
        """The value of the locked chips gone from `zone` when it is a dead stake collected (no more than the
        zone's allowance), else 0."""
        collectable = self._collectable.get(zone, 0)
        if not collectable:
            return 0
        gone = lock.uids - {tag.uid for tag in self.tracker.chips(zone)}
        still = sum(self.value_of(tag) for tag in self.tracker.chips(zone) if tag.uid in lock.uids)
        value = lock.cents - still
        return value if gone and 0 < value <= collectable else 0

    def close_window(self, zone: str, *, action: bool = False) -> WindowClosed | ChipAlarm:
        """The window's verdict; the zone is locked again at what it holds now. `action`: closed by a DOUBLE or
        a SPLIT, which UNDO may take back (`restore_lock`)."""
        window = self._windows.pop(zone, None)
        if window is None:
            raise WatcherUseError(f"{zone}: no window is open")
        lock = self._locks[zone]
        now = self.total_cents(zone)
        added = now - lock.cents
        collected = self._collected(zone, lock)
        if collected:
            added += collected  # a dead stake taken off meanwhile is not a stake taken back
        if action:
            self._before_action.setdefault(zone, []).append(lock)
        self._locks[zone] = _Lock(now, frozenset(tag.uid for tag in self.tracker.chips(zone)))
        box = zone_box(zone)
        if added in (0, window.expected_cents):
            return WindowClosed(zone=zone, box=box, kind=window.kind, expected_cents=window.expected_cents,
                                added_cents=added, accepted=added == window.expected_cents)
        if added < 0:
            return ChipAlarm(kind="past_posting", zone=zone, box=box, expected_cents=lock.cents, seen_cents=now,
                             rule=RULE_PAST_POSTING,
                             message=(f"{zone}: {euros(-added)} taken off a locked stake during the {window.kind} "
                                      f"window; locked {euros(lock.cents)}, now {euros(now)}"))
        return ChipAlarm(kind="wrong_window_amount", zone=zone, box=box, expected_cents=window.expected_cents,
                         seen_cents=added, rule=RULE_WINDOW,
                         message=(f"{zone}: {window.kind} must add {euros(window.expected_cents)}, "
                                  f"{euros(added)} was added"))

    def begin_settlement(self, expected_final: Mapping[str, int]) -> None:
        """The amount each zone must end at; zones not named must end as they were locked."""
        if self._phase != "locked":
            raise WatcherUseError(f"settlement needs locked bets (phase {self._phase})")
        unknown = sorted(set(expected_final) - set(self._locks))
        if unknown:
            raise WatcherUseError(f"unknown zones {unknown}")
        if self._windows:
            raise WatcherUseError(f"windows still open on {sorted(self._windows)}")
        self._phase = "settling"
        self._expected = {zone: expected_final.get(zone, lock.cents) for zone, lock in self._locks.items()}

    def verify_payouts(self) -> list[PayoutVerified | ChipAlarm]:
        """Each zone against its expected final amount; call again as the dealer works, keep the last."""
        if self._phase != "settling":
            raise WatcherUseError(f"no settlement in progress (phase {self._phase})")
        verdicts: list[PayoutVerified | ChipAlarm] = []
        for zone, expected in self._expected.items():
            stake = self._locks[zone].cents
            seen = self.total_cents(zone)
            box = zone_box(zone)
            if seen == expected:
                if stake or expected:
                    verdicts.append(PayoutVerified(zone=zone, box=box, outcome=_outcome(stake, expected),
                                                   stake_cents=stake, expected_cents=expected))
                continue
            difference = seen - expected
            due = ("collect the stake (zone empty)" if expected == 0 else
                   "leave the stake untouched" if expected == stake else
                   f"stake {euros(stake)} + payout {euros(expected - stake)}")
            verdicts.append(ChipAlarm(
                kind="wrong_payout", zone=zone, box=box, expected_cents=expected, seen_cents=seen, rule=RULE_PAYOUT,
                message=(f"{zone}: expected {euros(expected)} ({due}), seen {euros(seen)}: "
                         f"{euros(abs(difference))} {'over' if difference > 0 else 'short'}")))
        return verdicts

    def restore_lock(self, zone: str) -> None:
        """UNDO took back the last DOUBLE or SPLIT that closed this zone's window: lock the zone as it was
        before it, so the dealer handing those chips back is quiet and anything else is still past-posting."""
        saved = self._before_action.get(zone)
        lock = saved.pop() if saved else None
        if lock is not None and self._phase == "locked":
            self._locks[zone] = lock

    def reopen(self) -> None:
        """UNDO took the round back out of settlement: the zones are locked again, nothing is expected yet."""
        if self._phase != "settling":
            raise WatcherUseError(f"no settlement to reopen (phase {self._phase})")
        self._phase = "locked"
        self._expected.clear()

    def end_round(self) -> None:
        """The round is closed: zones are free for the next bets."""
        self._phase = "betting"
        self._paid_early = frozenset()
        self._collectable = {}
        self._before_action.clear()
        self._locks.clear()
        self._windows.clear()
        self._expected.clear()


def _outcome(stake: int, expected: int) -> PayoutOutcome:
    if expected == 0:
        return "collected"
    if expected == stake:
        return "push"
    return "paid" if expected > stake else "part collected"
