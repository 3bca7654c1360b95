"""The collusion test of a (dealer, rated player) pair (casino_floor/collusion.py), pure: box-rounds in, findings
out. An honest dealer's errors, careful or careless, fall on every box alike and are never a pair's; a dealer who
errs for one player is flagged with the rounds and amounts."""

from __future__ import annotations

import math
import random

from hypothesis import given
from hypothesis import strategies as st

from casino_floor.collusion import (
    FavouringError,
    SharedRound,
    favouring_error,
    findings,
    rate_test,
    upper_tail,
)


def exact_tail(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(max(k, 0), n + 1))


@given(st.integers(0, 80), st.integers(0, 80), st.floats(0.0, 1.0))
def test_the_tail_is_the_binomial_sum(k: int, n: int, p: float) -> None:
    assert math.isclose(upper_tail(k, n, p), min(1.0, exact_tail(k, n, p)), rel_tol=1e-9, abs_tol=1e-15)


def test_the_rate_test_compares_the_pair_with_the_dealers_other_players() -> None:
    # 10 favouring rounds in 100 against 10 in 1,000: given 20, the pair's share is binomial(20, 100 / 1,100)
    assert math.isclose(rate_test(10, 100, 10, 1000), exact_tail(10, 20, 100 / 1100))
    assert rate_test(1, 100, 10, 1000) > 0.5  # the dealer's own rate: chance
    assert rate_test(5, 100, 0, 0) == 1.0  # no other player to compare with: never flagged


def test_only_an_excess_or_a_bank_error_on_a_won_box_favours_the_player() -> None:
    over = favouring_error(7, "wrong_payout", {"expected_cents": 2000, "seen_cents": 2500}, box_won_cents=1000,
                           cleared_by="supervisor")
    assert over == FavouringError(alarm_id=7, kind="wrong_payout", cents=500, cleared_by="supervisor")
    assert favouring_error(7, "wrong_payout", {"expected_cents": 2000, "seen_cents": 1500}, box_won_cents=1000) \
        is None  # short: the house's gain
    assert favouring_error(8, "past_posting", {"expected_cents": 1000, "seen_cents": 3000}, box_won_cents=-1000) \
        == FavouringError(alarm_id=8, kind="past_posting", cents=2000)
    assert favouring_error(9, "bank_must_stand", {}, box_won_cents=2000) == \
        FavouringError(alarm_id=9, kind="bank_must_stand", cents=2000)
    assert favouring_error(9, "bank_must_stand", {}, box_won_cents=-2000) is None
    assert favouring_error(10, "shoe_jam", {}, box_won_cents=2000) is None


def floor(rng: random.Random, dealers: dict[str, tuple[float, float]], rounds: int = 600) -> list[SharedRound]:
    """Each dealer deals `rounds` rounds to boxes 1-4 (players `{dealer}-1` .. `-4`): `(rate, favourite rate)`,
    his favouring errors' rate on every box, and on box 1 besides."""
    out = []
    alarm = 0
    for dealer, (rate, favourite) in dealers.items():
        for number in range(rounds):
            for box in range(1, 5):
                errors = []
                if rng.random() < rate + (favourite if box == 1 else 0.0):
                    alarm += 1
                    errors.append(FavouringError(alarm_id=alarm, kind="wrong_payout", cents=500))
                out.append(SharedRound(table_id="T1", round_id=f"T1-{number}", ts=float(number), dealer=dealer,
                                       player=f"{dealer}-{box}", box=box, errors=tuple(errors)))
    return out


def test_a_favourite_is_flagged_and_careless_honest_dealers_are_not() -> None:
    rng = random.Random(34)
    found = findings(floor(rng, {"careful": (0.002, 0.0), "careless": (0.05, 0.0), "sloppier": (0.08, 0.0),
                                 "colluder": (0.01, 0.05)}))
    flagged = [finding for finding in found if finding.flagged]
    assert [(finding.dealer, finding.player) for finding in flagged] == [("colluder", "colluder-1")]
    finding = flagged[0]
    assert finding.favoured_rounds == len(finding.evidence) >= 3
    assert finding.favoured_cents == 500 * finding.favoured_rounds
    assert finding.dealer_rounds_with_others == 1800 and finding.p_dealer <= finding.threshold
    view = finding.view()
    assert view["evidence"][0] == {"table": "T1", "round": finding.evidence[0][0].round_id,
                                   "ts": finding.evidence[0][0].ts, "box": 1, "alarm": finding.evidence[0][1].alarm_id,
                                   "kind": "wrong_payout", "cents": 500, "cleared_by": ""}
    assert found[0] is finding and len(found) == 16  # every pair tested, the flagged first


def test_a_floor_of_honest_dealers_is_almost_never_flagged() -> None:
    """Holm's control at 1 %: over 40 floors of 20 honest pairs of careless dealers, at most one false flag."""
    rng = random.Random(7)
    false_flags = sum(finding.flagged for seed in range(40)
                      for finding in findings(floor(rng, {f"d{index}": (0.03, 0.0) for index in range(5)},
                                                    rounds=300)))
    assert false_flags <= 1


def test_a_few_favours_are_not_enough() -> None:
    rounds = [SharedRound(table_id="T1", round_id=f"T1-{n}", ts=float(n), dealer="D", player=f"p{box}", box=box,
                          errors=(FavouringError(alarm_id=n, kind="wrong_payout", cents=500),)
                          if box == 1 and n < 2 else ())
              for n in range(20_000) for box in (1, 2) if box == 2 or n < 100]  # p1 sat 100 rounds, p2 20,000
    (first, *_) = findings(rounds)
    assert first.player == "p1" and first.p_dealer < first.threshold and not first.flagged  # 2 < minimum of 3
    assert findings(rounds, minimum_errors=2)[0].flagged
