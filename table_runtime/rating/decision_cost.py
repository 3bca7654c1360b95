"""What a player's own decisions cost him: each scored against the best play for the cards then known.

A decision (`round_facts.hand_decisions`: a hit, a stand, a double, a split, read back from the hands) is
scored on the composition the player saw: the shoe of the rules' decks less the bank's card and the cards of
his hand so far (for a split, the pair). On that composition (`strategy.situation.Situation`, the solver's
method: the bank's totals exact, the player's later cards from the same composition) the EV of every action
the rules allowed him is computed, per unit of the hand's original stake:

- stand: the standing EV (a bank blackjack takes the stake: no hole card);
- hit: hitting once and playing on at best (`Situation.optimal_hit_stand`);
- double: one card, stake 2 (the bank's blackjack takes both where `bank_blackjack_takes = all`);
- split: the pair split and each hand played by the rules' chart (`Situation.split`);
- surrender (a hand given up, 55-4 1° as amended in 2020): -0.5.

The decision's cost is the EV of the best allowed action minus the EV of the one he chose (0 for the best);
the cost of a hand in money is that times his original stake on it. theo_skill = theo + the sum of the costs
(docs/rating.md). The house edge of the rules (`house_edge`) is the solver's, computed once per set of play
terms. Pure: no clock, no I/O.
"""

from __future__ import annotations

from functools import cache, lru_cache

from table_runtime.game.hand import Hand
from table_runtime.game.round import Round
from table_runtime.rating.round_facts import Decision, hand_decisions
from table_runtime.strategy.chart import Action, Strategy
from table_runtime.strategy.composition import full_shoe, without
from table_runtime.strategy.situation import KEYS, Situation, key
from table_runtime.strategy.solver import solve
from table_runtime.strategy.terms import PlayTerms

SURRENDER_EV = -0.5


@cache
def house_edge(terms: PlayTerms) -> float:
    """The house edge per initial stake of a basic-strategy player off the top (`table-runtime house-edge`)."""
    return solve(terms).house_edge


@cache
def _chart(terms: PlayTerms, up: int) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """The chart's (hits, doubles) by hand key against `up`, as `Situation.split` plays the split hands."""
    strategy = Strategy.for_rules(terms)
    hits = [False] * KEYS
    doubles = [False] * KEYS
    for soft in (False, True):
        for total in range(12 if soft else 4, 22):
            k = key(total, soft)
            hits[k] = strategy.decide(total, soft, None, up, False, False) is Action.HIT
            doubles[k] = strategy.decide(total, soft, None, up, True, False) is Action.DOUBLE
    return tuple(hits), tuple(doubles)


@lru_cache(maxsize=4096)
def _situation(terms: PlayTerms, up: int, seen: tuple[int, ...]) -> Situation:
    """The situation of a hand whose cards `seen` (values, sorted) are out, against the bank's `up`."""
    situation = Situation(terms, without(full_shoe(terms.decks), up, *seen), up)
    hits, _ = _chart(terms, up)
    situation.use_chart(hits)
    return situation


def action_evs(terms: PlayTerms, decision: Decision, seen: tuple[int, ...]) -> dict[Action, float]:
    """The EV, per unit of the hand's original stake, of each action the rules allowed at `decision`, on the
    shoe less the bank's card and the values `seen` (the hand's cards then, or the pair)."""
    situation = _situation(terms, decision.up, tuple(sorted(seen)))
    total, soft = decision.total, decision.soft
    stand, hit = situation.optimal_hit_stand()
    evs = {Action.STAND: stand[key(total, soft)], Action.HIT: hit[key(total, soft)]}
    if decision.can_double:
        evs[Action.DOUBLE] = situation.doubled(total, soft, 2.0 if terms.bank_blackjack_takes_all else 1.0)
    if decision.can_split and decision.pair is not None:
        evs[Action.SPLIT] = situation.split(decision.pair, _chart(terms, decision.up)[1])
    return evs


def decision_cost(terms: PlayTerms, decision: Decision, seen: tuple[int, ...], chosen: Action | None = None) -> float:
    """The EV the decision gave away against the best allowed action (0 or more), per unit of original stake;
    `chosen` overrides the decision's action (a surrender, which the hands read as a stand)."""
    evs = action_evs(terms, decision, seen)
    action = decision.action if chosen is None else chosen
    played = SURRENDER_EV if action is Action.SURRENDER else evs.get(action)
    if played is None:  # an action the rules did not allow cannot have been played: nothing to score
        return 0.0
    return max(0.0, max(evs.values()) - played)


def hand_cost(terms: PlayTerms, round_: Round, hand: Hand) -> float:
    """What the decisions on `hand` gave away, per unit of its original stake."""
    if not round_.bank.cards:
        return 0.0
    up = round_.bank.cards[0].value
    decisions = hand_decisions(round_, hand, up)
    cost = 0.0
    for index, decision in enumerate(decisions):
        last = index == len(decisions) - 1
        chosen = Action.SURRENDER if last and hand.surrendered else None
        seen = tuple(card.value for card in hand.cards[:decision.cards])
        cost += decision_cost(terms, decision, seen, chosen)
    return cost


def split_cost(terms: PlayTerms, round_: Round, pair: int, *, can_double: bool) -> float:
    """What splitting a pair of `pair` value gave away, per unit of the box's original stake."""
    if not round_.bank.cards:
        return 0.0
    up = round_.bank.cards[0].value
    total, soft = (12, True) if pair == 1 else (2 * pair, False)
    decision = Decision(round=round_.number, box=0, total=total, soft=soft, pair=pair, up=up, cards=2,
                        action=Action.SPLIT, can_double=can_double, can_split=True)
    return decision_cost(terms, decision, (pair, pair))
