"""Shoe compositions by blackjack value and the arithmetic of adding a card.

A composition is a tuple of 10 counts: index 0 holds the aces, index 9 the
ten-valued cards (10, J, Q, K), index v-1 the cards of value v in between.
A hand is kept as (total, soft): `soft` when an ace counts 11.
"""

from __future__ import annotations

Composition = tuple[int, ...]

VALUES = range(1, 11)  # 1 is the ace


def full_shoe(decks: int) -> Composition:
    """The counts of a fresh shoe of `decks` decks."""
    return tuple(4 * decks if value < 10 else 16 * decks for value in VALUES)


def without(counts: Composition, *values: int) -> Composition:
    """The composition after the cards of these values left the shoe."""
    remaining = list(counts)
    for value in values:
        remaining[value - 1] -= 1
        if remaining[value - 1] < 0:
            raise ValueError(f"no card of value {value} left in {counts}")
    return tuple(remaining)


def add_card(total: int, soft: bool, value: int) -> tuple[int, bool]:
    """The hand after drawing a card of `value`; a total over 21 is a bust."""
    if soft:
        total += value
        if total > 21:
            return total - 10, False
        return total, True
    if value == 1 and total <= 10:
        return total + 11, True
    return total + value, False


def two_card_hand(first: int, second: int) -> tuple[int, bool]:
    """(total, soft) of a hand of two cards."""
    total, soft = add_card(first if first != 1 else 11, first == 1, second)
    return total, soft
