"""What the bank draws (docs/rules.md "The bank"; art. 55-4 « Déroulement de la partie »): how far, whether it
needs a card, why it stands.

No hole card: the bank's second card comes after the boxes have played. It
draws to 17 when a hand is still in play, only its second card when all that
is left is a blackjack waiting for it or an insurance, and nothing when every
stake is already decided (busted, paid at once, ten-card charlie, surrendered).
"""

from __future__ import annotations

from typing import Final

from table_runtime.game.box import BoxState
from table_runtime.game.hand import Hand

NO_CARD: Final = 0
SECOND_CARD: Final = 2
TO_17: Final = 17


def bank_draw_target(hands: list[Hand], boxes: list[BoxState], paid_early: set[int], charlie: bool,
                     *, hyper: bool = False) -> int:
    """NO_CARD, SECOND_CARD or TO_17 for the bank of `hands` (in play order) once they are all finished.

    `paid_early` holds the id() of hands whose blackjack was paid at once (pay_blackjack_before_bank); an insurance of
    one of the
    `boxes` needs the bank's second card to be settled. `hyper`: stakes lie on the hyper black jack field, which
    the bank's final result settles (55-4 6°): the bank completes its hand even when every box is decided."""
    if hyper:
        return TO_17
    waiting = False
    for hand in hands:
        if hand.busted or hand.surrendered or hand.charlie(charlie):
            continue
        if hand.blackjack:
            waiting = waiting or id(hand) not in paid_early
            continue
        return TO_17
    if waiting or any(box.insurance for box in boxes):
        return SECOND_CARD
    return NO_CARD


def bank_needs_card(bank: Hand, target: int, hits_soft_17: bool) -> bool:
    """Whether the bank, aiming at `target`, must take another card."""
    if target == NO_CARD:
        return False
    if len(bank.cards) < 2:
        return True
    if target == SECOND_CARD:
        return False
    total = bank.total
    if total < 17:
        return True  # art. 55-4 « Déroulement de la partie »
    return total == 17 and hits_soft_17 and bank.soft  # art. 55-4 « Déroulement de la partie » NOTA: stands by default


def why_bank_stands(bank: Hand) -> str:
    """The end of 'the bank, which ...' for a card drawn when the bank may not take one."""
    if bank.busted:
        return "has busted"
    if len(bank.cards) < 2:
        return "draws no card: no stake is left to compare"
    return f"must stand on {bank.total}"
