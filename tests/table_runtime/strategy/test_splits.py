"""Expected numbers of hands after splitting (situation.expected_split_hands) and split EVs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_runtime.strategy import PlayTerms
from table_runtime.strategy.composition import full_shoe, without
from table_runtime.strategy.situation import Situation, expected_split_hands

chances = st.floats(min_value=0.0, max_value=0.4)


@given(match=chances)
def test_split_once_makes_two_hands_that_may_pair_again(match: float) -> None:
    plain, paired = expected_split_hands(match, 2)
    assert plain == pytest.approx(2 * (1 - match))
    assert paired == pytest.approx(2 * match)


@given(match=chances)
def test_three_hands_resplit_at_most_once(match: float) -> None:
    # The box reaches 3 hands unless neither of the first two hands pairs.
    plain, paired = expected_split_hands(match, 3)
    assert plain + paired == pytest.approx(3 - (1 - match) ** 2)


@given(match=st.floats(min_value=0.0, max_value=0.2))
def test_unlimited_resplits_follow_the_branching_process(match: float) -> None:
    # Every hand ends on a card that does not pair; each pairing card adds a hand:
    # E[hands] = 2 + match * E[draws] = 2 (1 - match) / (1 - 2 match).
    plain, paired = expected_split_hands(match, 60)
    assert plain == pytest.approx(2 * (1 - match) / (1 - 2 * match), rel=1e-9)
    assert paired == pytest.approx(0.0, abs=1e-9)


def test_splitting_eights_against_a_six_wins_more_than_it_risks() -> None:
    situation = Situation(PlayTerms(), without(full_shoe(6), 6, 8, 8), 6)
    stand, hit = situation.optimal_hit_stand()
    situation.use_chart([h > s for h, s in zip(hit, stand, strict=True)])
    no_doubles = [False] * len(stand)
    split = situation.split(8, no_doubles)
    assert split > 0.0 > max(stand[16], hit[16])
    # Double after split adds value (8+3 = 11 against a 6 doubles).
    doubles = [False] * len(stand)
    doubles[11] = doubles[10] = doubles[9] = True
    assert situation.split(8, doubles) > split


def test_split_aces_take_one_card_and_never_a_blackjack() -> None:
    situation = Situation(PlayTerms(), without(full_shoe(6), 10, 1, 1), 10)
    situation.use_chart([False] * 64)
    split = situation.split(1, [False] * 64)
    # Each ace hand stands on its one card: 21 with a ten is only a 21 (paid even),
    # so two hands can never be worth more than 2 stakes, and they lose to the bank's blackjack.
    assert 0.0 < split < 2.0 * (1 - situation.p_blackjack)
