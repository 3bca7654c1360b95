"""The hyper black jack field on the table (55-4 6°): whose chips lie on each case, and what the chips must do.

The field is shared: seven zones along the insurance line (``hyper.17`` ... ``hyper.21``, ``hyper.blackjack``,
``hyper.bust``), one per case, read by the same readers as the boxes. A chip tells its value, not its player,
so the dealer says whose each case's stake is, on the display, before the deal (`HyperAssigned`, a journaled
input; docs/rules.md "Who owns a chip on the hyper field"):

- an assignment's arguments are what they say (`assignment_of`): a case's name, a box and cents as whole numbers,
  `behind` true or false; nothing is coerced (10.5 cents, ``true`` as cents, ``"yes"`` as behind are refused);
- an assignment is taken only while bets are open, where the rules open the field, for a box of the table with
  a main bet on its zone, and for the player behind only where the casino does not keep the field to seated
  players (`hyper_seated_only`);
- DEAL is refused while the chips on a case and the stakes assigned on it differ (`deal_refusal`); the first
  card out of the shoe locks the bets anyway (docs/rules.md "A round", step 1), with a `hyper_unassigned` alarm naming
  the
  case;
- at the lock the assigned stakes go into `BetsLocked.hyper` (the round checks the limits) and the field is
  emptied for the next round;
- once locked, a hyper zone is a locked zone like a box's: chips added or taken are past-posting (chip_watch.py,
  the alarm naming the case: `past_posting`);
- at settlement each zone must end at its stakes + what they won (`hyper_due`), checked at CONFIRM with the
  boxes' zones; and the dealer settles in the text's order (`SettlementOrder`): a zone moved while a zone of an
  earlier step is still not done is a `settlement_order` alarm.

Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from table_runtime.core import chip_alarms
from table_runtime.core.input_bounds import BIGINT_MAX
from table_runtime.core.inputs import HyperAssigned, ZoneChip
from table_runtime.core.zones_due import zone_box
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.game.hyper import HyperCase
from table_runtime.game.hyper_settlement import (
    COLLECT_HYPER,
    COLLECT_MAIN,
    HYPER_KIND_PREFIX,
    HYPER_ZONES,
    PAY_HYPER,
    PAY_MAIN,
    SETTLEMENT_STEPS,
    hyper_zone,
    is_hyper,
)
from table_runtime.game.inputs import HyperBet
from table_runtime.game.refusals import Refusal, RefusalReason
from table_runtime.game.round import Round
from table_runtime.game.rules import RuleOptions

RULE_BEFORE_DEAL = citations.HYPER_BEFORE_DEAL
RULE_ORDER = citations.HYPER_ORDER


def is_hyper_zone(zone: str) -> bool:
    return zone.startswith(HYPER_KIND_PREFIX)


def case_of(zone: str) -> str:
    """``hyper.21`` -> ``21``."""
    return zone.removeprefix(HYPER_KIND_PREFIX)


def euros(cents: int) -> str:
    return chip_alarms.euros(cents)


@dataclass(slots=True)
class HyperField:
    """The assignments of the hyper field before the deal: (case, owner) -> cents; owner ``boxN`` (seated) or
    ``boxN.behind``. Emptied when a round starts (its stakes are then the round's)."""

    assigned: dict[tuple[str, str], int] = field(default_factory=dict)

    def assign(self, item: HyperAssigned) -> None:
        owner = f"box{item.box}.behind" if item.behind else f"box{item.box}"
        key = (item.case, owner)
        if item.cents > 0:
            self.assigned[key] = item.cents
        else:
            self.assigned.pop(key, None)

    def clear(self) -> None:
        self.assigned = {}

    def bets(self) -> tuple[HyperBet, ...]:
        """The assigned stakes, case order then box order: what `BetsLocked.hyper` carries."""
        order = {case.value: index for index, case in enumerate(HyperCase)}
        return tuple(HyperBet(case=case, box=int(owner.split(".")[0].removeprefix("box")), cents=cents, owner=owner)
                     for (case, owner), cents in sorted(self.assigned.items(),
                                                        key=lambda item: (order.get(item[0][0], 99), item[0][1])))

    def assigned_on(self, case: str) -> int:
        return sum(cents for (on, _), cents in self.assigned.items() if on == case)

    def differences(self, totals: Mapping[str, int]) -> list[tuple[str, int, int]]:
        """(case, cents on its zone, cents assigned) for every case where they differ."""
        out = []
        for case in HyperCase:
            on_zone, assigned = totals.get(hyper_zone(case), 0), self.assigned_on(case)
            if on_zone != assigned:
                out.append((case.value, on_zone, assigned))
        return out

    def view(self) -> list[dict[str, object]]:
        """The assignments as the display shows them."""
        return [{"case": bet.case, "box": bet.box, "owner": bet.owner, "cents": bet.cents} for bet in self.bets()]


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def assignment_of(args: Mapping[str, Any], *, by: str) -> HyperAssigned | Refusal:
    """HYPER_ASSIGN's arguments as the input they say (``case``, ``box``, ``cents``, ``behind``), or why they say
    none: a number that is not whole (10.5), a truth value as a number (``true``), text as a truth value
    (``"yes"``), cents past the floor's 64-bit numbers. Whether the field takes it is `assignment_refusal`."""
    case, box, cents, behind = args.get("case"), _whole(args.get("box")), _whole(args.get("cents")), \
        args.get("behind", False)
    if not isinstance(case, str) or box is None or cents is None:
        return Refusal(RefusalReason.BAD_HYPER_ASSIGNMENT, "HYPER_ASSIGN needs case (its name), box and cents "
                                                           "(whole numbers)")
    if not isinstance(behind, bool):
        return Refusal(RefusalReason.BAD_HYPER_ASSIGNMENT, "HYPER_ASSIGN's behind is true or false")
    if cents > BIGINT_MAX:  # core/input_bounds.py refuses it first; a negative amount: `assignment_refusal`
        return Refusal(RefusalReason.BAD_HYPER_ASSIGNMENT, f"{cents} cents is past the floor's 64-bit numbers")
    return HyperAssigned(case=case, box=box, cents=cents, behind=behind, by=by)


def assignment_refusal(item: HyperAssigned, rules: RuleOptions, *, betting: bool, seated_cents: int,
                       zones: tuple[str, ...]) -> Refusal | None:
    """Why the dealer may not assign this stake now; None when it may (see the module docstring)."""
    if not rules.hyper_blackjack or (item.case in set(HyperCase) and hyper_zone(item.case) not in zones):
        return Refusal(RefusalReason.HYPER_CLOSED, "the hyper black jack field is not open at this table "
                                                   "(rules.hyper_blackjack, and its zones in the antenna map)")
    if item.case not in set(HyperCase):
        return Refusal(RefusalReason.BAD_HYPER_ASSIGNMENT,
                       f"hyper case {item.case!r} is not one of {', '.join(HyperCase)}")
    if not 1 <= item.box <= rules.boxes or item.cents < 0:
        return Refusal(RefusalReason.BAD_HYPER_ASSIGNMENT,
                       f"box {item.box} and {item.cents} cents: a box of 1..{rules.boxes} and cents >= 0")
    if not betting:
        return Refusal(RefusalReason.HYPER_CLOSED, f"hyper {item.case}: bets are locked (« avant la distribution "
                                                   "des cartes »)")
    if item.cents and not seated_cents:
        return Refusal(RefusalReason.HYPER_NO_MAIN_BET, f"hyper {item.case}: box {item.box} has no main bet "
                                                        "(« après avoir engagé leur mise principale »)")
    if item.cents and item.behind and rules.hyper_seated_only:
        return Refusal(RefusalReason.HYPER_SEATED_ONLY, f"hyper {item.case}: the player behind box {item.box} may "
                                                        "not bet on the hyper field: it is kept to seated players")
    return None


def assignment_alarm(item: HyperAssigned, refusal: Refusal) -> Alarm:
    """A journaled assignment the field does not take (a journal row the command table would have refused)."""
    return Alarm(kind=AlarmKind.HYPER_BET_REFUSED, box=item.box, rule=RULE_BEFORE_DEAL,
                 message=f"hyper {item.case}: assignment of {euros(item.cents)} to box {item.box} refused: "
                         f"{refusal.text}", amounts=(("hyper_cents", item.cents),))


def deal_refusal(hyper: HyperField, totals: Mapping[str, int]) -> Refusal | None:
    """DEAL while the chips on a case and the stakes assigned on it differ: the refusal naming each case."""
    differences = hyper.differences(totals)
    if not differences:
        return None
    named = "; ".join(f"hyper {case}: {euros(on_zone)} on the case, {euros(assigned)} assigned"
                      for case, on_zone, assigned in differences)
    return Refusal(RefusalReason.HYPER_UNASSIGNED, f"assign every hyper stake to a box first: {named}")


def unassigned_alarms(locked: Sequence[HyperBet], totals: Mapping[str, int]) -> list[Alarm]:
    """The bets were locked (the first card) with chips on a case not all assigned: one alarm per case (from the
    locked stakes and the zones alone, so a replay from a checkpoint says the same)."""
    hyper = HyperField({(bet.case, bet.owner): bet.cents for bet in locked})
    return [Alarm(kind=AlarmKind.HYPER_UNASSIGNED, rule=RULE_BEFORE_DEAL,
                  message=(f"hyper.{case}: bets locked with {euros(on_zone)} on the case and {euros(assigned)} "
                           "assigned to boxes: the difference is nobody's stake"),
                  amounts=(("seen_cents", on_zone), ("assigned_cents", assigned)))
            for case, on_zone, assigned in hyper.differences(totals)]


def past_posting(zone: str, locked: int, now: int, added: Sequence[ZoneChip], removed: Sequence[ZoneChip]) -> Alarm:
    """Chips placed on, added to or taken off a hyper case after the bets were locked: past-posting."""
    moved = ", ".join([f"added {chip.uid} ({euros(chip.cents)})" for chip in added]
                      + [f"removed {chip.uid} ({euros(chip.cents)})" for chip in removed])
    return Alarm(kind=AlarmKind.PAST_POSTING, rule=RULE_BEFORE_DEAL,
                 message=(f"{zone}: hyper black jack case {HyperCase(case_of(zone)).label} changed after the bets were "
                          f"locked: {moved}; locked {euros(locked)}, now {euros(now)}"),
                 amounts=(("expected_cents", locked), ("seen_cents", now)))


def hyper_due(round_: Round, locks: Mapping[str, int]) -> dict[str, int]:
    """What each hyper zone must hold once the dealer has paid: every stake's stake + net (0 when lost), and
    any chips on it that nobody's stake is (left where they are)."""
    due: dict[str, int] = {}
    staked: dict[str, int] = {}
    for payout in round_.payouts:
        if is_hyper(payout):
            due[payout.kind] = due.get(payout.kind, 0) + payout.staked_cents + payout.net_cents
            staked[payout.kind] = staked.get(payout.kind, 0) + payout.staked_cents
    for zone in HYPER_ZONES:
        if zone in locks:
            due[zone] = due.get(zone, 0) + max(0, locks[zone] - staked.get(zone, 0))
    return due


def settlement_step(zone: str, due: int, locked: int) -> str | None:
    """Which of the text's four steps moves `zone` (None: the zone stays as it is)."""
    if due == locked:
        return None
    if is_hyper_zone(zone):
        return COLLECT_HYPER if due < locked else PAY_HYPER
    return COLLECT_MAIN if due < locked else PAY_MAIN


def settlement_order(zone: str, expected: Mapping[str, int], locks: Mapping[str, int],
                     seen: Mapping[str, int], warned: set[str]) -> list[Alarm]:
    """`zone` moved while settling: an alarm if a zone of an earlier step of the text's order is not done yet
    (once per zone and round: `warned` keeps the zones already named)."""
    if zone in warned or zone not in expected:
        return []
    step = settlement_step(zone, expected[zone], locks.get(zone, 0))
    if step is None:
        return []
    rank = SETTLEMENT_STEPS.index(step)
    pending = sorted((SETTLEMENT_STEPS.index(other_step), other) for other, due in expected.items()
                     if (other_step := settlement_step(other, due, locks.get(other, 0))) is not None
                     and SETTLEMENT_STEPS.index(other_step) < rank and seen.get(other, 0) != due)
    if not pending:
        return []
    warned.add(zone)
    first = pending[0][1]  # a zone of the earliest step not done
    waiting = ", ".join(f"{other} ({SETTLEMENT_STEPS[index].replace('_', ' ')})" for index, other in pending)
    return [Alarm(kind=AlarmKind.SETTLEMENT_ORDER, rule=RULE_ORDER, box=zone_box(zone),
                  message=(f"{zone} moved ({step.replace('_', ' ')}) while {waiting} is not done: the losing "
                           "hyper stakes are collected first, then the losing stakes, then the winners paid, the "
                           "hyper winners last"),
                  amounts=(("due_cents", expected[zone]), ("seen_cents", seen.get(zone, 0)),
                           ("pending_due_cents", expected[first]), ("pending_seen_cents", seen.get(first, 0))))]
