"""Hyper black jack (art. 55-4 6°): the seven cases of the field, their odds, and the bank's final result.

« Le joueur gagne un bonus quand la case sur laquelle il a engagé sa mise hyper black jack correspond au
résultat final de la banque. » The cases are 17, 18, 19, 20, 21, BLACK JACK and BUST; the text pays them
« 4 pour 1 », « 5 pour 1 », « 5 pour 1 », « 4 pour 1 », « 10 pour 1 », « 19 pour 1 », « 2 pour 1 ».

The regulation writes odds "N pour 1" for the winnings on a stake of 1 (its punto banco tie, « les gains
d'égalité sont payés 8 pour 1 », is the usual 8 to 1): a winning case keeps its stake and is paid N times it.
`ODDS` holds that N; docs/rules.md gives the reading, the other one, and what each does to the EV.

Pure: no I/O, no state. The live hyper field, the display and the strategy figures all name the bank's
result with `bank_result` and pay with `winnings_cents`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final


class HyperCase(enum.StrEnum):
    """A case of the hyper black jack field; its value is the zone's name."""

    SEVENTEEN = "17"
    EIGHTEEN = "18"
    NINETEEN = "19"
    TWENTY = "20"
    TWENTY_ONE = "21"  # 21 in three cards or more
    BLACKJACK = "blackjack"  # the bank's first two cards make 21
    BUST = "bust"  # « dépassement de 21 par la banque »

    @property
    def label(self) -> str:
        """The case as the layout prints it: 17 … 21, BLACK JACK, BUST."""
        return {"blackjack": "BLACK JACK", "bust": "BUST"}.get(self.value, self.value)


# Winnings per unit staked on a winning case, the stake being returned too (55-4 6°, "N pour 1").
ODDS: Final[Mapping[HyperCase, int]] = MappingProxyType({
    HyperCase.SEVENTEEN: 4,
    HyperCase.EIGHTEEN: 5,
    HyperCase.NINETEEN: 5,
    HyperCase.TWENTY: 4,
    HyperCase.TWENTY_ONE: 10,
    HyperCase.BLACKJACK: 19,
    HyperCase.BUST: 2,
})

_BY_TOTAL: Final = (HyperCase.SEVENTEEN, HyperCase.EIGHTEEN, HyperCase.NINETEEN, HyperCase.TWENTY,
                    HyperCase.TWENTY_ONE)


def bank_result(total: int, cards: int) -> HyperCase:
    """The bank's final result from its best total and its number of cards.

    Two cards making 21 are BLACK JACK (the bank's hand is never a split hand); over 21 is BUST.
    A total under 17 is not a final result (the bank still draws): ValueError.
    """
    if total > 21:
        return HyperCase.BUST
    if total < 17 or cards < 2:
        raise ValueError(f"the bank's {total} in {cards} card(s) is not a final result (it draws to 17)")
    if total == 21 and cards == 2:
        return HyperCase.BLACKJACK
    return _BY_TOTAL[total - 17]


def winnings_cents(case: HyperCase, stake_cents: int) -> int:
    """What a winning stake on `case` is paid, its own stake not counted (it is returned as well)."""
    return stake_cents * ODDS[case]
