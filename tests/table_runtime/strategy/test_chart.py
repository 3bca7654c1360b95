"""The computed strategy: the cells every source agrees on, and what no hole card changes."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_runtime.game.rules import PROFILES, profile
from table_runtime.strategy import Action, PlayTerms, Strategy, solve

A, T = 1, 10
ALL_UP = (2, 3, 4, 5, 6, 7, 8, 9, T, A)
H, S, D, P = Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT


def strategy_of(name: str, **changes: Any) -> Strategy:
    terms = dataclasses.replace(PlayTerms.from_options(profile(name)), **changes)
    return Strategy.for_rules(terms)


def first(strategy: Strategy, total: int, soft: bool, up: int) -> Action:
    return strategy.decide(total, soft, None, up, can_double=True, can_split=False)


def pair(strategy: Strategy, value: int, up: int) -> Action:
    total, soft = (12, True) if value == A else (2 * value, False)
    return strategy.decide(total, soft, value, up, can_double=True, can_split=True)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_cells_every_basic_strategy_agrees_on(name: str) -> None:
    strategy = Strategy.for_rules(profile(name))
    assert first(strategy, 16, False, T) is H
    assert first(strategy, 12, False, 4) is S
    assert first(strategy, 13, False, 2) is S
    assert first(strategy, 12, False, 7) is H
    assert first(strategy, 11, False, 6) is D
    assert first(strategy, 10, False, 9) is D
    assert all(first(strategy, total, False, up) is S for total in range(17, 22) for up in ALL_UP)
    assert all(first(strategy, total, False, up) is H for total in range(5, 9) for up in ALL_UP)
    assert first(strategy, 18, True, 9) is H  # soft 18 hits a 9, 10 and ace
    assert first(strategy, 19, True, T) is S
    assert all(pair(strategy, A, up) is P for up in range(2, 11))
    assert pair(strategy, 8, 6) is P
    assert pair(strategy, 9, 7) is S  # 18 beats the bank's likely 17
    assert all(pair(strategy, T, up) is S for up in ALL_UP)
    assert all(pair(strategy, 5, up) is not P for up in ALL_UP)


def test_no_hole_card_play_against_ten_and_ace_comes_out_of_the_computation() -> None:
    # Same rules, the bank either checks for blackjack first (peek, internal) or draws its
    # second card after the players (fr-casino). Doubling or splitting against a ten or ace
    # puts a second stake where the bank's blackjack (7.7% behind a ten, 30.9% behind an
    # ace) takes it too, so no hole card doubles and splits less there, and only there.
    enhc = strategy_of("fr-casino")
    peek = strategy_of("fr-casino", peek=True)
    assert first(peek, 11, False, T) is D
    assert first(enhc, 11, False, T) is H
    assert pair(peek, 8, T) is P and pair(peek, 8, A) is P
    assert pair(enhc, 8, T) is H and pair(enhc, 8, A) is H
    assert pair(peek, A, A) is P
    assert pair(enhc, A, A) is H
    for up in range(2, 10):  # against 2..9 nothing changes
        for total in range(5, 22):
            assert first(enhc, total, False, up) is first(peek, total, False, up), (total, up)
        for total in range(13, 22):
            assert first(enhc, total, True, up) is first(peek, total, True, up), (total, up)
        for value in range(1, 11):
            assert pair(enhc, value, up) is pair(peek, value, up), (value, up)


def test_losing_only_the_original_stake_brings_back_the_peek_doubles_and_splits() -> None:
    original_only = strategy_of("fr-casino", bank_blackjack_takes_all=False)
    assert first(original_only, 11, False, T) is D
    assert pair(original_only, 8, T) is P
    assert pair(original_only, A, A) is P


def test_double_on_9_10_11_never_doubles_soft_or_other_hard_totals() -> None:
    strategy = Strategy.for_rules(profile("fr-classic"))
    for up in ALL_UP:
        for total in range(13, 22):
            assert first(strategy, total, True, up) is not D, (total, up)
        for total in (*range(4, 9), *range(12, 22)):
            assert first(strategy, total, False, up) is not D, (total, up)
    assert first(strategy, 9, False, 4) is D
    assert first(strategy, 11, False, 6) is D
    # Soft 18 against 3..6 stands when it may not double (Ds falls back to stand).
    assert first(strategy, 18, True, 4) is S


def test_decide_falls_back_when_the_rules_refuse_the_double_or_the_split() -> None:
    strategy = Strategy.for_rules(profile("fr-casino"))
    assert strategy.decide(11, False, None, 6, can_double=False, can_split=False) is H
    assert strategy.letter(18, True, 4) == "Ds"
    assert strategy.decide(18, True, None, 4, can_double=True, can_split=False) is D
    assert strategy.decide(18, True, None, 4, can_double=False, can_split=False) is S
    # 8-8 against 6 that may not split again (hands limit) plays as hard 16.
    assert strategy.decide(16, False, 8, 6, can_double=True, can_split=True) is P
    assert strategy.decide(16, False, 8, 6, can_double=True, can_split=False) is S
    assert strategy.decide(16, False, 8, T, can_double=False, can_split=False) is H


def test_no_split_when_the_rules_allow_one_hand_only() -> None:
    strategy = strategy_of("fr-casino", max_hands=1)
    assert not any(strategy.splits(value, up) for value in range(1, 11) for up in ALL_UP)


def test_profiles_with_the_same_terms_share_one_computation() -> None:
    options = profile("fr-casino")
    assert Strategy.for_rules(options) is Strategy.for_rules(options.replace(burn_cards=0, boxes=5))
    assert solve(PlayTerms.from_options(options)) is solve(PlayTerms.from_options(options))


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(sorted(PROFILES)),
    total=st.integers(min_value=4, max_value=21),
    soft=st.booleans(),
    pair_value=st.one_of(st.none(), st.integers(min_value=1, max_value=10)),
    up=st.integers(min_value=1, max_value=10),
    can_double=st.booleans(),
    can_split=st.booleans(),
)
def test_decide_only_chooses_what_the_rules_allow(name: str, total: int, soft: bool, pair_value: int | None,
                                                  up: int, can_double: bool, can_split: bool) -> None:
    strategy = Strategy.for_rules(profile(name))
    action = strategy.decide(total, soft, pair_value, up, can_double, can_split)
    assert isinstance(action, Action)
    if not can_double:
        assert action is not D
    if not can_split or pair_value is None:
        assert action is not P
    if total == 21:
        assert action in (S, P)
