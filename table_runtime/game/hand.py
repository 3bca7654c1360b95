"""A hand of cards with its stakes: totals, soft/hard, blackjack, and whether it is finished.

Totals are kept incrementally (`hard` counts aces as 1) so adding a card costs
two additions; an ace counts 11 whenever that does not go over 21 (art. 55-4, the values).
"""

from __future__ import annotations

from dataclasses import dataclass

from table_runtime.game.cards import Card


@dataclass(frozen=True, slots=True)
class Stake:
    """Money on a hand: whose, how much, and why it is there."""

    owner: str
    cents: int
    kind: str  # original | double | split


class Hand:
    """Cards and stakes of one hand of a box (a box holds several after a split)."""

    __slots__ = ("aces", "box", "cards", "doubled", "from_split", "hard", "index", "name", "split_aces", "stakes",
                 "stood", "surrendered")

    def __init__(self, box: int, stakes: list[Stake], *, from_split: bool = False, split_aces: bool = False) -> None:
        self.box = box
        self.cards: list[Card] = []
        self.stakes = stakes
        self.hard = 0
        self.aces = 0
        self.doubled = False
        self.stood = False
        self.from_split = from_split
        self.split_aces = split_aces
        self.surrendered = False  # given up for half the stake (55-4 1° as amended in 2020; game/surrender.py)
        self.index = 0  # position among its box's hands; the round keeps it (and `name`) up to date
        self.name = f"box{box}.hand0" if box else "bank"

    def add(self, card: Card) -> None:
        self.cards.append(card)
        self.hard += card.value
        if card.value == 1:
            self.aces += 1

    def pop(self) -> Card:
        card = self.cards.pop()
        self.hard -= card.value
        if card.value == 1:
            self.aces -= 1
        return card

    @property
    def total(self) -> int:
        if self.aces and self.hard <= 11:
            return self.hard + 10
        return self.hard

    @property
    def soft(self) -> bool:
        return self.aces > 0 and self.hard <= 11

    @property
    def busted(self) -> bool:
        return self.hard > 21

    @property
    def blackjack(self) -> bool:
        """Ace and ten as the first two cards of an unsplit hand (art. 55-4 « Paiements », « Les paires »)."""
        return len(self.cards) == 2 and not self.from_split and self.hard == 11 and self.aces == 1

    def charlie(self, enabled: bool) -> bool:
        """Ten cards not over 21 (house option ten_card_charlie), when the option is on."""
        return enabled and len(self.cards) >= 10 and self.hard <= 21

    def finished(self, charlie: bool) -> bool:
        """No card may go to this hand any more."""
        count = len(self.cards)
        if count < 2:
            return False
        return (
            self.stood
            or self.surrendered
            or self.hard > 21
            or (self.hard <= 11 and self.aces > 0 and self.hard + 10 == 21)
            or self.hard == 21
            or (self.doubled and count >= 3)
            or self.split_aces
            or (charlie and count >= 10)
        )

    def stake_total(self) -> int:
        return sum(stake.cents for stake in self.stakes)

    def base_stakes(self) -> list[Stake]:
        """Each owner's base stake on this hand (what a double or split must match); the seated one first."""
        return [stake for stake in self.stakes if stake.kind != "double"]

    def status(self, charlie: bool) -> str:
        if len(self.cards) < 2:
            return "waiting"
        if self.busted:
            return "busted"
        if self.surrendered:
            return "surrendered"
        if self.blackjack:
            return "blackjack"
        if self.charlie(charlie):
            return "charlie"
        if self.doubled:
            return "doubled"
        if self.total == 21:
            return "twenty_one"
        if self.stood:
            return "stood"
        if self.split_aces:
            return "done"
        return "playing"
