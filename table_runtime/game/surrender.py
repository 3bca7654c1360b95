"""Surrender (« abandon »): what the rules allow and what it pays; the round's transition is `Round._surrender`.

The arrêté of 14 May 2007 as amended on 6 May 2020 (art. 55-4 1°) lets a casino offer it (option `surrender`,
off by default, on in the `fr-2020` profile): the player gives up « de ses deux premières cartes et sous réserve
que le croupier n'ait pas d'as », taking back half of the initial stake. So: the first two cards of a hand as
dealt (not a split hand, not after a third card or a double), while the bank's one card is not an ace. The hand
is settled at once. The players behind undergo it with the seated player, as every decision (art. 55-4, « le
joueur debout subit l'intégralité des décisions et options prises par le joueur assis »): they cannot decline it.

Money (docs/rules.md "Money"): half of each stake goes back, in integer cents; half of an odd number of cents is a
half cent, rounded down (the house collects it, as insurance takes half a stake rounded down, art. 55-4 « Assurance »)
and the
payout's note says so, never silently. The table's chips are whole euros, so it only shows in tests.
"""

from __future__ import annotations

from typing import Final

from table_runtime.game import citations
from table_runtime.game.cards import Card
from table_runtime.game.hand import Hand
from table_runtime.game.refusals import Refusal, RefusalReason
from table_runtime.game.rules import RuleOptions

RULE: Final = citations.SURRENDER
OUTCOME: Final = "surrender"


def surrender_refusal(hand: Hand, rules: RuleOptions, bank_up: Card | None) -> Refusal | None:
    """Why `hand` may not surrender now (the bank's one card `bank_up`), or None."""
    if not rules.surrender:
        return Refusal(RefusalReason.SURRENDER_NOT_OFFERED,
                       "these rules offer no surrender (option surrender, 55-4 1° as amended in 2020)")
    if hand.from_split:
        return Refusal(RefusalReason.SURRENDER_AFTER_SPLIT,
                       "a split hand may not surrender: only the first two cards as dealt (55-4 1°, 2020)")
    if len(hand.cards) != 2 or hand.doubled:
        return Refusal(RefusalReason.SURRENDER_TWO_CARDS,
                       "surrender is only on the first two cards, before any other decision (55-4 1°, 2020)")
    if bank_up is not None and bank_up.is_ace:
        return Refusal(RefusalReason.SURRENDER_BANK_ACE,
                       "no surrender while the bank's card is an ace "
                       "(55-4 1°, 2020: « que le croupier n'ait pas d'as »)")
    return None


def returned_cents(cents: int) -> int:
    """What a surrendered stake of `cents` gives back: half, a half cent rounded down."""
    return cents // 2


def surrender_result(cents: int) -> tuple[str, int, str]:
    """(outcome, net cents, note) of a surrendered stake: the half kept by the house is collected."""
    back = returned_cents(cents)
    note = f"half of {cents} cents is {back}.5 cents: returned {back}" if cents % 2 else ""
    return OUTCOME, back - cents, note
