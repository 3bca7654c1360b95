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
