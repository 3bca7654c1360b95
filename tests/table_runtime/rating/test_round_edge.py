"""The next round's edge from the cards left: the solver's own number off the top, and the right direction."""

from __future__ import annotations

import pytest

from table_runtime.game.rules import PROFILES
from table_runtime.rating.round_edge import LinearEdge, exact_edge, quick_edge
from table_runtime.strategy import PlayTerms, Strategy, solve
from table_runtime.strategy.composition import full_shoe


@pytest.mark.parametrize("name", ["fr-casino", "fr-classic"])
def test_off_the_top_the_exact_edge_is_the_solvers_player_ev(name: str) -> None:
    terms = PlayTerms.from_options(PROFILES[name])
    strategy = Strategy.for_rules(terms)
    assert exact_edge(full_shoe(terms.decks), strategy) == pytest.approx(solve(terms).player_ev, abs=1e-12)


def test_tens_and_aces_left_help_the_player_small_cards_left_hurt_him() -> None:
    strategy = Strategy.for_rules(PlayTerms())
    full = full_shoe(6)
    rich = list(full)
    for value in (2, 3, 4, 5, 6):
        rich[value - 1] -= 12  # 60 small cards out: Hi-Lo running count +60, about +12 true
    poor = list(full)
    poor[9] -= 40  # 40 ten-valued cards out and 20 aces
    poor[0] -= 20
    base = exact_edge(full, strategy)
    assert exact_edge(tuple(rich), strategy) > base + 0.03
    assert exact_edge(tuple(poor), strategy) < base - 0.03
    # the quick edge keeps the player's two cards in the bank's shoe: close, same direction
    assert abs(quick_edge(tuple(rich), strategy) - exact_edge(tuple(rich), strategy)) < 0.01


@pytest.mark.slow
def test_the_linear_edge_is_the_exact_edge_where_it_was_fitted() -> None:
    strategy = Strategy.for_rules(PlayTerms())
    linear = LinearEdge.fitted(strategy)
    full = full_shoe(6)
    assert linear.edge(full) == pytest.approx(exact_edge(full, strategy), abs=1e-12)
    # a five removed helps the player most, an ace removed hurts him most (the known effects of removal)
    assert max(range(10), key=lambda index: linear.per_card[index]) == 4
    assert min(range(10), key=lambda index: linear.per_card[index]) == 0
    fewer_fives = list(full)
    fewer_fives[4] -= 6
    exact = exact_edge(tuple(fewer_fives), strategy)
    assert linear.edge(tuple(fewer_fives)) == pytest.approx(exact, abs=0.0003)
