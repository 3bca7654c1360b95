"""What comes out of the round: events and alarms (frozen, past tense).

Events are derived from inputs; the journal stores them beside the inputs so
the feed, the display and recall can read them without replaying.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_runtime.game.cards import Card


@dataclass(frozen=True, slots=True, kw_only=True)
class Alarm:
    """A dealer error, a device fault or a rule breach: shown, journaled, published; never an exception.

    `amounts` holds the money involved, in cents, by name (e.g. expected_cents, seen_cents). `count`: how many
    of the same alarm this one stands for (refused chips of one kind joining a zone together).
    """

    kind: str
    message: str
    rule: str
    box: int | None = None
    amounts: tuple[tuple[str, int], ...] = ()
    count: int = 1
    reason: str = ""  # a refused command's reason code (game/refusals.py RefusalReason), else empty


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeStarted:
    shoe_id: str
    burn_cards: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardBurned:
    card: Card
    burns_left: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CutCardSeen:
    """Finish this round, then a new shoe."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundStarted:
    round: int
    boxes: tuple[int, ...]
    total_cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardAssigned:
    """A card went to `target`: ``boxN.handK`` or ``bank``."""

    card: Card
    target: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CardHeld:
    """A card out of the shoe that no hand takes now; the dealer assigns it (UNDO, NEXT...) or discards it."""

    card: Card
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDiscarded:
    cards: tuple[Card, ...]
    by: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PhaseChanged:
    phase: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnChanged:
    box: int | None
    hand: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class InsuranceTaken:
    box: int
    cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandStood:
    box: int
    hand: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandDoubled:
    box: int
    hand: int
    added_cents: int
    behind_declined: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class HandSplit:
    box: int
    hand: int
    new_hand: int
    added_cents: int
    behind_declined: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionUndone:
    """UNDO took back `action` (card, stand, double or split) at `target`."""

    action: str
    target: str
    card: Card | None
    by: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Payout:
    """One stake's result. `net_cents` > 0 is paid to the player, < 0 collected, 0 pushed."""

    box: int
    hand: int
    owner: str
    kind: str  # original | double | split | insurance
    staked_cents: int
    outcome: str  # blackjack | win | charlie | push | lose | bust | insurance_win | insurance_lose
    net_cents: int
    note: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class BlackjackPaidEarly:
    """A blackjack paid at once (house option pay_blackjack_before_bank) because the bank's card is not an ace.

    `staked_cents` is what the hand's stakes hold (seated and behind), `cents` what is paid on them now (3:2,
    rounded as settlement rounds it): the payouts of that hand at settlement say the same."""

    box: int
    hand: int
    staked_cents: int
    cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundSettled:
    round: int
    bank_total: int
    bank_blackjack: bool
    payouts: tuple[Payout, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class HyperFieldSettled:
    """55-4 6°: the bank's final result, named once (``17`` ... ``21``, ``blackjack``, ``bust``), settles the hyper
    black jack field; its stakes' payouts are in the RoundSettled that follows (kind ``hyper.<case>``)."""

    round: int
    result: str
    staked_cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundClosed:
    round: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundVoided:
    round: int
    by: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HandSurrendered:
    """A hand surrendered (« abandon », 55-4 1° as amended on 6 May 2020), settled at once: of `staked_cents` (its
    stakes, seated and behind) `returned_cents` go back to the players (half of each stake, a half cent rounded
    down), the rest is collected. The hand's payouts in RoundSettled say the same amounts."""

    box: int
    hand: int
    staked_cents: int
    returned_cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BuyInRecorded:
    """The dealer exchanged chips for `cents` of cash or a marker (`tender`) at the table: the table's drop,
    never a stake (table_runtime/core/buy_ins.py). `box` and `player` say whom for, when the dealer said."""

    cents: int
    tender: str
    box: int | None
    player: str
    by: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SeanceUpdated:
    """A step of the séance (table_runtime/core/seance.py): `action` (opened, fill_requested, fill_confirmed,
    credit_requested, credit_confirmed, buy_in, tip, orphan_chips, identity_recorded, closed), its `cents`, and the
    séance's figures after it; `closer_cents` and `win_cents` are null until the close."""

    action: str
    seance: int
    cents: int
    slip: int | None
    box: int | None
    opener_cents: int
    fills_cents: int
    credits_cents: int
    drop_cash_cents: int
    drop_marker_cents: int
    tips_cents: int
    orphans_cents: int
    closer_cents: int | None
    win_cents: int | None
    players_net_cents: int


Event = (
    Alarm | ShoeStarted | CardBurned | CutCardSeen | RoundStarted | CardAssigned | CardHeld | CardsDiscarded
    | PhaseChanged | TurnChanged | InsuranceTaken | HandStood | HandDoubled | HandSplit | ActionUndone
    | BlackjackPaidEarly | RoundSettled | RoundClosed | RoundVoided | HyperFieldSettled
    | HandSurrendered
    | BuyInRecorded
    | SeanceUpdated
)
