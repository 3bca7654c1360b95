"""The expected value of the next round for a basic-strategy player, from the exact cards left.

`exact_edge`: the solver's own method (strategy/solver.py, strategy/situation.py) applied to the current
composition with the chart held fixed: the chance of each bank up card and each two-card player hand is
exact for the cards left; for each of them the bank's final totals are exact for the cards left less those
three cards; the player's later cards come from that same composition (the solver's total-dependent
approximation); the chart is the full-shoe basic strategy of the rules (the player does not re-solve:
he plays his chart). No insurance. Per initial stake. About 0.13 s of CPU a round here (bench/rating).

`quick_edge`: the same, with one bank distribution per up card (the cards left less the up card only):
the player's own two cards are not removed from the bank's shoe. Fifteen times cheaper; its difference to
`exact_edge` is measured by the bench.

`LinearEdge`: the first-order (effects of removal) model fitted to `exact_edge`: the edge of a full shoe,
plus, per card value, the change that removing one card makes, scaled by the shoe's size over the cards
left. Microseconds a round: what the bench uses for a million rounds; its error against `exact_edge` is
measured and printed by the bench.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from table_runtime.strategy.chart import Action, Strategy
from table_runtime.strategy.composition import VALUES, Composition, full_shoe, two_card_hand, without
from table_runtime.strategy.situation import KEYS, Situation, key
from table_runtime.strategy.terms import PlayTerms


@dataclass(frozen=True, slots=True)
class _Chart:
    """One up card's column of the fixed chart, in the form `Situation` plays."""

    hits: tuple[bool, ...]
    doubles: tuple[bool, ...]
    splits: frozenset[int]


@cache
def _columns(strategy: Strategy) -> dict[int, _Chart]:
    columns = {}
    for up in VALUES:
        hits, doubles = [False] * KEYS, [False] * KEYS
        for total in range(2, 22):
            for soft in (False, True):
                if soft and total < 12:
                    continue
                k = key(total, soft)
                hits[k] = strategy.decide(total, soft, None, up, False, False) is Action.HIT
                doubles[k] = strategy.decide(total, soft, None, up, True, False) is Action.DOUBLE
        splits = frozenset(pair for pair in VALUES if strategy.splits(pair, up))
        columns[up] = _Chart(tuple(hits), tuple(doubles), splits)
    return columns


def _hand_ev(terms: PlayTerms, situation: Situation, chart: _Chart, first: int, second: int) -> float:
    """EV per initial stake of a two-card hand played by the chart (as the solver's `_expected_return`)."""
    if {first, second} == {1, 10} and first != second:
        return situation.natural()
    if first == second and first in chart.splits and terms.max_hands >= 2:
        return situation.split(first, chart.doubles)
    total, soft = two_card_hand(first, second)
    k = key(total, soft)
    if chart.doubles[k] and terms.may_double(total, soft):
        return situation.doubled(total, soft, 2.0 if terms.bank_blackjack_takes_all else 1.0)
    if chart.hits[k]:
        return situation.hit_then_follow(total, soft, 2, 1.0)
    return situation.standing(total)


def _edge(counts: Composition, strategy: Strategy, *, per_hand_bank: bool) -> float:
    terms = strategy.terms
    columns = _columns(strategy)
    cards = sum(counts)
    if cards < 12:
        raise ValueError(f"{cards} cards left: too few for a round")
    ev = 0.0
    for up in VALUES:
        if not counts[up - 1]:
            continue
        p_up = counts[up - 1] / cards
        shoe = without(counts, up)
        left = cards - 1
        chart = columns[up]
        shared = None if per_hand_bank else Situation(terms, shoe, up)
        if shared is not None:
            shared.use_chart(chart.hits)
        for first in VALUES:
            for second in VALUES:
                if second < first:
                    continue
                if first == second:
                    weight = shoe[first - 1] * (shoe[first - 1] - 1) / (left * (left - 1))
                else:
                    weight = 2 * shoe[first - 1] * shoe[second - 1] / (left * (left - 1))
                if weight == 0.0:
                    continue
                situation = shared
                if situation is None:
                    situation = Situation(terms, without(shoe, first, second), up)
                    situation.use_chart(chart.hits)
                ev += p_up * weight * _hand_ev(terms, situation, chart, first, second)
    return ev


def exact_edge(counts: Composition, strategy: Strategy) -> float:
    """EV per initial stake of the next round for the fixed chart `strategy` from the cards left `counts`."""
    return _edge(counts, strategy, per_hand_bank=True)


def quick_edge(counts: Composition, strategy: Strategy) -> float:
    """`exact_edge` with one bank distribution per up card (the player's two cards left in the bank's shoe)."""
    return _edge(counts, strategy, per_hand_bank=False)


@dataclass(frozen=True, slots=True)
class LinearEdge:
    """The edge as a linear function of the cards left, fitted to `exact_edge` by removing cards of each value.

    `full`: the edge of a full shoe; `per_card[v - 1]`: the change of the edge when one card of value v
    leaves a full shoe of `shoe_cards` cards.
    """

    full: float
    per_card: tuple[float, ...]
    shoe_cards: int

    @classmethod
    def fitted(cls, strategy: Strategy, removed: int | None = None) -> LinearEdge:
        """Fit by removing `removed` cards (default: one a deck) of each value in turn from a full shoe."""
        decks = strategy.terms.decks
        count = removed if removed is not None else decks
        shoe = full_shoe(decks)
        base = exact_edge(shoe, strategy)
        per_card = []
        for value in VALUES:
            fewer = list(shoe)
            fewer[value - 1] -= count
            per_card.append((exact_edge(tuple(fewer), strategy) - base) / count)
        return cls(base, tuple(per_card), sum(shoe))

    def edge(self, counts: Composition) -> float:
        """The first-order edge of the cards left: each value's excess over its share, times its effect."""
        cards = sum(counts)
        if cards == 0:
            return self.full
        shoe = self.shoe_cards
        scale = shoe / cards
        change = 0.0
        for index, count in enumerate(counts):
            share = (16 if index == 9 else 4) / 52
            excess = count - cards * share  # more of this value left than its share: fewer removed
            change -= excess * self.per_card[index]
        return self.full + scale * change
