"""Surrender (« abandon », art. 55-4 1° as amended on 6 May 2020), without a hole card.

The player may give up the first two cards of an unsplit hand, « sous réserve que le croupier n'ait pas
d'as », and takes back half the stake: the hand is worth exactly -0.5, whatever the bank then makes. With
no hole card the choice comes before the bank's second card, so it is weighed against the hand's EV *with*
the bank's blackjack still to come (it takes the whole stake of a hand that stayed): more hands give up
against a ten than in the American late surrender, where the bank has already checked. Against an ace the
option is not offered. The solver knows each starting hand's value under the chart (best of stand, hit,
double, and split for a pair); this module chooses where -0.5 is better.

- Non-pair hands: per two-card total and up card, the hands of that total weighed by their chance, as
  the chart decides doubles (one letter per cell).
- Pairs: per pair value and up card, against the pair's best play (split included).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

SURRENDER_EV: Final = -0.5  # half the stake back (55-4 1°)
NO_SURRENDER_UP: Final = 1  # not offered while the bank's card is an ace


@dataclass(frozen=True, slots=True)
class Played:
    """A starting hand as the solver values it for one up card."""

    key: int  # total + 32 * soft (the chart's row)
    pair: int | None  # the pair's value when the rules let it split, else None
    weight: float  # its chance given the up card
    value: float  # its EV per initial stake, played by the chart (no surrender)
    natural: bool


@dataclass(frozen=True, slots=True)
class Surrenders:
    """One up card's surrender choices: by row key for non-pair hands, by pair value for pairs."""

    keys: frozenset[int]
    pairs: frozenset[int]

    def gives_up(self, hand: Played) -> bool:
        if hand.natural:
            return False
        if hand.pair is not None:
            return hand.pair in self.pairs
        return hand.key in self.keys


NEVER: Final = Surrenders(frozenset(), frozenset())


def choose(up: int, hands: list[Played], offered: bool) -> Surrenders:
    """Where surrender beats the chart's play against `up` (nowhere when not `offered`, or `up` an ace)."""
    if not offered or up == NO_SURRENDER_UP:
        return NEVER
    sums: dict[int, list[float]] = {}
    pairs = set()
    for hand in hands:
        if hand.natural:
            continue
        if hand.pair is not None:
            if hand.value < SURRENDER_EV:
                pairs.add(hand.pair)
            continue
        weighted = sums.setdefault(hand.key, [0.0, 0.0])
        weighted[0] += hand.weight * hand.value
        weighted[1] += hand.weight
    keys = frozenset(k for k, (value, weight) in sums.items() if value < SURRENDER_EV * weight)
    return Surrenders(keys, frozenset(pairs))


def expected(hands: list[Played], surrenders: Surrenders) -> list[float]:
    """Each hand's value once it surrenders where `surrenders` says."""
    return [SURRENDER_EV if surrenders.gives_up(hand) else hand.value for hand in hands]
