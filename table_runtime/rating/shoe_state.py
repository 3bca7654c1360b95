"""The shoe as a counter and as the table see it: Hi-Lo running and true count, and the exact cards left.

A fold over the table's events (`ShoeStarted`, `CardBurned`, `CardAssigned`, `CardsDiscarded`, and
`ActionUndone` of a card, which the round holds and assigns again): pure, one
`apply` per event, so the journal's fold can feed it later. Two views of the same shoe:

- what a counter at the table sees: every card turned face up (assigned to a hand or the bank, or
  discarded), not the burn cards. The Hi-Lo running count tags 2-6 as +1, 7-9 as 0, ten-valued and aces as
  -1; the true count divides it by the decks not yet seen (burns included: a counter cannot see them), the
  cards left in the shoe plus the burns, over 52.
- what the table knows: the burn cards too (the shoe reads them), so the composition left is exact.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from table_runtime.game.cards import Card
from table_runtime.game.events import ActionUndone, CardAssigned, CardBurned, CardsDiscarded, Event, ShoeStarted
from table_runtime.strategy.composition import Composition, full_shoe

# Hi-Lo tag by blackjack value (index 0 unused, 1 = ace).
HI_LO: Final = (0, -1, 1, 1, 1, 1, 1, 0, 0, 0, -1)


def hi_lo(card: Card) -> int:
    """The Hi-Lo tag of a card: +1 for 2-6, 0 for 7-9, -1 for ten-valued cards and aces."""
    return HI_LO[card.value]


class ShoeState:
    """The current shoe: cards seen face up, cards burned, the running count (owns nothing else)."""

    __slots__ = ("burned", "decks", "left", "running_count", "seen")

    def __init__(self, decks: int) -> None:
        self.decks = decks
        self.left = list(full_shoe(decks))  # by value index (0 = aces, 9 = ten-valued): not yet out of the shoe
        self.running_count = 0
        self.seen = 0  # cards turned face up since the shuffle
        self.burned = 0

    def apply(self, event: Event) -> None:
        """Fold one table event; events that move no card change nothing."""
        if isinstance(event, CardAssigned):
            self._face_up(event.card)
        elif isinstance(event, CardBurned):
            self.left[event.card.value - 1] -= 1
            self.burned += 1
        elif isinstance(event, CardsDiscarded):
            for card in event.cards:
                self._face_up(card)
        elif isinstance(event, ActionUndone) and event.card is not None:
            self._face_up(event.card, -1)  # held again: counted when it is assigned again
        elif isinstance(event, ShoeStarted):
            self.left = list(full_shoe(self.decks))
            self.running_count = self.seen = self.burned = 0

    def apply_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.apply(event)

    def _face_up(self, card: Card, times: int = 1) -> None:
        self.left[card.value - 1] -= times
        self.running_count += times * HI_LO[card.value]
        self.seen += times

    @property
    def cards_left(self) -> int:
        return sum(self.left)

    @property
    def unseen_decks(self) -> float:
        """Decks a counter has not seen: the cards left in the shoe and the burns, over 52."""
        return (self.decks * 52 - self.seen) / 52

    @property
    def true_count(self) -> float:
        """Running count per unseen deck (0 when nothing is left to see)."""
        unseen = self.unseen_decks
        return self.running_count / unseen if unseen > 0 else 0.0

    @property
    def composition(self) -> Composition:
        """The exact cards left in the shoe by value (burns removed: the table read them)."""
        return tuple(self.left)

    @property
    def bank_blackjack_chance(self) -> float:
        """The chance that the bank's two cards are an ace and a ten-valued card, from the cards left.

        The bank's cards are two cards off the shoe the players have not seen yet: by symmetry any two of
        the cards left, so 2 A T / (N (N - 1)) (what the hyper black jack BLACK JACK case is decided by).
        """
        aces, tens, total = self.left[0], self.left[9], sum(self.left)
        return 2 * aces * tens / (total * (total - 1)) if total > 1 else 0.0
