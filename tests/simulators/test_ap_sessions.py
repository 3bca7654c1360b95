"""Simulated sessions through the round engine: the detection, reading only the table's record, tells a
Hi-Lo counter from a flat bettor (a small seeded run; the rates are measured by bench/rating.py)."""

from __future__ import annotations

import pytest

from simulators.ap_sessions import play_session
from table_runtime.game.rules import PROFILES
from table_runtime.rating.round_edge import LinearEdge
from table_runtime.strategy import PlayTerms, Strategy, solve

RULES = PROFILES["fr-casino"]


@pytest.fixture(scope="module")
def setup() -> tuple[Strategy, LinearEdge, float]:
    strategy = Strategy.for_rules(RULES)
    return strategy, LinearEdge.fitted(strategy), solve(PlayTerms.from_options(RULES)).house_edge


def test_a_counter_is_flagged_and_a_flat_bettor_is_not(setup: tuple[Strategy, LinearEdge, float]) -> None:
    strategy, linear, house_edge = setup
    for seed in (1, 2):
        counter = play_session("counter", RULES, strategy, linear, 300, seed, (100, 300), house_edge)
        flat = play_session("flat", RULES, strategy, linear, 300, seed, (100, 300), house_edge)
        assert counter.rounds == flat.rounds == 300
        assert 0 < counter.first_flagged <= 300 and "bet_count" in counter.flags_at[300]
        assert flat.first_flagged == 0 and flat.flags_at == {100: (), 300: ()}
        # theo: every stake at the house edge; the flat bettor's stakes are one unit a box, doubles and splits on top
        assert flat.stake_cents == 300 * 2500 and flat.action_cents > flat.stake_cents
        assert flat.theo_cents == pytest.approx(flat.action_cents * house_edge)


def test_a_wonger_watches_rounds_and_is_flagged_for_it(setup: tuple[Strategy, LinearEdge, float]) -> None:
    strategy, linear, house_edge = setup
    wonger = play_session("wonger", RULES, strategy, linear, 300, 3, (300,), house_edge)
    assert wonger.rounds == 300 and 0 < wonger.stake_cents < 300 * 2 * 2500  # he sat out rounds
    assert "wonging" in wonger.flags_at[300]


def test_a_hyper_blackjack_player_betting_on_the_cards_left_is_flagged_and_a_fan_is_not() -> None:
    """55-4 6° (arrêté of 6 May 2020): the BLACK JACK case pays 19 to 1, a positive bet when the bank's blackjack
    chance from the cards left is over 1/20. The player who bets it only then is flagged by the hyper score; the
    one who bets it in a random fifth of the rounds is not (seeded sessions; rates: bench/rating.py)."""
    rules = PROFILES["fr-2020"]
    strategy = Strategy.for_rules(rules)
    linear, house_edge = LinearEdge.fitted(strategy), solve(PlayTerms.from_options(rules)).house_edge
    for seed in (1, 2):
        sharp = play_session("hyper", rules, strategy, linear, 300, seed, (100, 300), house_edge)
        fan = play_session("hyperfan", rules, strategy, linear, 300, seed, (100, 300), house_edge)
        assert "hyper_blackjack" in sharp.flags_at[300]
        assert fan.first_flagged == 0 and fan.rounds == 300
    without = play_session("hyper", RULES, strategy, linear, 100, 1, (100,), house_edge)  # no hyper field
    assert without.flags_at[100] == ()
