"""Held cards: every card out of the shoe that no hand took, with the reason, in one list the table owns.

A card is held when no hand may take it as it comes out: before a shoe is
loaded (no_shoe), with no bets locked (no_bets), one more than the shoe holds
(overcount), while the insurance window is open (insurance_open), for a bank
that must stand (bank_must_stand); and a card UNDO took off a hand (undo).
Cards held between rounds come first, then the round's; a new round starts
with none of the last round's (a round only closes with none held).

Cards held for "undo" or "insurance_open" wait for the dealer's next decision
and then go where the next card goes; the others wait for DISCARD, or for
UNDO when nothing happened since they were held (docs/rules.md "Corrections and
recall").
"""

from __future__ import annotations

from typing import Final

from table_runtime.game.cards import Card
from table_runtime.game.events import Alarm, CardHeld, Event

UNDONE: Final = "undo"
INSURANCE_OPEN: Final = "insurance_open"
WAITING_REASONS: Final = frozenset((UNDONE, INSURANCE_OPEN))
"""Held for these, a card goes to the next hand that may take one; for the others it waits for DISCARD."""


class HeldCards:
    """The table's held cards: (card, reason, mark) in order, those held between rounds first.

    `mark` is how many actions the round's undo log held when the card was held (-1 between rounds and for
    cards that wait): while the log is that long again, the card is the newest thing that happened."""

    __slots__ = ("cards", "loose")

    def __init__(self) -> None:
        self.cards: list[tuple[Card, str, int]] = []
        self.loose = 0  # how many of `cards`, at the front, were held with no round in play

    @property
    def codes(self) -> list[str]:
        return [card.code for card, _, _ in self.cards]

    @property
    def between_rounds(self) -> list[tuple[Card, str]]:
        return [(card, reason) for card, reason, _ in self.cards[:self.loose]]

    @property
    def of_round(self) -> list[tuple[Card, str]]:
        return [(card, reason) for card, reason, _ in self.cards[self.loose:]]

    @property
    def round_holds(self) -> bool:
        """Whether the round in play holds a card."""
        return len(self.cards) > self.loose

    def hold(self, card: Card, reason: str, alarm: Alarm, out: list[Event], mark: int) -> None:
        """Hold `card` for the round (mark >= 0: the length of its undo log), with the alarm that says why."""
        self.cards.append((card, reason, -1 if reason in WAITING_REASONS else mark))
        out.append(alarm)
        out.append(CardHeld(card=card, reason=reason))

    def hold_between_rounds(self, card: Card, reason: str, alarm: Alarm, out: list[Event]) -> None:
        self.cards.insert(self.loose, (card, reason, -1))
        self.loose += 1
        out.append(alarm)
        out.append(CardHeld(card=card, reason=reason))

    def hold_undone(self, card: Card) -> None:
        """A card UNDO took off a hand: first of the round's, so it goes back before any other waiting card."""
        self.cards.insert(self.loose, (card, UNDONE, -1))

    def next_waiting(self) -> Card | None:
        """The round's first held card if it waits for the next decision."""
        cards = self.cards
        if len(cards) > self.loose and cards[self.loose][1] in WAITING_REASONS:
            return cards[self.loose][0]
        return None

    def take_waiting(self) -> Card:
        """Remove and return the card `next_waiting` named."""
        return self.cards.pop(self.loose)[0]

    def newest_since(self, mark: int) -> tuple[Card, str] | None:
        """The round's newest card waiting for DISCARD, if nothing was done since it was held (the undo log
        has `mark` actions, as it had then)."""
        if len(self.cards) > self.loose:
            card, reason, held_at = self.cards[-1]
            if held_at == mark:
                return card, reason
        return None

    def take_newest(self) -> Card:
        return self.cards.pop()[0]

    def discard_round(self) -> tuple[Card, ...]:
        """The round's held cards, no longer held."""
        cards = tuple(card for card, _, _ in self.cards[self.loose:])
        del self.cards[self.loose:]
        return cards

    def discard_between_rounds(self) -> tuple[Card, ...]:
        cards = tuple(card for card, _, _ in self.cards[:self.loose])
        del self.cards[:self.loose]
        self.loose = 0
        return cards

    def new_round(self) -> None:
        """A round starts: the last round's held cards (it was voided with them) are no longer shown."""
        if len(self.cards) > self.loose:
            del self.cards[self.loose:]
