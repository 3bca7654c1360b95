"""The Monte Carlo with the 2020 amendments through the engine's own code: the chart's surrenders sent as the
engine's `Surrender` (55-4 1°) and hyper black jack bets locked with the boxes' (55-4 6°), against the exact
figures of the strategy package."""

from __future__ import annotations

import json
import random

import pytest

from simulators.commands.simulate import parse_cases
from simulators.players import BasicStrategyPlayer
from simulators.simulation import UNIT_CENTS, DealingShoe, flat_bets, play_round, play_rounds, simulate
from table_runtime.cli import main
from table_runtime.game.hyper import ODDS, HyperCase, bank_result
from table_runtime.game.inputs import Confirm
from table_runtime.game.round import Round
from table_runtime.game.rules import PROFILES
from table_runtime.game.table import Table
from table_runtime.strategy import Action, PlayTerms, solve
from table_runtime.strategy.composition import VALUES, full_shoe, two_card_hand
from table_runtime.strategy.final_result import final_result_distribution, hyper_ev

FR_2020 = PROFILES["fr-2020"]


def exact_surrender_rate() -> float:
    """P(a box's first two cards and the bank's card make a hand the chart gives up), off the top."""
    strategy = solve(PlayTerms.from_options(FR_2020)).strategy
    shoe = list(full_shoe(6))
    cards = sum(shoe)
    rate = 0.0
    for up in range(2, 11):  # never against an ace (55-4 1°)
        p_up = shoe[up - 1] / cards
        shoe[up - 1] -= 1
        for first in VALUES:
            p_first = shoe[first - 1] / (cards - 1)
            shoe[first - 1] -= 1
            for second in VALUES:
                p_second = shoe[second - 1] / (cards - 2)
                total, soft = two_card_hand(first, second)
                pair = first if first == second else None
                if strategy.decide(total, soft, pair, up, False, False, True) is Action.SURRENDER:
                    rate += p_up * p_first * p_second
            shoe[first - 1] += 1
        shoe[up - 1] += 1
    return rate


def test_monte_carlo_agrees_with_the_exact_figures_within_three_standard_errors() -> None:
    # fr-2020 on one box, a unit on every hyper case: 40,000 seeded rounds through the round engine (the long
    # run is in bench/README.md). The exact figures are off the top of a full shoe; the simulation deals
    # shoes to the cut card, which moves them by far less than a standard error here.
    result = simulate(FR_2020, 40_000, boxes=1, seed=2020)
    tally = result.tally
    assert result.hyper_cases == tuple(HyperCase)
    exact = solve(PlayTerms.from_options(FR_2020)).player_ev
    assert abs(result.ev - exact) < 3 * result.stderr, (result.ev, exact, result.stderr)
    rate, expected_rate = tally.surrenders / tally.initial_bets, exact_surrender_rate()
    assert abs(rate - expected_rate) < 3 * (expected_rate * (1 - expected_rate) / tally.initial_bets) ** 0.5
    hyper = result.document()["hyper"]
    assert hyper["rounds"] == tally.rounds
    # What the engine paid the field is what the bank's final results say one unit on each case wins or loses.
    won = sum(round(hyper["bank_final_result"][case.value] * tally.rounds) * (ODDS[case] + 1) for case in HyperCase)
    assert hyper["net_units"] == won - len(HyperCase) * tally.rounds
    evs = hyper_ev(final_result_distribution(6))
    for case in HyperCase:
        simulated, error = hyper["ev"][case.value], hyper["stderr"][case.value]
        assert 0 < error < 0.03
        assert abs(simulated - evs[case]) < 3 * error, (case, simulated, evs[case], error)


