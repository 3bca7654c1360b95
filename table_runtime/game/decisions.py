"""What the rules allow: a stand, a double or a split of a hand, and the bets a round may start with.

Each refusal is a `Refusal` (its code and the reason as the dealer reads it),
or None when the rules allow the decision; the round turns it into a
`command_refused` alarm and `Round.allowed()` lists the decisions with none.
"""

from __future__ import annotations

from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.box import BoxState
from table_runtime.game.events import Alarm, Event
from table_runtime.game.hand import Hand, Stake
from table_runtime.game.inputs import BoxBet
from table_runtime.game.refusals import Refusal, RefusalReason
from table_runtime.game.rules import DoubleOn, RuleOptions, SplitMatch, TableLimits


def stand_refusal(hand: Hand) -> Refusal | None:
    if len(hand.cards) < 2:
        return Refusal(RefusalReason.SECOND_CARD, "the hand is waiting for its second card")
    if hand.doubled:
        return Refusal(RefusalReason.DOUBLED_ONE_CARD, "a doubled hand must take exactly one card "
                                                       "(art. 55-4 « Double-down »)")
    return None


def double_refusal(hand: Hand, rules: RuleOptions) -> Refusal | None:
    if len(hand.cards) != 2 or hand.doubled:
        return Refusal(RefusalReason.DOUBLE_TWO_CARDS, "a double is only on the first two cards "
                                                       "(art. 55-4 « Double-down »)")
    if hand.split_aces:
        return Refusal(RefusalReason.SPLIT_ACES_ONE_CARD, "split aces take one card each (art. 55-4 « Les paires »)")
    if hand.from_split and not rules.double_after_split:
        return Refusal(RefusalReason.NO_DOUBLE_AFTER_SPLIT, "no double after a split under these rules")
    if rules.double_on is DoubleOn.NINE_TEN_ELEVEN and hand.total not in (9, 10, 11):
        return Refusal(RefusalReason.DOUBLE_9_10_11, "doubles only on 9, 10 or 11 under these rules "
                                                     f"(house option double_on); the hand has {hand.total}")
    return None


def split_refusal(hand: Hand, rules: RuleOptions, box: BoxState | None) -> Refusal | None:
    """`box`: the box of `hand`, whose hands count against the rules' limit."""
    if len(hand.cards) != 2 or hand.doubled:
        return Refusal(RefusalReason.SPLIT_NEEDS_PAIR, "a split needs a pair as the first two cards "
                                                       "(art. 55-4 « Les paires »)")
    first, second = hand.cards
    if rules.split_match is SplitMatch.RANK and first.rank != second.rank:
        return Refusal(RefusalReason.NOT_IDENTICAL, f"{first} and {second} are not identical "
                                                    "(house option split_match)")
    if first.value != second.value:
        return Refusal(RefusalReason.NOT_SAME_VALUE, f"{first} and {second} are not of the same value "
                                                     "(art. 55-4 « Les paires »)")
    if hand.split_aces:
        return Refusal(RefusalReason.SPLIT_ACES_AGAIN, "split aces are not split again (art. 55-4 « Les paires »)")
    limit = rules.max_hands_after_split
    if limit is not None and box is not None and len(box.hands) >= limit:
        return Refusal(RefusalReason.HANDS_LIMIT, f"the box already has {len(box.hands)} hands, the limit under "
                                                  "these rules")
    return None


def insurance_cents(seated_cents: int) -> int:
    """The insurance a seated stake takes: half of it, a half cent rounded down (art. 55-4 « Assurance » "la moitié de
    la mise
    initiale"). The one place the amount is computed: the round's check, the chip watch's window."""
    return seated_cents // 2


def insurance_fault(insurance_open: bool, phase: str, number: int, box: BoxState | None, cents: int) -> str | None:
    """Why insurance of `cents` on box `number` (`box` None when it has no bet) is refused, or None: half the
    seated stake, once, while the window on a bank ace is open (art. 55-4 « Assurance », art. 55-4 « Assurance »). Not
    a dealer command's refusal:
    the reason is the message of an `insurance_refused` alarm."""
    if not insurance_open:
        return f"insurance is only offered on a bank ace, before play (phase is {phase})"
    if box is None:
        return f"box {number} has no bet in this round"
    if box.insurance:
        return f"box {number} is already insured for {box.insurance} cents"
    expected = insurance_cents(box.bet.seated_cents)
    if cents != expected:
        return f"insurance on box {number} must be half the stake: {expected} cents, not {cents}"
    return None


def matching_stakes(hand: Hand, behind_following: tuple[str, ...], kind: str) -> tuple[list[Stake], list[str]]:
    """A double or a split adds, for the seated player and each behind player who follows, a stake equal to
    their base stake on `hand` (art. 55-4 « Les paires », art. 55-4 « Double-down »); the behind players who do not
    follow are named."""
    following = set(behind_following)
    matching: list[Stake] = []
    declined: list[str] = []
    for position, stake in enumerate(hand.base_stakes()):
        if position == 0 or stake.owner in following:
            matching.append(Stake(stake.owner, stake.cents, kind))
        else:
            declined.append(stake.owner)
    return matching, declined


def bet_problems(bets: tuple[BoxBet, ...], rules: RuleOptions, limits: TableLimits) -> list[Event]:
    """Every reason the bets cannot be locked, each an alarm naming the box and the amounts."""
    problems: list[Event] = []
    seen: set[int] = set()
    for bet in bets:
        if not 1 <= bet.box <= rules.boxes or bet.box in seen:
            problems.append(Alarm(kind=AlarmKind.BET_REFUSED, rule=citations.SEVEN_BOXES, box=bet.box,
                                  message=f"box {bet.box} is not a free box of 1..{rules.boxes}"))
            continue
        seen.add(bet.box)
        total = bet.total_cents
        if bet.seated_cents < limits.min_bet_cents or (bet.behind and any(b.cents <= 0 for b in bet.behind)):
            problems.append(Alarm(
                kind=AlarmKind.BET_UNDER_MINIMUM, box=bet.box, rule=citations.POSTED_MINIMUM,
                message=f"box {bet.box}: seated stake {bet.seated_cents} cents is under the minimum "
                        f"{limits.min_bet_cents}",
                amounts=(("seated_cents", bet.seated_cents), ("min_cents", limits.min_bet_cents))))
        if total > limits.max_bet_cents:
            problems.append(Alarm(
                kind=AlarmKind.BET_OVER_MAXIMUM, box=bet.box, rule=citations.BEHIND_MAXIMUM,
                message=f"box {bet.box}: {total} cents (seated + behind) is over the maximum {limits.max_bet_cents}",
                amounts=(("total_cents", total), ("max_cents", limits.max_bet_cents))))
    if len(seen) < rules.min_boxes_to_deal and not problems:
        problems.append(Alarm(
            kind=AlarmKind.TOO_FEW_BOXES, rule=citations.MIN_BOXES,
            message=f"{len(seen)} box(es) in play; these rules need at least {rules.min_boxes_to_deal} to deal",
            amounts=(("boxes", len(seen)), ("min_boxes", rules.min_boxes_to_deal))))
    return problems
