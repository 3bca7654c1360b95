"""What the shoe tells the table, as the runtime sees it: frozen, keyword-only events.

Events the shoe itself sends (docs/protocols/shoe.md §4) carry the shoe's
`sequence` number. The driver adds its own events about the link:
`ShoeOnline`, `ShoeOffline` and `MissedCards`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

SCHEMA_VERSION = 1

# The card vocabulary of the protocol (docs/protocols/shoe.md §4, CARD_DRAWN): one ASCII byte each.
CARD_RANKS = "A23456789TJQK"
CARD_SUITS = "SHDC"  # spades, hearts, diamonds, clubs


def is_card_code(code: str) -> bool:
    """True for a two-letter card code the shoe can send: a rank of CARD_RANKS then a suit of CARD_SUITS."""
    return len(code) == 2 and code[0] in CARD_RANKS and code[1] in CARD_SUITS


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeEvent:
    """Base of every shoe event."""

    schema_version: ClassVar[int] = SCHEMA_VERSION


@dataclass(frozen=True, slots=True, kw_only=True)
class SequencedShoeEvent(ShoeEvent):
    """An event sent by the shoe: `sequence` is its sequence number (§3, modulo 65536)."""

    sequence: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDrawn(SequencedShoeEvent):
    """A card left the shoe. `card_number` counts cards since the shuffle, from 1.

    `code` is the card as the shoe read it, rank then suit (``AS``, ``TD``: the
    code the journal writes); the runtime turns it into the game's `Card`.
    """

    code: str
    card_number: int
    raw_code: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeShuffled(SequencedShoeEvent):
    """A new shoe was loaded (shuffled, or a prearranged stack): the next card is its first."""

    shoe_id: int
    decks: int
    cards: int
    cut_position: int  # cards that leave before the cut card
    stacked: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class CutCardReached(SequencedShoeEvent):
    """The cut card came out: this round is the last of the shoe."""

    shoe_id: int
    card_number: int


@dataclass(frozen=True, slots=True, kw_only=True)
class UnreadableCard(SequencedShoeEvent):
    """A card left the shoe but could not be read; the dealer must enter it."""

    card_number: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DoorOpened(SequencedShoeEvent):
    """The shoe's door (lid) was opened."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DoorClosed(SequencedShoeEvent):
    """The shoe's door (lid) was closed."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Jam(SequencedShoeEvent):
    """A card is stuck in the exit."""


@dataclass(frozen=True, slots=True, kw_only=True)
class JamCleared(SequencedShoeEvent):
    """The stuck card was cleared."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GateChanged(SequencedShoeEvent):
    """The card gate was locked (no card can leave) or unlocked, on the host's command."""

    locked: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class BufferGateChanged(ShoeEvent):
    """The shoe locked its card gate because its resend buffer is full (`locked`), or unlocked it once the host's
    acknowledgements freed room (docs/protocols/shoe.md §3, "A full buffer locks the gate"; version 2).

    Not sequenced: it must reach the host while the events before it cannot be taken (that is why the buffer
    filled), so it is a status the shoe repeats, not an event the host acknowledges. `held`: the events the
    shoe holds unacknowledged; `capacity`: how many its buffer holds.
    """

    locked: bool
    held: int
    capacity: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeIdentity:
    """Who the shoe says it is in HELLO (§4)."""

    protocol_version: int
    firmware_version: str
    serial_number: str
    boot_id: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeOnline(ShoeEvent):
    """The link is up and the shoe identified itself; `shoe_id`/`cards_drawn` describe its current shoe."""

    identity: ShoeIdentity
    shoe_id: int
    cards_drawn: int
    device: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeOffline(ShoeEvent):
    """The shoe cannot be heard (unplugged, silent, unopenable): an alarm; the round waits."""

    reason: str
    device: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MissedCards(ShoeEvent):
    """Events the shoe sent were lost for good (§3): `count` events from sequence `first_sequence`.

    They may have been cards: the round cannot trust its cards and must be checked.
    """

    first_sequence: int
    count: int