def test_a_hand_the_chart_gives_up_is_the_engines_surrender_at_half_its_stake() -> None:
    # The simulation sends the engine's own Surrender (game/surrender.py): the hand takes no third card and its
    # payout is the engine's, half the stake back; every other hand as the chart plays it.
    player = BasicStrategyPlayer.for_rules(FR_2020)
    surrendered_hands = 0

    def check(round_: Round) -> None:
        nonlocal surrendered_hands
        up = round_.bank.cards[0].value
        for hand in round_.hands:
            first = hand.cards[0].value
            pair = first if hand.cards[1].value == first else None
            chart = player.strategy.decide(hand.total, hand.soft, pair, up, False, False, up != 1)
            gives_up = len(hand.cards) == 2 and not hand.from_split and chart is Action.SURRENDER
            assert hand.surrendered == gives_up, (hand.cards, up)
            if hand.surrendered:
                surrendered_hands += 1
                payouts = [p for p in round_.payouts if (p.box, p.hand) == (hand.box, hand.index)]
                assert [(p.outcome, p.net_cents) for p in payouts] == [("surrender", -UNIT_CENTS // 2)]

    tally = play_rounds(FR_2020, 3_000, 2, random.Random(7), player, on_round=check)
    assert surrendered_hands == tally.surrenders > 100


def test_the_engine_completes_the_banks_hand_for_the_hyper_field_when_every_box_has_busted() -> None:
    table = Table(FR_2020)
    shoe = DealingShoe(table, random.Random(3))
    player = BasicStrategyPlayer.for_rules(FR_2020)
    bets = flat_bets(1, hyper_cases=(HyperCase.BUST, HyperCase.SEVENTEEN))
    for _ in range(500):
        round_ = play_round(shoe, bets, player)
        if all(hand.busted for hand in round_.hands):
            break
        table.apply(Confirm())
    else:
        pytest.fail("no round where every box busted in 500 rounds")
    bank = round_.bank
    assert len(bank.cards) >= 2 and (bank.total >= 17), "the bank drew on to 17 for the hyper field (55-4 6°)"
    result = bank_result(bank.total, len(bank.cards))
    hyper = {p.kind: p.net_cents for p in round_.payouts if p.kind.startswith("hyper.")}
    assert hyper == {f"hyper.{case.value}": (UNIT_CENTS * ODDS[case] if case is result else -UNIT_CENTS)
                     for case in (HyperCase.BUST, HyperCase.SEVENTEEN)}


def test_a_surrender_is_only_offered_on_the_first_two_cards_against_a_card_other_than_an_ace() -> None:
    table = Table(FR_2020)
    shoe = DealingShoe(table, random.Random(11))
    player = BasicStrategyPlayer.for_rules(FR_2020)
    seen = 0
    for _ in range(400):
        round_ = play_round(shoe, flat_bets(3), player)
        for hand in round_.hands:
            if hand.surrendered:
                assert len(hand.cards) == 2 and not hand.from_split and not hand.doubled
                assert round_.bank.cards[0].value != 1
                seen += 1
        table.apply(Confirm())
    assert seen > 20


def test_cases_to_bet_are_parsed_with_a_clear_error() -> None:
    assert parse_cases("all") == tuple(HyperCase)
    assert parse_cases("none") == ()
    assert parse_cases("17, BUST,17") == (HyperCase.SEVENTEEN, HyperCase.BUST)
    with pytest.raises(ValueError, match="'22' is not a hyper black jack case"):
        parse_cases("22")


def test_simulate_command_bets_the_cases_it_is_given(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--profile", "fr-2020", "--rounds", "2000", "--seed", "4", "--hyper", "bust",
                 "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    hyper = document["hyper"]
    assert hyper["cases_bet"] == ["bust"]
    busts = round(hyper["bank_final_result"]["bust"] * hyper["rounds"])
    assert hyper["net_units"] == busts * (ODDS[HyperCase.BUST] + 1) - hyper["rounds"]  # 2 pour 1, stake back
    assert sum(hyper["bank_final_result"].values()) == pytest.approx(1.0)
    assert document["surrenders"] > 0
    assert main(["simulate", "--profile", "fr-casino", "--rounds", "200", "--json"]) == 0
    assert "hyper" not in json.loads(capsys.readouterr().out)  # not offered: no hyper bets by default
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--profile", "fr-2020", "--rounds", "10", "--hyper", "22"])
    assert exit_.value.code == 2
    assert "'22' is not a hyper black jack case" in capsys.readouterr().err
