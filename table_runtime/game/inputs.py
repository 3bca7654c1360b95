"""What goes into the round: device readings and dealer commands.

These are the facts the journal records before they take effect; the state of
the table is `replay(inputs)`. Frozen, slotted, keyword-only, past tense for
facts (`CardDrawn`), imperative names for the dealer's buttons (`Next`).
"""

from __future__ import annotations

from dataclasses import dataclass

from table_runtime.game.cards import Card

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class BehindBet:
    """A stake of a player standing behind a box (art. 55-4, « les joueurs debout »): undergoes every decision of the
    seated player."""

    owner: str
    cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BoxBet:
    """The locked stake on one box: the seated player's and those of the players behind."""

    box: int
    seated_cents: int
    owner: str = ""
    behind: tuple[BehindBet, ...] = ()

    @property
    def total_cents(self) -> int:
        total = self.seated_cents
        for bet in self.behind:  # usually none: a loop costs less than sum() over a generator
            total += bet.cents
        return total


@dataclass(frozen=True, slots=True, kw_only=True)
class HyperBet:
    """A stake on one case of the hyper black jack field (55-4 6°), as the dealer assigned it to a box's player:
    `owner` is the box's seated player (``box3``) or a player behind it (``box3.behind``)."""

    case: str
    box: int
    cents: int
    owner: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeShuffled:
    """A new shoe is loaded and shuffled; the next `burn_cards` cards are burned."""

    shoe_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CutCardReached:
    """The cut card came out: this round finishes, then a new shoe (house option cut_card_depth)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BetsLocked:
    """No more bets: the stakes of every box in play, and those on the hyper black jack field (none in a journal
    written before it, or where the field is not open)."""

    bets: tuple[BoxBet, ...]
    hyper: tuple[HyperBet, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDrawn:
    """A card left the shoe (read by the shoe, or entered by hand when unreadable)."""

    card: Card
    manual: bool = False
    by: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class InsurancePlaced:
    """Chips on the insurance line of a box (art. 55-4 « Assurance »): must be half the seated stake."""

    box: int
    cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Next:
    """NEXT: the current hand stands."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Double:
    """DOUBLE on the current hand; `behind_following` names the behind players who match it."""

    behind_following: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Split:
    """SPLIT the current pair; `behind_following` names the behind players who match it."""

    behind_following: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Undo:
    """UNDO the dealer's last action: a card goes back to the held cards, a stand or double is taken back."""

    by: str = "dealer"


@dataclass(frozen=True, slots=True, kw_only=True)
class Confirm:
    """CONFIRM: closes the insurance window, or closes a settled round."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Void:
    """A supervisor voids the round as a misdeal: no payouts."""

    by: str = "supervisor"
    reason: str = "misdeal"


@dataclass(frozen=True, slots=True, kw_only=True)
class Discard:
    """The held cards (that no hand may take) are put to the discard rack."""

    by: str = "dealer"


@dataclass(frozen=True, slots=True, kw_only=True)
class Surrender:
    """SURRENDER (« abandon », 55-4 1° as amended on 6 May 2020): the current hand gives up its first two cards
    for half its stake back; the players behind undergo it with the seated player (art. 55-4, « les
    joueurs debout »)."""


Input = (
    ShoeShuffled | CutCardReached | BetsLocked | CardDrawn | InsurancePlaced
    | Next | Double | Split | Undo | Confirm | Void | Discard
    | Surrender
)

INPUT_TYPES: dict[str, type[Input]] = {
    cls.__name__: cls
    for cls in (ShoeShuffled, CutCardReached, BetsLocked, CardDrawn, InsurancePlaced,
                Next, Double, Split, Undo, Confirm, Void, Discard,
                Surrender)
}
