"""Derive the strategy of a rule set by expected value, and its house edge.

For each bank up card and each two-card player hand, the composition is the
shoe of `decks` decks less the up card and the two player cards; the bank's
final totals are exact for that composition (see `dealer`), the player's later
cards come from it unchanged (see `situation`). Then, per up card:

1. hit or stand, per hand total: the EV difference of hitting (playing on
   optimally) and standing, weighted by the chance of each starting hand;
2. the first decision of a two-card total (stand, hit, double when the rules
   allow): EVs summed over the starting hands of that total, pairs counted only
   for totals no other hand makes (4, 20, soft 12), playing on by step 1;
3. split or not, per pair: the split EV (resplits up to the number of hands
   allowed, each hand played by steps 1-2) against the pair's best other play;
4. surrender where the rules offer it (see `surrender`): -0.5 against each
   hand's value from steps 1-3;
5. the house edge: every starting hand played by the chart, weighted by its
   exact chance off the top of the shoe.

Nothing here knows a profile: no-hole-card play comes from the bank's
blackjack chance in every EV that puts more money on the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from table_runtime.strategy import surrender
from table_runtime.strategy.chart import CHART_WIDTH, UP_VALUES, Strategy
from table_runtime.strategy.composition import VALUES, full_shoe, two_card_hand, without
from table_runtime.strategy.dealer import Distribution, bank_distribution
from table_runtime.strategy.situation import KEYS, Situation, key
from table_runtime.strategy.terms import PlayTerms


@dataclass(frozen=True, slots=True)
class Solution:
    """The strategy of a set of play terms and what it returns."""

    terms: PlayTerms
    strategy: Strategy
    player_ev: float  # per initial stake, off the top of a full shoe; negative = house wins
    ev_by_upcard: dict[int, float]  # conditional on the up card
    bank_by_upcard: dict[int, Distribution]  # shoe less the up card only

    @property
    def house_edge(self) -> float:
        return -self.player_ev

    @property
    def bank_bust_by_upcard(self) -> dict[int, float]:
        return {up: distribution[5] for up, distribution in self.bank_by_upcard.items()}


@dataclass(slots=True)
class _Start:
    first: int
    second: int
    weight: float  # P(this hand | up card), ten-ten split by rank where that matters
    pair: bool  # splittable under the rules
    situation: Situation

    @property
    def natural(self) -> bool:
        return {self.first, self.second} == {1, 10} and self.first != self.second


def _starting_hands(terms: PlayTerms, up: int) -> list[_Start]:
    shoe = without(full_shoe(terms.decks), up)
    total = sum(shoe)
    hands = []
    for first in VALUES:
        for second in VALUES:
            if second < first:
                continue
            if first == second:
                weight = shoe[first - 1] * (shoe[first - 1] - 1) / (total * (total - 1))
            else:
                weight = 2 * shoe[first - 1] * shoe[second - 1] / (total * (total - 1))
            situation = Situation(terms, without(shoe, first, second), up)
            if first == second == 10 and terms.split_by_rank:
                # Same rank among ten-valued pairs: each of 4 ranks holds a quarter of them.
                per_rank = shoe[9] / 4
                same = 4 * per_rank * (per_rank - 1) / (shoe[9] * (shoe[9] - 1))
                hands.append(_Start(first, second, weight * same, True, situation))
                hands.append(_Start(first, second, weight * (1 - same), False, situation))
            else:
                hands.append(_Start(first, second, weight, first == second, situation))
    return hands


@cache
def solve(terms: PlayTerms) -> Solution:
    """Compute the strategy and its return for these terms (cached)."""
    hits = [False] * (KEYS * CHART_WIDTH)
    doubles = [False] * (KEYS * CHART_WIDTH)
    splits = [False] * (CHART_WIDTH * CHART_WIDTH)
    surrenders = [False] * (KEYS * CHART_WIDTH)
    pair_surrenders = [False] * (CHART_WIDTH * CHART_WIDTH)
    ev_by_upcard: dict[int, float] = {}
    bank_by_upcard: dict[int, Distribution] = {}
    full = full_shoe(terms.decks)
    for up in UP_VALUES:
        bank_by_upcard[up] = bank_distribution(without(full, up), up, terms.dealer_hits_soft_17)
        hands = _starting_hands(terms, up)
        up_hits = _hit_or_stand(hands)
        for k in range(KEYS):
            hits[k * CHART_WIDTH + up] = up_hits[k]
        for hand in hands:
            hand.situation.use_chart(up_hits)
        up_doubles = _first_decisions(terms, hands, up_hits)
        for k in range(KEYS):
            doubles[k * CHART_WIDTH + up] = up_doubles[k]
        up_splits = _split_decisions(terms, hands, up_hits, up_doubles)
        for pair, split in up_splits.items():
            splits[pair * CHART_WIDTH + up] = split
        played = _played(terms, hands, up_hits, up_doubles, up_splits)
        gives_up = surrender.choose(up, played, terms.surrender)
        for k in gives_up.keys:
            surrenders[k * CHART_WIDTH + up] = True
        for pair in gives_up.pairs:
            pair_surrenders[pair * CHART_WIDTH + up] = True
        ev_by_upcard[up] = _expected_return(terms, hands, surrender.expected(played, gives_up))
    strategy = Strategy(terms, hits, doubles, splits, surrenders, pair_surrenders)
    total = sum(full)
    player_ev = sum(full[up - 1] / total * ev for up, ev in ev_by_upcard.items())
    return Solution(terms, strategy, player_ev, ev_by_upcard, bank_by_upcard)


def _hit_or_stand(hands: list[_Start]) -> list[bool]:
    advantage = [0.0] * KEYS
    for hand in hands:
        stand, hit = hand.situation.optimal_hit_stand()
        for k in range(KEYS):
            advantage[k] += hand.weight * (hit[k] - stand[k])
    return [gain > 0.0 for gain in advantage]


def _first_evs(terms: PlayTerms, hand: _Start, hits: list[bool]) -> tuple[float, float, float | None]:
    """(stand, hit, double or None) EVs of a two-card hand played on by the chart."""
    total, soft = two_card_hand(hand.first, hand.second)
    situation = hand.situation
    stand = situation.standing(total)
    hit = situation.hit_then_follow(total, soft, 2, 1.0)
    double = None
    if terms.may_double(total, soft):
        double = situation.doubled(total, soft, 2.0 if terms.bank_blackjack_takes_all else 1.0)
    return stand, hit, double


def _first_decisions(terms: PlayTerms, hands: list[_Start], hits: list[bool]) -> list[bool]:
    """Per hand key: does the two-card hand double (when allowed)?"""
    plain: dict[int, list[float]] = {}
    paired: dict[int, list[float]] = {}
    for hand in hands:
        if hand.natural:
            continue
        stand, hit, double = _first_evs(terms, hand, hits)
        sums = (paired if hand.pair else plain).setdefault(key(*two_card_hand(hand.first, hand.second)), [0.0] * 3)
        sums[0] += hand.weight * stand
        sums[1] += hand.weight * hit
        sums[2] += hand.weight * (double if double is not None else float("-inf"))
    doubles = [False] * KEYS
    for k, sums in {**paired, **plain}.items():
        doubles[k] = sums[2] > max(sums[0], sums[1])
    return doubles


def _chart_ev(terms: PlayTerms, hand: _Start, hits: list[bool], doubles: list[bool]) -> float:
    """EV of a non-split, non-natural two-card hand played by the chart."""
    total, soft = two_card_hand(hand.first, hand.second)
    k = key(total, soft)
    stand, hit, double = _first_evs(terms, hand, hits)
    if double is not None and doubles[k]:
        return double
    return hit if hits[k] else stand


def _split_decisions(terms: PlayTerms, hands: list[_Start], hits: list[bool], doubles: list[bool]) -> dict[int, bool]:
    decisions: dict[int, bool] = {}
    if terms.max_hands < 2:
        return decisions
    for hand in hands:
        if not hand.pair:
            continue
        split = hand.situation.split(hand.first, doubles)
        decisions[hand.first] = split > _chart_ev(terms, hand, hits, doubles)
    return decisions


def _played(terms: PlayTerms, hands: list[_Start], hits: list[bool], doubles: list[bool],
            splits: dict[int, bool]) -> list[surrender.Played]:
    """Each starting hand with its value played by the chart (before any surrender)."""
    played = []
    for hand in hands:
        situation = hand.situation
        if hand.natural:
            value = situation.natural()
        elif hand.pair and splits.get(hand.first, False):
            value = situation.split(hand.first, doubles)
        else:
            value = _chart_ev(terms, hand, hits, doubles)
        played.append(surrender.Played(key(*two_card_hand(hand.first, hand.second)),
                                       hand.first if hand.pair else None, hand.weight, value, hand.natural))
    return played


def _expected_return(terms: PlayTerms, hands: list[_Start], values: list[float]) -> float:
    ev = 0.0
    for hand, value in zip(hands, values, strict=True):
        situation = hand.situation
        if terms.peek and situation.up in (1, 10):
            # The bank checked: with blackjack it takes one stake (pushes a natural).
            chance = situation.bank_blackjack
            value = chance * (0.0 if hand.natural else -1.0) + (1.0 - chance) * value
        ev += hand.weight * value
    return ev
