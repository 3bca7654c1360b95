"""The bank's final result off the top of the shoe, and what each hyper black jack case returns (55-4 6°).

The distribution is computed from the composition, not copied: for each up card (its chance n_up / N),
`dealer.bank_distribution` of the shoe less that card, exact for a finite shoe; the sum over up cards is
P(17), P(18), P(19), P(20), P(21 in three cards or more), P(BLACK JACK), P(BUST).

Hyper chips make the bank complete its hand even when every box has busted (the text settles the field
on the bank's result), so the result is always there to name.

Which shoe the bank draws from: its up card is drawn before the players' second cards, its later cards
after the players have drawn. Cards a player was dealt without a choice (his first two) are a uniformly
random part of the shoe and change nothing. The cards players *draw* do, slightly: whether a player
draws depends on the up card and on his hand. The chance that the next card is of value v is a martingale
as cards leave the shoe, so its expectation, after however many cards the players chose to draw, is the
one at the start of the round: P(BLACK JACK) is exact whatever the players do. The other cases depend on
two or more of the bank's later cards, a non-linear function of the composition: the figures here take
the composition at the start of the round (off the top of a full shoe), and the table's Monte Carlo,
where up to seven boxes draw before the bank, measures what the players' draws and the cut card change
(bench/README.md).
"""

from __future__ import annotations

from typing import Final

from table_runtime.game.hyper import ODDS, HyperCase
from table_runtime.strategy.composition import VALUES, full_shoe, without
from table_runtime.strategy.dealer import BLACKJACK, BUST, bank_distribution

# Index in a `dealer.Distribution` of each case.
_INDEX: Final = {
    HyperCase.SEVENTEEN: 0,
    HyperCase.EIGHTEEN: 1,
    HyperCase.NINETEEN: 2,
    HyperCase.TWENTY: 3,
    HyperCase.TWENTY_ONE: 4,
    HyperCase.BLACKJACK: BLACKJACK,
    HyperCase.BUST: BUST,
}


def final_result_distribution(decks: int, hits_soft_17: bool = False) -> dict[HyperCase, float]:
    """P(case) of the bank's final result, off the top of a full shoe of `decks` decks."""
    shoe = full_shoe(decks)
    cards = sum(shoe)
    totals = [0.0] * 7
    for up in VALUES:
        chance = shoe[up - 1] / cards
        for index, p in enumerate(bank_distribution(without(shoe, up), up, hits_soft_17)):
            totals[index] += chance * p
    return {case: totals[index] for case, index in _INDEX.items()}


def hyper_ev(distribution: dict[HyperCase, float]) -> dict[HyperCase, float]:
    """EV per unit staked on each case: p (N + 1) - 1, the stake returned and paid N times on a win."""
    return {case: p * (ODDS[case] + 1) - 1.0 for case, p in distribution.items()}
