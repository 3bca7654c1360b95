"""The index plays: which hands they apply to and the counts that call for them."""

from __future__ import annotations

from table_runtime.rating.indexes import ILLUSTRIOUS_18, index_for, indexed_action
from table_runtime.strategy.chart import Action


def test_16_against_a_ten_stands_from_a_true_count_of_zero() -> None:
    play = index_for(16, False, None, 10, 3)
    assert play is not None and play.name == "16 v T stand"
    assert indexed_action(Action.HIT, play, 0.0) is Action.STAND
    assert indexed_action(Action.HIT, play, -0.1) is Action.HIT


def test_12_against_a_4_hits_below_zero_and_a_double_index_needs_two_cards() -> None:
    play = index_for(12, False, None, 4, 2)
    assert play is not None and indexed_action(Action.STAND, play, -1.0) is Action.HIT
    assert indexed_action(Action.STAND, play, 0.0) is Action.STAND
    assert index_for(11, False, None, 1, 2) is not None and index_for(11, False, None, 1, 3) is None
    assert index_for(16, True, None, 10, 2) is None  # soft totals have no index here


def test_a_pair_of_tens_splits_against_a_5_or_6_at_high_counts() -> None:
    play = index_for(20, False, 10, 6, 2)
    assert play is not None and play.action is Action.SPLIT and play.index == 4
    assert index_for(20, False, None, 6, 2) is None  # 20 from other cards
    assert len(ILLUSTRIOUS_18) == 17  # the 18th is insurance (INSURANCE_INDEX)
