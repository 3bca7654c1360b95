"""The bank's final result off the top and the hyper black jack cases' EVs (55-4 6°), from the composition."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest

from table_runtime.game.hyper import ODDS, HyperCase, bank_result
from table_runtime.strategy.final_result import final_result_distribution, hyper_ev


def walked(decks: int) -> dict[HyperCase, Fraction]:
    """Every ordered run of the bank's cards from a full shoe, card by card, in exact fractions:
    a second computation (no multiset grouping) to hold the module's against."""
    start = tuple(4 * decks if value < 10 else 16 * decks for value in range(1, 11))

    @cache
    def outcome(shoe: tuple[int, ...], hard: int, aces: int, cards: int) -> dict[HyperCase, Fraction]:
        total = hard + 10 if aces and hard <= 11 else hard
        if cards >= 2 and total >= 17:
            return {bank_result(total, cards): Fraction(1)}
        left = sum(shoe)
        result: dict[HyperCase, Fraction] = {}
        for index, count in enumerate(shoe):
            if not count:
                continue
            value = index + 1
            after = (*shoe[:index], count - 1, *shoe[index + 1:])
            for case, p in outcome(after, hard + value, aces + (value == 1), cards + 1).items():
                result[case] = result.get(case, Fraction(0)) + Fraction(count, left) * p
        return result

    return outcome(start, 0, 0, 0)


@pytest.mark.parametrize("decks", [1, 2])
def test_the_distribution_is_the_bank_s_draws_walked_card_by_card(decks: int) -> None:
    exact = walked(decks)
    computed = final_result_distribution(decks)
    assert list(computed) == list(HyperCase)
    for case in HyperCase:
        assert computed[case] == pytest.approx(float(exact[case]), abs=1e-12), case


def test_six_decks_sum_to_one_and_black_jack_is_its_two_card_arithmetic() -> None:
    distribution = final_result_distribution(6)
    assert sum(distribution.values()) == pytest.approx(1.0, abs=1e-12)
    # An ace then a ten-valued card, or a ten then an ace: 2 x 24/312 x 96/311.
    assert distribution[HyperCase.BLACKJACK] == pytest.approx(2 * 24 / 312 * 96 / 311, rel=1e-12)
    # The bank stands on soft 17 (art. 55-4 « Déroulement de la partie » NOTA); hitting it makes fewer 17s and more of
    # the rest.
    hits = final_result_distribution(6, hits_soft_17=True)
    assert hits[HyperCase.SEVENTEEN] < distribution[HyperCase.SEVENTEEN]
    assert hits[HyperCase.BUST] > distribution[HyperCase.BUST]
    assert hits[HyperCase.BLACKJACK] == distribution[HyperCase.BLACKJACK]


def test_each_case_returns_its_chance_times_odds_plus_one_minus_the_stake_55_4_6() -> None:
    distribution = final_result_distribution(6)
    evs = hyper_ev(distribution)
    for case in HyperCase:
        assert evs[case] == pytest.approx(distribution[case] * (ODDS[case] + 1) - 1, abs=1e-15)
    # Every case favours the house; BLACK JACK at 19 pour 1 the least, 17 at 4 pour 1 the most.
    assert all(ev < 0 for ev in evs.values())
    assert max(evs, key=evs.__getitem__) is HyperCase.BLACKJACK
    assert min(evs, key=evs.__getitem__) is HyperCase.SEVENTEEN
