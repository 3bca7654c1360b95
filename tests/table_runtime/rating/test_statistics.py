"""The statistics of the detection against their definitions."""

from __future__ import annotations

import math
import random
from itertools import combinations

from table_runtime.rating.statistics import (
    hypergeometric_upper_tail,
    inflation,
    partial,
    ranks,
    spearman,
    upper_tail,
)


def test_ranks_give_ties_their_average_rank() -> None:
    assert ranks([10, 20, 20, 5]) == [2.0, 3.5, 3.5, 1.0]


def test_spearman_is_one_for_any_increasing_relation_and_zero_for_a_constant() -> None:
    x = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert spearman(x, [v ** 3 for v in x]) == 1.0
    assert spearman(x, [-v for v in x]) == -1.0
    assert spearman(x, [7.0] * 5) == 0.0


def test_partial_correlation_removes_a_shared_cause() -> None:
    rng = random.Random(2)
    cause = [rng.gauss(0, 1) for _ in range(4000)]
    x = [c + rng.gauss(0, 1) for c in cause]
    y = [c + rng.gauss(0, 1) for c in cause]
    rho = spearman(x, y)
    assert rho > 0.4
    assert abs(partial(rho, spearman(x, cause), spearman(y, cause))) < 0.06


def test_inflation_grows_with_shared_autocorrelation_and_is_one_for_white_noise() -> None:
    rng = random.Random(4)
    white = [rng.gauss(0, 1) for _ in range(2000)]
    walk = [0.0]
    for _ in range(1999):
        walk.append(0.9 * walk[-1] + rng.gauss(0, 1))
    assert inflation(white, [rng.gauss(0, 1) for _ in range(2000)], 10) < 1.3
    assert inflation(walk, walk, 10) > 5


def test_the_hypergeometric_tail_counts_the_draws() -> None:
    population, successes, draws = 9, 4, 3
    items = [1] * successes + [0] * (population - successes)
    every = list(combinations(range(population), draws))
    for hits in range(draws + 1):
        brute = sum(1 for pick in every if sum(items[i] for i in pick) >= hits) / len(every)
        assert math.isclose(hypergeometric_upper_tail(hits, draws, successes, population), brute)
    assert math.isclose(upper_tail(0.0), 0.5) and math.isclose(upper_tail(3.3), 4.83e-4, rel_tol=0.01)
