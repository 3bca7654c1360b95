"""The Monte Carlo through the real round engine: right on average, reproducible, money exact, shoes as dealt."""

from __future__ import annotations

import json
import os
import random
from fractions import Fraction

import pytest

from simulators.players import BasicStrategyPlayer
from simulators.simulation import DealingShoe, Tally, flat_bets, play_round, play_rounds, simulate, worker_random
from table_runtime.game.events import Payout
from table_runtime.game.inputs import Confirm
from table_runtime.game.round import Round
from table_runtime.game.rules import PROFILES
from table_runtime.game.table import Table
from table_runtime.strategy import PlayTerms, solve

RATIOS = {"blackjack": Fraction(3, 2), "win": Fraction(1), "charlie": Fraction(1), "push": Fraction(0),
          "lose": Fraction(-1), "bust": Fraction(-1), "insurance_win": Fraction(2), "insurance_lose": Fraction(-1)}


@pytest.mark.parametrize(("profile", "boxes"), [("fr-casino", 1), ("online", 3)])
def test_small_run_agrees_with_the_computed_house_edge(profile: str, boxes: int) -> None:
    rules = PROFILES[profile]
    result = simulate(rules, 15_000, boxes=boxes, seed=11)
    expected = solve(PlayTerms.from_options(rules)).player_ev
    assert result.tally.rounds == 15_000 and result.tally.initial_bets == 15_000 * boxes
    assert 0.004 < result.stderr < 0.02
    # within four standard errors (the cut card costs far less than one here)
    assert abs(result.ev - expected) < 4 * result.stderr, (result.ev, expected, result.stderr)
    # a natural comes about 4.7% of the time off a six-deck shoe (2 * 24/312 * 96/311)
    assert abs(result.blackjack_rate - 2 * 24 / 312 * 96 / 311) < 0.006


def test_the_same_seed_and_workers_give_the_same_result() -> None:
    rules = PROFILES["fr-casino"]
    first = simulate(rules, 3_000, boxes=2, seed=5, workers=2)
    second = simulate(rules, 3_000, boxes=2, seed=5, workers=2)
    assert first.tally == second.tally
    assert first.document()["ev"] == second.document()["ev"]
    assert simulate(rules, 3_000, boxes=2, seed=6, workers=2).tally != first.tally
    # one worker in this process plays the same shoe as worker 0 of a pool
    alone = simulate(rules, 1_500, boxes=2, seed=5)
    assert alone.tally == play_rounds(rules, 1_500, 2, worker_random(5, 0))


def test_every_payout_is_the_stake_times_its_outcome_and_the_net_adds_up() -> None:
    rules = PROFILES["fr-casino"]
    seen: list[Round] = []
    nets = 0

    def check(round_: Round) -> None:
        nonlocal nets
        seen.append(round_)
        payouts: tuple[Payout, ...] = round_.payouts
        stakes = [stake for hand in round_.hands for stake in hand.stakes]
        assert len(payouts) == len(stakes)  # nobody insures: one payout per stake
        assert sorted(p.staked_cents for p in payouts) == sorted(s.cents for s in stakes)
        for payout in payouts:
            assert payout.net_cents == payout.staked_cents * RATIOS[payout.outcome], payout
        nets += sum(payout.net_cents for payout in payouts)

    tally = play_rounds(rules, 2_000, 7, random.Random(2), on_round=check)
    assert len(seen) == tally.rounds == 2_000
    assert tally.net_cents == nets
    assert tally.hands == sum(len(round_.hands) for round_ in seen) >= 7 * 2_000
    assert any(payout.kind == "split" for round_ in seen for payout in round_.payouts)
    assert any(payout.kind == "double" for round_ in seen for payout in round_.payouts)


def test_online_shuffles_every_round_and_the_casino_deals_to_the_cut_card() -> None:
    online = play_rounds(PROFILES["online"], 500, 2, random.Random(1))
    assert online.shoes == online.rounds == 500
    casino = PROFILES["fr-casino"]
    table = Table(casino)
    shoe = DealingShoe(table, random.Random(4))
    player = BasicStrategyPlayer.for_rules(casino)
    bets = flat_bets(7)
    shoe.new_shoe()
    assert table.shoe.dealt == casino.burn_cards and table.shoe.burns_left == 0
    rounds = 0
    while not table.shoe.cut_card_reached:
        before = table.shoe.cards_left
        round_ = play_round(shoe, bets, player)
        table.apply(Confirm())
        rounds += 1
        assert round_.phase == "closed"
    # the cut card came out in the last round, about one deck from the end, and that round was finished
    assert before >= casino.cut_card_depth > table.shoe.cards_left
    assert shoe.needs_new_shoe and shoe.shoes == 1 and 5 < rounds < 20
    play_round(shoe, bets, player)
    assert shoe.shoes == 2 and table.shoe.rounds == 1


def test_tallies_merge_field_by_field() -> None:
    a = Tally(rounds=1, hands=2, initial_bets=1, bet_cents=1000, net_cents=-1000, net_squares=10**6, shoes=1)
    b = Tally(rounds=2, hands=2, initial_bets=2, bet_cents=2000, net_cents=1500, net_squares=3 * 10**6, blackjacks=1)
    assert a.merged(b) == Tally(rounds=3, hands=4, initial_bets=3, bet_cents=3000, net_cents=500,
                                net_squares=4 * 10**6, blackjacks=1, shoes=1)


def test_simulate_command_prints_the_documented_json(capsys: pytest.CaptureFixture[str]) -> None:
    from table_runtime.cli import main

    assert main(["simulate", "--profile", "fr-classic", "--rounds", "1000", "--seed", "3", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert {"profile", "rounds", "hands", "initial_bet_units", "net_units", "ev", "stderr", "blackjack_rate",
            "rounds_per_second", "seed", "workers"} <= set(document)
    assert document["profile"] == "fr-classic" and document["rounds"] == 1000 and document["seed"] == 3
    assert document["initial_bet_units"] == 2000  # fr-classic deals to two boxes at least
    assert document["ev"] == pytest.approx(document["net_units"] / document["initial_bet_units"])
    assert main(["simulate", "--profile", "fr-classic", "--rounds", "10", "--boxes", "1"]) == 2
    assert "deals to 2 to 7 boxes" in capsys.readouterr().err
    assert main(["simulate", "--rounds", "200", "--workers", "0", "--json"]) == 0  # 0: one worker per core
    assert json.loads(capsys.readouterr().out)["workers"] == (os.cpu_count() or 1)
