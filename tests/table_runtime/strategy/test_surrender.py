"""Surrender (« abandon », 55-4 1° as amended on 6 May 2020) in the computed strategy and house edge.

The player gives up the first two cards of an unsplit hand « sous réserve que le croupier n'ait pas d'as »
and takes back half the stake. With no hole card the choice comes before the bank's second card.
"""

from __future__ import annotations

import dataclasses

import pytest

from table_runtime.game.rules import profile
from table_runtime.strategy import Action, PlayTerms, Strategy, solve
from table_runtime.strategy.composition import full_shoe, without
from table_runtime.strategy.situation import Situation

A, T = 1, 10
R, H, P = Action.SURRENDER, Action.HIT, Action.SPLIT
FR_2020 = PlayTerms.from_options(profile("fr-2020"))
WITHOUT = dataclasses.replace(FR_2020, surrender=False)


def first(strategy: Strategy, total: int, up: int, pair: int | None = None) -> Action:
    return strategy.decide(total, False, pair, up, can_double=True, can_split=pair is not None, can_surrender=True)


def test_fr_2020_offers_surrender_and_fr_casino_does_not() -> None:
    assert FR_2020.surrender
    assert not PlayTerms.from_options(profile("fr-casino")).surrender
    assert dataclasses.replace(PlayTerms.from_options(profile("fr-casino")), surrender=True) == FR_2020


def test_never_against_an_ace_55_4_1() -> None:
    # « sous réserve que le croupier n'ait pas d'as »: the ace column is the game without surrender.
    strategy = solve(FR_2020).strategy
    assert not any(strategy.surrenders(total, soft, A) for total in range(4, 22) for soft in (False, True))
    assert not any(strategy.pair_surrenders(value, A) for value in range(1, 11))
    assert solve(FR_2020).ev_by_upcard[A] == solve(WITHOUT).ev_by_upcard[A]


def test_a_surrendered_cell_is_one_whose_hand_is_worth_less_than_half_a_stake() -> None:
    # T+6 against a ten, the bank's second card still to come (its blackjack takes a hand that stays):
    # hitting is worth about -0.54, below the -0.5 of surrender; T+7 stands at about -0.48.
    strategy = solve(FR_2020).strategy
    up = T
    for first_card, second_card, gives_up in ((10, 6, True), (10, 7, False), (10, 5, True)):
        situation = Situation(FR_2020, without(full_shoe(6), up, first_card, second_card), up)
        total = first_card + second_card
        stand, hit = situation.optimal_hit_stand()
        best = max(stand[total], hit[total])
        assert (best < -0.5) is gives_up, (first_card, second_card, best)
        assert (first(strategy, total, up) is R) is gives_up
    # Without the option the same hands hit or stand as before.
    assert first(solve(WITHOUT).strategy, 16, T) is H


def test_no_hole_card_pairs_that_neither_split_nor_hit_well_give_up() -> None:
    # 8+8 against a ten: split -0.64, hit -0.57 (docs/strategy.md) -> surrender; against a 9 it splits.
    strategy = solve(FR_2020).strategy
    assert first(strategy, 16, T, pair=8) is R
    assert first(strategy, 16, 9, pair=8) is P
    assert first(strategy, 16, A, pair=8) is H  # never against an ace
    # Only the first two cards: once the caller says the hand may not surrender, the chart plays on.
    assert strategy.decide(16, False, None, T, False, False, can_surrender=False) is H


def test_surrender_is_worth_about_a_quarter_percent_without_a_hole_card() -> None:
    with_it, without_it = solve(FR_2020), solve(WITHOUT)
    gain = without_it.house_edge - with_it.house_edge
    assert 0.0020 < gain < 0.0030
    for up in range(2, 11):
        assert with_it.ev_by_upcard[up] >= without_it.ev_by_upcard[up]


def test_decided_before_the_bank_checks_it_is_worth_more_than_american_late_surrender() -> None:
    # The internal peek mode makes it the late surrender of hole-card games: published about 0.07% for
    # 6 decks, S17, DAS. Without a hole card, giving up before the bank's blackjack is known saves more.
    peek = PlayTerms(peek=True, max_hands=4)
    late = solve(peek).house_edge - solve(dataclasses.replace(peek, surrender=True)).house_edge
    assert late == pytest.approx(0.0007, abs=0.0002)
    no_hole = solve(WITHOUT).house_edge - solve(FR_2020).house_edge
    assert no_hole > 2 * late
