"""The hyper black jack field (art. 55-4, 6°, as amended): its seven cases, their odds, and the bank's final result.

« Le champ de mise supplémentaire est composé de sept cases : « 17 », « 18 », « 19 », « 20 », « 21 »,
« BLACK JACK » et « BUST ». Le joueur gagne un bonus quand la case sur laquelle il a engagé sa mise hyper
black jack correspond au résultat final de la banque. »

The odds are the text's « x pour 1 », read as the regulation reads it elsewhere: the stake is kept and x times
it is paid (net x). The same text pays the insurance « à 2 pour 1 » (000:27), which every house pays 2 to 1
net; seed 002 pays a won hand « 1 pour 1 » (even money) and a blackjack « 1,5 pour 1 » (3:2). docs/rules.md
says so beside the table. Pure: no I/O.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Final

from table_runtime.game.cards import Card


class HyperCase(enum.StrEnum):
    """One case of the hyper black jack field; the value is what the journal, the feed and the zones say."""

    SEVENTEEN = "17"
    EIGHTEEN = "18"
    NINETEEN = "19"
    TWENTY = "20"
    TWENTY_ONE = "21"
    BLACKJACK = "blackjack"
    BUST = "bust"


# « x pour 1 » (55-4 6°): the net payout per cent staked on the case that matches the bank's final result.
HYPER_ODDS: Final[dict[HyperCase, int]] = {
    HyperCase.SEVENTEEN: 4,
    HyperCase.EIGHTEEN: 5,
    HyperCase.NINETEEN: 5,
    HyperCase.TWENTY: 4,
    HyperCase.TWENTY_ONE: 10,
    HyperCase.BLACKJACK: 19,
    HyperCase.BUST: 2,
}

# The label a dealer reads on the cloth (the display translates none of them: they are printed so).
CASE_LABELS: Final[dict[HyperCase, str]] = {case: "BLACK JACK" if case is HyperCase.BLACKJACK else case.upper()
                                            for case in HyperCase}

RULE: Final = "55-4 6° (arrêté of 14 May 2007 as amended): the hyper black jack field"


def _total(cards: Sequence[Card]) -> int:
    total = sum(card.value for card in cards)
    if total <= 11 and any(card.is_ace for card in cards):
        total += 10
    return total


def bank_final_result(cards: Sequence[Card]) -> HyperCase | None:
    """The case the bank's finished hand names: BLACK JACK (ace and a ten-value card as its two cards), BUST
    (over 21), or its total from 17 to 21; None for a hand that is not a final result (under 17: the bank
    draws on)."""
    total = _total(cards)
    if len(cards) == 2 and total == 21:
        return HyperCase.BLACKJACK
    if total > 21:
        return HyperCase.BUST
    if total < 17:
        return None
    return HyperCase(str(total))


def hyper_net_cents(case: HyperCase, cents: int, result: HyperCase) -> int:
    """What a stake of `cents` on `case` wins (> 0) or loses (the stake) when the bank's result is `result`."""
    return cents * HYPER_ODDS[case] if case is result else -cents
