"""Collusion between a dealer and a rated player (issue 34): the pairs whose errors favour the player more often
than chance allows, flagged with their evidence for surveillance.

A dealer's honest errors fall on every box alike: an overpayment, a card drawn for the bank when it must stand, a
past-post let through happen to whoever sits there. A dealer working with one player errs *for him*: that player's
rounds carry favouring errors at a rate the dealer's other players never see. So each (dealer, rated player) pair
is tested against the dealer's own rate with his other players: a careless dealer is careless with everyone, and
the floor's base rate (every other pair's, given beside as context) would flag him for his carelessness, not for a
favourite; a floor of careful and careless dealers also hides a careful colluder under its mean.

The test, per pair: `n` box-rounds the dealer dealt to the player, `k` of them carrying a favouring error; the
dealer's other box-rounds `N`, `K` with one. Under chance both counts are Poisson (rare errors) at one rate, so
given `k + K` favouring rounds, `k` is binomial with `p = n / (n + N)`: the p-value is its upper tail P(X >= k)
(the conditional test of two Poisson rates; no estimated rate is plugged in, so a dealer with few other rounds
gives a weak test, not a false one). Across the `m` pairs tested, Holm's step-down (the i-th smallest p-value
against alpha / (m - i + 1)) keeps the family-wise error at `alpha`: over a whole floor of honest pairs the
chance of even one false flag is at most `alpha` (1 % by default). A pair also needs `minimum_errors` favouring
rounds.

Pure: shared rounds in (casino_floor/collusion_store.py reads them from the floor's store; bench/collusion.py
simulates them), findings out.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

# The alarm kinds whose error can favour the player, and how: a zone holding more than was due (`seen` over
# `expected`), or a bank drawn against the rules on a round the player's box won.
OVER_DUE: Final = frozenset({"wrong_payout", "past_posting", "wrong_window_amount"})
BANK_DRAW: Final = frozenset({"bank_must_stand", "bank_must_draw"})
ALPHA: Final = 0.01
MINIMUM_ERRORS: Final = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class FavouringError:
    """One error of a round that gave the player more than was due: the alarm, its kind, the cents it gave (a
    zone's excess; for a bank drawn against the rules, the box's win that round) and who cleared it."""

    alarm_id: int
    kind: str
    cents: int
    cleared_by: str = ""  # "supervisor", "dealer", or "" while open


@dataclass(frozen=True, slots=True, kw_only=True)
class SharedRound:
    """One box-round: a dealer dealt `round_id` at a table to the player of a box (a rated player's pseudonym; ""
    for an anonymous box, which counts in the dealer's and the floor's rates but is never a pair), and the errors
    in it that favoured that box."""

    table_id: str
    round_id: str
    ts: float
    dealer: str
    player: str
    box: int
    errors: tuple[FavouringError, ...] = ()


def favouring_error(alarm_id: int, kind: str, amounts: Mapping[str, Any], *, box_won_cents: int,
                    cleared_by: str = "") -> FavouringError | None:
    """The alarm as an error that favoured its box's player, or None: a zone over its due amount, or a bank drawn
    against the rules on a round the box won (`box_won_cents`: the box's net that round)."""
    if kind in OVER_DUE:
        expected, seen = amounts.get("expected_cents"), amounts.get("seen_cents")
        if isinstance(expected, int) and isinstance(seen, int) and seen > expected:
            return FavouringError(alarm_id=alarm_id, kind=kind, cents=seen - expected, cleared_by=cleared_by)
        return None
    if kind in BANK_DRAW and box_won_cents > 0:
        return FavouringError(alarm_id=alarm_id, kind=kind, cents=box_won_cents, cleared_by=cleared_by)
    return None


def upper_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X binomial(n, p): the terms from k up, each from the last (t_{i+1} = t_i (n - i) p / ((i + 1)
    q)), until they no longer count; from the lower side when k is below the mean (the tail is then near 1)."""
    if k <= 0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    if k <= n * p:
        return max(0.0, 1.0 - _lower_tail(k - 1, n, p))
    ratio = p / (1.0 - p)
    term = math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p)
                    + (n - k) * math.log1p(-p))
    total, i = 0.0, k
    while i <= n and term > total * 1e-17:
        total += term
        term *= (n - i) / (i + 1) * ratio
        i += 1
    return min(1.0, total)


def _lower_tail(k: int, n: int, p: float) -> float:
    """P(X <= k) for X binomial(n, p), k below the mean: the terms from k down."""
    ratio = (1.0 - p) / p
    term = math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p)
                    + (n - k) * math.log1p(-p))
    total, i = 0.0, k
    while i >= 0 and term > total * 1e-17:
        total += term
        term *= i / (n - i + 1) * ratio
        i -= 1
    return total


def rate_test(k: int, n: int, others_k: int, others_n: int) -> float:
    """The one-sided p-value of `k` favouring rounds in `n` against `others_k` in `others_n`, the same rate
    assumed: given the total, `k` is binomial with p = n / (n + others_n)."""
    if n <= 0 or others_n <= 0:
        return 1.0
    return upper_tail(k, k + others_k, n / (n + others_n))


@dataclass(slots=True)
class _Tally:
    rounds: int = 0
    favoured: int = 0  # rounds with at least one favouring error

    def add(self, shared: SharedRound) -> None:
        self.rounds += 1
        self.favoured += 1 if shared.errors else 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """A (dealer, rated player) pair tested: the figures, the p-values, flagged or not, and the evidence."""

    dealer: str
    player: str
    shared_rounds: int
    favoured_rounds: int
    favoured_cents: int
    dealer_rounds_with_others: int
    dealer_favoured_with_others: int
    floor_rate: float
    p_dealer: float
    p_floor: float  # the same test against the floor's other pairs: context, not the decision
    threshold: float  # Holm's: the pair is flagged when p_dealer <= threshold and it has the minimum errors
    flagged: bool
    evidence: tuple[tuple[SharedRound, FavouringError], ...] = field(default=())

    def view(self) -> dict[str, Any]:
        """The finding as `table-floor query collusion` gives it."""
        return {
            "dealer": self.dealer, "player": self.player, "flagged": self.flagged,
            "shared_rounds": self.shared_rounds, "favoured_rounds": self.favoured_rounds,
            "favoured_cents": self.favoured_cents,
            "pair_rate_pct": round(100.0 * self.favoured_rounds / self.shared_rounds, 3) if self.shared_rounds else 0.0,
            "dealer_rate_with_others_pct": round(100.0 * self.dealer_favoured_with_others
                                                 / self.dealer_rounds_with_others, 3)
            if self.dealer_rounds_with_others else None,
            "dealer_rounds_with_others": self.dealer_rounds_with_others,
            "floor_rate_pct": round(100.0 * self.floor_rate, 3),
            "p_dealer": self.p_dealer, "p_floor": self.p_floor,
            "threshold": self.threshold,
            "evidence": [{"table": shared.table_id, "round": shared.round_id, "ts": shared.ts, "box": shared.box,
                          "alarm": error.alarm_id, "kind": error.kind, "cents": error.cents,
                          "cleared_by": error.cleared_by} for shared, error in self.evidence],
        }


def findings(rounds: Iterable[SharedRound], *, alpha: float = ALPHA, minimum_errors: int = MINIMUM_ERRORS
             ) -> list[Finding]:
    """Every (dealer, rated player) pair of these box-rounds tested, the flagged first, then by p-value."""
    pairs: dict[tuple[str, str], _Tally] = defaultdict(_Tally)
    dealers: dict[str, _Tally] = defaultdict(_Tally)
    floor = _Tally()
    evidence: dict[tuple[str, str], list[tuple[SharedRound, FavouringError]]] = defaultdict(list)
    for shared in rounds:
        dealers[shared.dealer].add(shared)
        floor.add(shared)
        if shared.player:
            pairs[(shared.dealer, shared.player)].add(shared)
            evidence[(shared.dealer, shared.player)].extend((shared, error) for error in shared.errors)
    tested: list[tuple[float, float, tuple[str, str]]] = []
    for key, pair in pairs.items():
        dealer = dealers[key[0]]
        others_n, others_k = dealer.rounds - pair.rounds, dealer.favoured - pair.favoured
        p_dealer = rate_test(pair.favoured, pair.rounds, others_k, others_n)
        p_floor = rate_test(pair.favoured, pair.rounds, floor.favoured - pair.favoured, floor.rounds - pair.rounds)
        tested.append((p_dealer, p_floor, key))
    tested.sort()
    out: list[Finding] = []
    rejecting = True  # Holm: stop at the first p-value over its threshold
    for index, (p_dealer, p_floor, key) in enumerate(tested):
        threshold = alpha / (len(tested) - index)
        rejecting = rejecting and p_dealer <= threshold
        pair, dealer = pairs[key], dealers[key[0]]
        errors = evidence[key]
        out.append(Finding(
            dealer=key[0], player=key[1], shared_rounds=pair.rounds, favoured_rounds=pair.favoured,
            favoured_cents=sum(error.cents for _, error in errors),
            dealer_rounds_with_others=dealer.rounds - pair.rounds,
            dealer_favoured_with_others=dealer.favoured - pair.favoured,
            floor_rate=floor.favoured / floor.rounds if floor.rounds else 0.0,
            p_dealer=p_dealer, p_floor=p_floor, threshold=threshold,
            flagged=rejecting and pair.favoured >= minimum_errors, evidence=tuple(errors)))
    return sorted(out, key=lambda finding: (not finding.flagged, finding.p_dealer, finding.dealer, finding.player))
