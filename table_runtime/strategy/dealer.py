"""The bank's final total, exactly, for a finite shoe (no hole card).

The bank shows one card, draws its second card after the players have played
and then draws to 17 (stands on soft 17, or hits it when the rules say so).
Its outcomes are 17, 18, 19, 20, 21 (not a blackjack), bust, and blackjack.

Exact depletion without a recursion per composition: the chance of drawing a
given ordered sequence of cards from a composition depends only on the
multiset of the cards drawn, prod(n_v falling m_v) / (N falling k).  So every
drawing sequence of the bank is enumerated once per up card, grouped by
(multiset, outcome) with the number of orderings, and a composition's
distribution is then a short weighted sum over those multisets.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache

from table_runtime.strategy.composition import Composition, add_card

# Outcome indices into a distribution.
OUTCOMES = ("17", "18", "19", "20", "21", "bust", "blackjack")
BUST = 5
BLACKJACK = 6

Distribution = tuple[float, float, float, float, float, float, float]

# (orderings, cards drawn, ((value index, count), ...), outcome)
_Path = tuple[int, int, tuple[tuple[int, int], ...], int]


@cache
def _paths(up: int, hits_soft_17: bool) -> tuple[_Path, ...]:
    grouped: defaultdict[tuple[tuple[int, ...], int], int] = defaultdict(int)
    drawn = [0] * 10

    def draw(total: int, soft: bool, cards: int) -> None:
        if cards == 2 and total == 21:
            grouped[tuple(drawn), BLACKJACK] += 1
        elif total > 21:
            grouped[tuple(drawn), BUST] += 1
        elif total >= 17 and not (hits_soft_17 and soft and total == 17):
            grouped[tuple(drawn), total - 17] += 1
        else:
            for value in range(1, 11):
                drawn[value - 1] += 1
                draw(*add_card(total, soft, value), cards + 1)
                drawn[value - 1] -= 1

    draw(11 if up == 1 else up, up == 1, 1)
    return tuple(
        (orderings, sum(multiset), tuple((index, count) for index, count in enumerate(multiset) if count), outcome)
        for (multiset, outcome), orderings in grouped.items()
    )


def bank_distribution(counts: Composition, up: int, hits_soft_17: bool) -> Distribution:
    """P(17), P(18), P(19), P(20), P(21), P(bust), P(blackjack) for this up card.

    `counts` is the shoe the bank draws from (the up card already removed).
    """
    longest = 12
    # falling[i][m] = n_i (n_i - 1) ... (n_i - m + 1)
    falling: list[list[float]] = []
    for count in counts:
        row = [1.0]
        for step in range(longest):
            row.append(row[-1] * max(count - step, 0))
        falling.append(row)
    remaining = sum(counts)
    inverse = [1.0]
    for step in range(longest):
        inverse.append(inverse[-1] / (remaining - step) if remaining > step else 0.0)
    totals = [0.0] * 7
    for orderings, cards, parts, outcome in _paths(up, hits_soft_17):
        chance = orderings * inverse[cards]
        for index, count in parts:
            chance *= falling[index][count]
        totals[outcome] += chance
    return (totals[0], totals[1], totals[2], totals[3], totals[4], totals[5], totals[6])


def without_blackjack(distribution: Distribution) -> Distribution:
    """The distribution given that the bank has no blackjack (the peek game)."""
    rest = 1.0 - distribution[BLACKJACK]
    d = [p / rest for p in distribution[:BLACKJACK]]
    return (d[0], d[1], d[2], d[3], d[4], d[5], 0.0)
