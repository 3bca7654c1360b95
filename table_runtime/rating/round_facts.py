"""What the table recorded of one round for one player, as the detection reads it.

`RoundFacts` is built from the settled round (`facts_of_round`): the player's boxes (the seated stakes his
name is on), his stakes (the initial ones and all of them, doubles and splits included), what settlement
paid him, whether he insured, his hyper BLACK JACK stake, and each decision he made with the cards then
known, read back from the hands: a hand's cards in order say when it was hit, stood, doubled; more than one
hand on a box says it was split. The true count and the edge are the shoe's before the round
(`shoe_state.ShoeState`, `round_edge`), given by the caller. A round the player only watched (his session
open, no stake) has no boxes.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_runtime.game.hand import Hand
from table_runtime.game.hyper import HyperCase
from table_runtime.game.round import Round
from table_runtime.strategy.chart import Action
from table_runtime.strategy.composition import add_card


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """One decision on a hand: its total and softness, its pair value (ace = 1) when it was a pair of two
    cards, the bank's card (ace = 1), how many cards it held, what was played and what the rules allowed."""

    round: int
    box: int
    total: int
    soft: bool
    pair: int | None
    up: int
    cards: int
    action: Action
    can_double: bool
    can_split: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundFacts:
    """One round of one player's session."""

    round: int
    shoe: str  # the shoe's id: consecutive rounds of one shoe are what count changes are read over
    true_count: float
    edge: float  # the basic-strategy player's EV per initial stake of this round, from the cards left
    boxes: tuple[int, ...] = ()  # the player's boxes this round; empty: he watched
    stake_cents: int = 0  # his initial stakes
    action_cents: int = 0  # every stake of his hands: doubles and splits included
    net_cents: int = 0  # what settlement paid him (negative: lost)
    insurance_offered: bool = False
    insurance_cents: int = 0
    decisions: tuple[Decision, ...] = ()
    hyper_blackjack_cents: int = 0  # on the hyper field's BLACK JACK case
    bank_blackjack_chance: float = 0.0  # from the cards left before the round


def _may_double(round_: Round, hand: Hand, total: int, soft: bool) -> bool:
    rules = round_.rules
    if hand.from_split and not rules.double_after_split:
        return False
    return rules.double_on == "any_two" or (not soft and 9 <= total <= 11)


def hand_decisions(round_: Round, hand: Hand, up: int) -> list[Decision]:
    """The decisions that left `hand` as it ended: a hit before every card after the second, then a stand,
    unless the hand ended by itself (bust, 21, a blackjack, split aces, a double)."""
    cards = hand.cards
    if len(cards) < 2 or hand.split_aces or hand.blackjack:
        return []
    decisions = []
    total, soft = add_card(11 if cards[0].value == 1 else cards[0].value, cards[0].value == 1, cards[1].value)
    pair = cards[0].value if cards[0].value == cards[1].value and not hand.from_split else None

    def decision(count: int, action: Action) -> Decision:
        return Decision(round=round_.number, box=hand.box, total=total, soft=soft, pair=pair if count == 2 else None,
                        up=up, cards=count, action=action,
                        can_double=count == 2 and _may_double(round_, hand, total, soft),
                        can_split=count == 2 and pair is not None and round_.rules.may_split)

    for count in range(2, len(cards) + 1):
        if total >= 21:
            break
        if count == len(cards):
            decisions.append(decision(count, Action.STAND))
            break
        if hand.doubled:
            decisions.append(decision(count, Action.DOUBLE))
            break
        decisions.append(decision(count, Action.HIT))
        total, soft = add_card(total, soft, cards[count].value)
    return decisions


def facts_of_round(round_: Round, owner: str, *, shoe: str, true_count: float, edge: float,
                   bank_blackjack_chance: float = 0.0) -> RoundFacts:
    """The facts of a settled `round_` for the player named `owner` on the seated stakes and the hyper
    field's BLACK JACK case."""
    up = round_.bank.cards[0].value if round_.bank.cards else 0
    boxes = [box for box in round_.boxes if box.bet.owner == owner]
    decisions: list[Decision] = []
    stake = action = insurance = 0
    for box in boxes:
        stake += box.bet.seated_cents
        insurance += box.insurance
        if len(box.hands) > 1:  # split: the first hand's first two cards were the pair
            first = box.hands[0].cards[0].value
            total, soft = add_card(11 if first == 1 else first, first == 1, first)
            decisions.append(Decision(round=round_.number, box=box.number, total=total, soft=soft, pair=first, up=up,
                                      cards=2, action=Action.SPLIT, can_double=True, can_split=True))
        for hand in box.hands:
            action += sum(s.cents for s in hand.stakes if s.owner == owner)
            decisions.extend(hand_decisions(round_, hand, up))
    hyper = sum(bet.cents for bet in round_.hyper_bets if bet.case == HyperCase.BLACKJACK and bet.owner == owner)
    net = sum(payout.net_cents for payout in round_.payouts if payout.owner == owner)
    return RoundFacts(round=round_.number, shoe=shoe, true_count=true_count, edge=edge,
                      boxes=tuple(box.number for box in boxes), stake_cents=stake, action_cents=action,
                      net_cents=net, insurance_offered=up == 1 and bool(boxes), insurance_cents=insurance,
                      decisions=tuple(decisions), hyper_blackjack_cents=hyper,
                      bank_blackjack_chance=bank_blackjack_chance)
