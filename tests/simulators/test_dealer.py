"""The simulated dealer has a way on from whatever the table holds, and stops with a reason rather than loop."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from simulators.dealer import MAX_REFUSALS, DealerStuckError, Draw, Press, SimulatedDealer
from simulators.fast_table import FastTable
from table_runtime.game.cards import Card
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Discard, Double, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.game.table import Table
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController


def test_a_card_seen_too_often_on_a_doubled_hand_goes_to_the_discard_rack() -> None:
    table = Table(profile("fr-casino").replace(burn_cards=0, decks=1, cut_card_depth=10))
    table.apply(ShoeShuffled(shoe_id="test"))
    table.apply(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="p"),)))
    for code in ("6S", "6D", "5H"):
        table.apply(CardDrawn(card=Card.parse(code)))
    table.apply(Double())
    table.apply(CardDrawn(card=Card.parse("6S")))  # a second 6S in a one-deck shoe: held, the hand still waits
    round_ = table.round
    assert round_ is not None and round_.held and round_.current_hand is not None and round_.current_hand.doubled
    dealer = SimulatedDealer(table, random.Random(1), error_rate=0.0)
    assert dealer.next_intent(table) == Press("DISCARD")  # NEXT would be refused: a doubled hand takes its card
    table.apply(Discard())
    assert dealer.next_intent(table) == Draw()


def test_the_same_refusal_again_and_again_stops_the_dealer_with_the_reason() -> None:
    table = Table(profile("fr-casino"))
    dealer = SimulatedDealer(table, random.Random(1))
    for _ in range(MAX_REFUSALS - 1):
        dealer.saw(Press("NEXT"), "NEXT refused: a doubled hand must take exactly one card (art. 55-4 « Double-down »)")
    dealer.saw(Press("NEXT"), None)  # taken once: the count starts again
    for _ in range(MAX_REFUSALS - 1):
        dealer.saw(Press("NEXT"), "NEXT refused: a doubled hand must take exactly one card (art. 55-4 « Double-down »)")
    with pytest.raises(DealerStuckError, match=r"NEXT refused 3 times in a row \(NEXT refused: a doubled hand"):
        dealer.saw(Press("NEXT"), "NEXT refused: a doubled hand must take exactly one card (art. 55-4 « Double-down »)")


def _controller(data_dir: Path) -> TableController:
    return TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(),
                           journal=Journal.open(journal_path(data_dir)), clock=lambda: 1_800_000_000.0)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("rounds", "steps"), [(5, 0), (5, 12), (10, 21)])
def test_a_demo_restarted_with_another_shoe_finishes_its_rounds(tmp_path: Path, rounds: int, steps: int) -> None:
    """A journal of --seed 1 (stopped after `rounds` rounds and `steps` more actions) resumed with --seed 2:
    the new shoe's cards repeat cards the journal has seen (card_overcount); the dealer discards them."""
    first = _controller(tmp_path)
    table = FastTable(first, seed=1)
    table.run(rounds)
    for _ in range(steps):
        table.act(table.dealer.next_intent(first.table))
    first.journal.close()
    again = _controller(tmp_path)
    try:
        summary = FastTable(again, seed=2).run(20)
    finally:
        again.journal.close()
    assert summary.rounds == 20
    assert summary.alarms.get("card_overcount", 0) > 0, "the other shoe repeats cards: the case under test"
    assert "command_refused" not in summary.alarms
    assert sum(summary.alarms.values()) < 60
