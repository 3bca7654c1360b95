"""Cards as the shoe reports them: rank, suit and the blackjack value.

All 52 cards are created once; `Card.parse` and `card_of` return the shared
instances, so a shoe of 312 cards is a list of references and nothing is
allocated per draw.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_runtime.errors import CardCodeError

RANKS = "A23456789TJQK"
SUITS = "SHDC"  # spades, hearts, diamonds, clubs
TEN_RANKS = frozenset("TJQK")


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card. `rank` is one of RANKS, `suit` one of SUITS."""

    rank: str
    suit: str
    value: int  # 2..10, an ace is 1 (hands count it 11 when that helps)
    index: int  # 0..51, position in ALL_CARDS: a cheap key for per-card counts

    @property
    def code(self) -> str:
        """Two-letter code, e.g. ``AS`` (ace of spades), ``TH`` (ten of hearts)."""
        return self.rank + self.suit

    @property
    def is_ace(self) -> bool:
        return self.value == 1

    @property
    def is_ten_valued(self) -> bool:
        return self.value == 10

    def __str__(self) -> str:
        return self.code

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``AS``, ``10h``, ``kd``: rank then suit, case-insensitive."""
        cleaned = text.strip().upper()
        if cleaned.startswith("10"):
            cleaned = "T" + cleaned[2:]
        if len(cleaned) != 2 or cleaned[0] not in RANKS or cleaned[1] not in SUITS:
            raise CardCodeError(f"not a card: {text!r} (expected rank {RANKS} then suit {SUITS}, e.g. 'AS')")
        return _CARDS[cleaned]


def _value(rank: str) -> int:
    if rank == "A":
        return 1
    if rank in TEN_RANKS:
        return 10
    return int(rank)


_CARDS: dict[str, Card] = {
    r + s: Card(r, s, _value(r), i) for i, (r, s) in enumerate((r, s) for r in RANKS for s in SUITS)
}
ALL_CARDS: tuple[Card, ...] = tuple(_CARDS.values())


def card_of(rank: str, suit: str) -> Card:
    """The shared instance for a rank and suit."""
    try:
        return _CARDS[rank + suit]
    except KeyError:
        raise CardCodeError(f"not a card: rank {rank!r} suit {suit!r}") from None


def parse_cards(text: str) -> list[Card]:
    """Parse a whitespace- or comma-separated list of card codes."""
    return [Card.parse(part) for part in text.replace(",", " ").split()]


def new_shoe(decks: int) -> list[Card]:
    """An unshuffled shoe of `decks` full decks."""
    return [card for _ in range(decks) for card in ALL_CARDS]
