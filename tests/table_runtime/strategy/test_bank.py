"""The bank's final-total probabilities (dealer.py): exact, and in line with published tables."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_runtime.strategy.composition import full_shoe, without
from table_runtime.strategy.dealer import BLACKJACK, BUST, bank_distribution, without_blackjack

# Wizard of Odds, Blackjack Appendix 2B "Dealer Probabilities in Blackjack" (not yet peeked),
# rows "1 Deck - Dealer Stands on Soft 17" and "2 Decks - ...": 17, 18, 19, 20, 21, BJ, bust.
# A combinatorial table: an exact computation must reproduce every printed digit.
WIZARD_2B = {
    (1, 1): (0.126128, 0.131003, 0.129486, 0.131553, 0.0515646, 0.313726, 0.11654),
    (1, 6): (0.166948, 0.106454, 0.107192, 0.100705, 0.0978785, 0.0, 0.420823),
    (1, 7): (0.372345, 0.138583, 0.0773344, 0.0788967, 0.072987, 0.0, 0.259854),
    (1, 10): (0.114418, 0.112879, 0.114662, 0.328879, 0.0364661, 0.0784314, 0.214264),
    (2, 1): (0.128467, 0.13089, 0.130179, 0.131159, 0.0527542, 0.31068, 0.115872),
}


@pytest.mark.parametrize(("decks", "up"), sorted(WIZARD_2B))
def test_exact_small_shoes_match_the_published_combinatorial_table(decks: int, up: int) -> None:
    seventeen, eighteen, nineteen, twenty, twenty_one, blackjack, bust = WIZARD_2B[decks, up]
    computed = bank_distribution(without(full_shoe(decks), up), up, hits_soft_17=False)
    expected = (seventeen, eighteen, nineteen, twenty, twenty_one, bust, blackjack)
    assert computed == pytest.approx(expected, abs=1.5e-6)


def six_deck_bust(up: int, hits_soft_17: bool = False) -> float:
    return bank_distribution(without(full_shoe(6), up), up, hits_soft_17)[BUST]


def test_six_deck_bust_chances_are_the_well_known_ones() -> None:
    # Six decks, S17: the bank busts most with a 5 or 6 up (about 42%), least with an ace;
    # with no hole card the ace's blackjack (about 31%) is an outcome of its own, so the ace
    # busts about 11.5% of all deals and about 17% of the deals where it has no blackjack.
    assert six_deck_bust(6) == pytest.approx(0.4228, abs=5e-4)
    assert six_deck_bust(5) == pytest.approx(0.4184, abs=5e-4)
    assert six_deck_bust(2) == pytest.approx(0.3535, abs=5e-4)
    assert six_deck_bust(10) == pytest.approx(0.2125, abs=5e-4)
    ace = bank_distribution(without(full_shoe(6), 1), 1, False)
    assert ace[BUST] == pytest.approx(0.1155, abs=5e-4)
    assert ace[BLACKJACK] == pytest.approx(0.3087, abs=5e-4)
    assert without_blackjack(ace)[BUST] == pytest.approx(0.167, abs=1e-3)
    assert [six_deck_bust(up) for up in (2, 3, 4, 5)] == sorted(six_deck_bust(up) for up in (2, 3, 4, 5))


def test_hitting_soft_17_changes_only_the_up_cards_that_can_make_soft_17() -> None:
    for up in (7, 8, 9, 10):  # a soft 17 needs A+6 (from 7 up: never reached as soft 17)
        assert six_deck_bust(up, True) == six_deck_bust(up, False)
    for up in (1, 2, 6):
        assert six_deck_bust(up, True) > six_deck_bust(up, False)


compositions = st.lists(st.integers(min_value=0, max_value=24), min_size=10, max_size=10).map(tuple)


@settings(max_examples=60, deadline=None)
@given(counts=compositions, up=st.integers(min_value=1, max_value=10), hits_soft_17=st.booleans())
def test_outcomes_are_probabilities_summing_to_one(counts: tuple[int, ...], up: int, hits_soft_17: bool) -> None:
    # Keep enough cards that the bank can always finish (at least 12 ten-valued cards).
    counts = (*counts[:9], counts[9] + 12)
    distribution = bank_distribution(counts, up, hits_soft_17)
    assert all(0.0 <= p <= 1.0 for p in distribution)
    assert sum(distribution) == pytest.approx(1.0, abs=1e-12)
    if up not in (1, 10):
        assert distribution[BLACKJACK] == 0.0


def test_exhausting_a_value_removes_it_from_the_outcomes() -> None:
    # With no ten-valued card left, an ace up can never make blackjack.
    counts = (*without(full_shoe(6), 1)[:9], 0)
    assert bank_distribution(counts, 1, False)[BLACKJACK] == 0.0
