"""Shoe accounting: burns after a shuffle, the cut card, and a count per rank-suit.

A card seen more often than the shoe holds (a seventh ace of spades in six
decks) is refused here and becomes an alarm upstream: it is never played.
"""

from __future__ import annotations

from table_runtime.game.cards import Card


def shoe_id_of(number: int) -> str:
    """The id the table gives the shoe the firmware numbers `number` (``S12``)."""
    return f"S{number}"


def shoe_number_of(shoe_id: str) -> int:
    """The firmware's shoe number in an id made by `shoe_id_of`; 0 for anything else."""
    return int(shoe_id[1:]) if shoe_id[:1] == "S" and shoe_id[1:].isdigit() else 0


class ShoeAccount:
    """What has come out of the current shoe."""

    __slots__ = ("burns_left", "counts", "cut_card_reached", "dealt", "decks", "loaded", "rounds", "shoe_id")

    def __init__(self, decks: int) -> None:
        self.decks = decks
        self.shoe_id = ""
        self.loaded = False
        self.counts = [0] * 52
        self.dealt = 0
        self.burns_left = 0
        self.cut_card_reached = False
        self.rounds = 0

    def start(self, shoe_id: str, burn_cards: int) -> None:
        self.shoe_id = shoe_id
        self.loaded = True
        self.counts = [0] * 52
        self.dealt = 0
        self.burns_left = burn_cards
        self.cut_card_reached = False
        self.rounds = 0

    def take(self, card: Card) -> bool:
        """Count `card` out of the shoe; False when the shoe cannot hold another one."""
        counts = self.counts
        if counts[card.index] >= self.decks:
            return False
        counts[card.index] += 1
        self.dealt += 1
        return True

    def seen(self, card: Card) -> int:
        return self.counts[card.index]

    @property
    def cards_left(self) -> int:
        return self.decks * 52 - self.dealt
