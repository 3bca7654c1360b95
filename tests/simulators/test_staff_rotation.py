"""The simulated dealers' rotation (simulators/staff.py): each table of a floor demo starts on its own dealer and
passes the next ones on, every `every_seconds` of the clock passed in; the dealers deal at their own paces and
error rates."""

from __future__ import annotations

from simulators.staff import DEALERS, DealerRotation


def test_the_rotation_starts_on_the_first_dealer_given_and_takes_the_next_in_turn() -> None:
    now = [0.0]
    rotation = DealerRotation(lambda: now[0], every_seconds=1800.0, first=2)
    assert rotation.due() is DEALERS[2]
    now[0] = 1799.0
    assert rotation.due() is None  # not yet his relief's turn
    now[0] = 1800.0
    assert rotation.due() is DEALERS[3]
    now[0] = 3600.0
    assert rotation.due() is DEALERS[0]  # round again
    assert rotation.dealer("D04") is DEALERS[3] and rotation.dealer("S01") is None and rotation.dealer(None) is None


def test_the_dealers_are_not_alike() -> None:
    assert len({(dealer.pace_factor, dealer.error_factor) for dealer in DEALERS}) == len(DEALERS)
    assert min(dealer.error_factor for dealer in DEALERS) < 1.0 < max(dealer.error_factor for dealer in DEALERS)
    assert min(dealer.pace_factor for dealer in DEALERS) < 1.0 < max(dealer.pace_factor for dealer in DEALERS)
