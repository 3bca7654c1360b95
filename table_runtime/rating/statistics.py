"""The few statistics the detection needs, in plain Python: ranks, Spearman's rho, a partial correlation,
the variance inflation of a correlation between two autocorrelated series, normal and hypergeometric tails.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def ranks(values: Sequence[float]) -> list[float]:
    """Ranks 1..n, ties given their average rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    result = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        average = (start + end) / 2 + 1
        for position in range(start, end + 1):
            result[order[position]] = average
        start = end + 1
    return result


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's correlation; 0 when either series is constant (no evidence either way)."""
    n = len(x)
    if n < 2:
        return 0.0
    mean_x, mean_y = sum(x) / n, sum(y) / n
    sxx = sum((a - mean_x) ** 2 for a in x)
    syy = sum((b - mean_y) ** 2 for b in y)
    if sxx <= 0.0 or syy <= 0.0:
        return 0.0
    sxy = sum((a - mean_x) * (b - mean_y) for a, b in zip(x, y, strict=True))
    return sxy / math.sqrt(sxx * syy)


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation (Pearson on average ranks)."""
    return pearson(ranks(x), ranks(y))


def partial(rho_xy: float, rho_xz: float, rho_yz: float) -> float:
    """The correlation of x and y with z held fixed (first order)."""
    denominator = math.sqrt(max((1.0 - rho_xz ** 2) * (1.0 - rho_yz ** 2), 1e-12))
    return (rho_xy - rho_xz * rho_yz) / denominator


def autocorrelation(x: Sequence[float], lag: int) -> float:
    n = len(x)
    if n <= lag + 1:
        return 0.0
    mean = sum(x) / n
    variance = sum((a - mean) ** 2 for a in x)
    if variance <= 0.0:
        return 0.0
    return sum((x[i] - mean) * (x[i + lag] - mean) for i in range(n - lag)) / variance


def inflation(x: Sequence[float], y: Sequence[float], lags: int) -> float:
    """How much the variance of corr(x, y) grows when x and y are each autocorrelated, under independence
    of the two (Bartlett): 1 + 2 sum over lags k of r_x(k) r_y(k); never below 1."""
    total = 1.0
    for lag in range(1, lags + 1):
        total += 2.0 * autocorrelation(x, lag) * autocorrelation(y, lag)
    return max(total, 1.0)


def upper_tail(z: float) -> float:
    """P(Z >= z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def hypergeometric_upper_tail(hits: int, draws: int, successes: int, population: int) -> float:
    """P(X >= hits) when `draws` items are taken without replacement from `population` holding `successes`
    (Fisher's exact test, one-sided)."""
    denominator = math.comb(population, draws)
    if denominator == 0:
        return 1.0
    top = min(draws, successes)
    return sum(math.comb(successes, k) * math.comb(population - successes, draws - k)
               for k in range(hits, top + 1)) / denominator
