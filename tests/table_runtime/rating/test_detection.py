"""Each score of a session flags the behaviour it is built for and not its look-alike without the count.

The rounds here are made up (RoundFacts as the table would record them) so that one thing differs between
the two players of each test; whole simulated sessions through the engine are in
tests/simulators/test_ap_sessions.py and the measured rates in bench/rating.py.
"""

from __future__ import annotations

import random

from table_runtime.rating.detection import SessionScores
from table_runtime.rating.round_facts import Decision, RoundFacts
from table_runtime.strategy import PlayTerms, Strategy
from table_runtime.strategy.chart import Action

STRATEGY = Strategy.for_rules(PlayTerms())


def _counts(rng: random.Random, rounds: int) -> list[tuple[str, float]]:
    """(shoe, true count) of consecutive rounds: a random walk that starts again at 0 every 30 rounds."""
    counts, count = [], 0.0
    for number in range(rounds):
        if number % 30 == 0:
            count = 0.0
        count += rng.gauss(0, 0.6)
        counts.append((f"S{number // 30}", count))
    return counts


def test_a_stake_that_follows_the_count_is_flagged_a_stake_that_follows_losses_is_not() -> None:
    rng = random.Random(7)
    counter, chaser = SessionScores(STRATEGY), SessionScores(STRATEGY)
    chase = 1000
    for number, (shoe, count) in enumerate(_counts(rng, 300)):
        net = rng.choice((-1, -1, 1, 0))
        stake = 1000 * max(1, min(8, int(count)))
        counter.update(RoundFacts(round=number, shoe=shoe, true_count=count, edge=count / 200 - 0.005, boxes=(1,),
                                  stake_cents=stake, net_cents=net * stake))
        chaser.update(RoundFacts(round=number, shoe=shoe, true_count=count, edge=count / 200 - 0.005, boxes=(1,),
                                 stake_cents=chase, net_cents=net * chase))
        chase = min(chase * 2, 16000) if net < 0 else 1000
    flags = counter.flags()
    assert [flag.score for flag in flags] == ["bet_count"]
    flag = flags[0]
    assert flag.figure("z_change") >= 3.3 and flag.figure("rho_stake_true_count") > 0.5  # type: ignore[operator]
    assert flag.figure("mean_stake_edge_above_1pct_cents") > flag.figure("mean_stake_edge_below_0_cents")  # type: ignore[operator]
    assert "stake follows the true count" in flag.message
    assert chaser.flags() == []
    assert abs(chaser.bet_count()[-2][1]) < 3.3  # type: ignore[arg-type]


def test_boxes_that_come_and_go_with_the_count_are_wonging() -> None:
    rng = random.Random(8)
    wonger, visitor = SessionScores(STRATEGY), SessionScores(STRATEGY)
    playing = False
    for number, (shoe, count) in enumerate(_counts(rng, 400)):
        playing = count >= 1 or (playing and count >= 0)
        boxes = ((1, 2) if count >= 3 else (1,)) if playing else ()
        wonger.update(RoundFacts(round=number, shoe=shoe, true_count=count, edge=0.0, boxes=boxes,
                                 stake_cents=2000 * len(boxes)))
        random_boxes = (1,) if rng.random() < 0.6 else ()
        visitor.update(RoundFacts(round=number, shoe=shoe, true_count=count, edge=0.0, boxes=random_boxes,
                                  stake_cents=2000 * len(random_boxes)))
    kinds = {flag.score: flag for flag in wonger.flags()}
    assert "wonging" in kinds
    wonging = kinds["wonging"]
    assert wonging.figure("mean_true_count_at_entry") > wonging.figure("mean_true_count_at_exit")  # type: ignore[operator]
    assert wonging.figure("mean_true_count_played") > wonging.figure("mean_true_count_all")  # type: ignore[operator]
    assert visitor.flags() == []


def _sixteen_v_ten(number: int, action: Action) -> Decision:
    return Decision(round=number, box=1, total=16, soft=False, pair=None, up=10, cards=2, action=action,
                    can_double=True, can_split=False)


def test_standing_on_16_against_a_ten_at_positive_counts_only_is_an_index_play() -> None:
    rng = random.Random(9)
    counter, careless = SessionScores(STRATEGY), SessionScores(STRATEGY)
    for number in range(200):
        count = rng.uniform(-4, 4)
        counter.update(RoundFacts(round=number, shoe="S1", true_count=count, edge=0.0, boxes=(1,), stake_cents=1000,
                                  decisions=(_sixteen_v_ten(number, Action.STAND if count >= 0 else Action.HIT),)))
        careless.update(RoundFacts(round=number, shoe="S1", true_count=count, edge=0.0, boxes=(1,),
                                   stake_cents=1000, decisions=(_sixteen_v_ten(
                                       number, Action.STAND if rng.random() < 0.5 else Action.HIT),)))
    flags = counter.flags()
    assert [flag.score for flag in flags] == ["index_plays"]
    assert flags[0].figure("departures_count_not_called") == 0
    assert "16 v T stand" in str(flags[0].figure("plays"))
    assert careless.flags() == []


def test_insurance_taken_only_at_high_counts_is_an_index_play() -> None:
    rng = random.Random(10)
    scores = SessionScores(STRATEGY)
    for number in range(400):
        count = rng.uniform(-5, 6)
        scores.update(RoundFacts(round=number, shoe="S1", true_count=count, edge=0.0, boxes=(1,), stake_cents=1000,
                                 insurance_offered=True, insurance_cents=500 if count >= 3 else 0))
    assert [flag.score for flag in scores.flags()] == ["index_plays"]


def test_the_black_jack_case_bet_when_the_shoe_makes_it_positive_is_flagged() -> None:
    rng = random.Random(11)
    advantage, fan = SessionScores(STRATEGY), SessionScores(STRATEGY)
    for number in range(300):
        chance = rng.uniform(0.035, 0.06)  # positive at 19 to 1 above 1/20
        advantage.update(RoundFacts(round=number, shoe="S1", true_count=0.0, edge=0.0, boxes=(1,), stake_cents=1000,
                                    bank_blackjack_chance=chance, hyper_blackjack_cents=500 if chance > 0.05 else 0))
        fan.update(RoundFacts(round=number, shoe="S1", true_count=0.0, edge=0.0, boxes=(1,), stake_cents=1000,
                              bank_blackjack_chance=chance, hyper_blackjack_cents=500 if rng.random() < 0.4 else 0))
    flags = advantage.flags()
    assert [flag.score for flag in flags] == ["hyper_blackjack"]
    assert flags[0].figure("bets_other_rounds") == 0 and flags[0].figure("odds") == 19
    assert fan.flags() == []
