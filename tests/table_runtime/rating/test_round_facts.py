"""The facts of a round read back from the engine's settled round: stakes, money, and each decision."""

from __future__ import annotations

from table_runtime.game.cards import parse_cards
from table_runtime.game.inputs import (
    BetsLocked,
    BoxBet,
    CardDrawn,
    Confirm,
    Double,
    HyperBet,
    Next,
    ShoeShuffled,
    Split,
)
from table_runtime.game.rules import PROFILES
from table_runtime.game.table import Table
from table_runtime.rating.round_facts import facts_of_round
from table_runtime.strategy.chart import Action


def _table(bets: tuple[BoxBet, ...]) -> Table:
    table = Table(PROFILES["fr-casino"].replace(burn_cards=0))
    table.apply(ShoeShuffled(shoe_id="S1"))
    table.apply(BetsLocked(bets=bets))
    return table


def _draw(table: Table, codes: str) -> None:
    for card in parse_cards(codes):
        table.apply(CardDrawn(card=card))


def test_a_double_a_hit_and_a_stand_are_read_from_the_hands() -> None:
    table = _table((BoxBet(box=1, seated_cents=1000, owner="p"), BoxBet(box=2, seated_cents=1000, owner="p"),
                    BoxBet(box=3, seated_cents=500, owner="q")))
    _draw(table, "5H TH 7C 9S 6D 6C TD")  # box1 5 6, box2 T 6, box3 7 T, bank 9
    table.apply(Double())
    _draw(table, "9C")  # box1: 11 doubled, 20
    _draw(table, "2C")  # box2: 16 hit, 18
    table.apply(Next())
    table.apply(Next())  # box3 stands on 17
    _draw(table, "8H")  # bank 9 8: 17
    round_ = table.round
    assert round_ is not None and round_.phase == "settlement"
    facts = facts_of_round(round_, "p", shoe="S1", true_count=1.5, edge=0.002)
    assert facts.boxes == (1, 2) and facts.stake_cents == 2000 and facts.action_cents == 3000
    assert facts.net_cents == 2000 + 1000
    assert not facts.insurance_offered and facts.insurance_cents == 0
    assert [(d.box, d.total, d.cards, d.action, d.up) for d in facts.decisions] == [
        (1, 11, 2, Action.DOUBLE, 9), (2, 16, 2, Action.HIT, 9), (2, 18, 3, Action.STAND, 9)]
    assert facts.decisions[0].can_double and facts.decisions[2].can_double is False
    other = facts_of_round(round_, "q", shoe="S1", true_count=1.5, edge=0.002)
    assert other.boxes == (3,) and other.net_cents == 0 and [d.action for d in other.decisions] == [Action.STAND]
    table.apply(Confirm())


def test_a_split_is_one_decision_on_the_pair_then_each_hand_plays() -> None:
    table = _table((BoxBet(box=1, seated_cents=1000, owner="p"),))
    _draw(table, "8H 6S 8D")  # box1 8 8, bank 6
    table.apply(Split())
    _draw(table, "3C")  # hand 0: 8 3
    table.apply(Double())
    _draw(table, "TC")  # 21
    _draw(table, "TD")  # hand 1: 8 T
    table.apply(Next())
    _draw(table, "TH TS")  # bank 6 T T: bust
    round_ = table.round
    assert round_ is not None and round_.phase == "settlement"
    facts = facts_of_round(round_, "p", shoe="S1", true_count=0.0, edge=0.0)
    assert [(d.total, d.pair, d.action) for d in facts.decisions] == [
        (16, 8, Action.SPLIT), (11, None, Action.DOUBLE), (18, None, Action.STAND)]
    assert facts.stake_cents == 1000 and facts.action_cents == 3000 and facts.net_cents == 3000


def test_the_black_jack_case_stake_of_the_players_box_is_read_from_the_field() -> None:
    table = Table(PROFILES["fr-2020"].replace(burn_cards=0))
    table.apply(ShoeShuffled(shoe_id="S1"))
    table.apply(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="p"),),
                           hyper=(HyperBet(case="blackjack", box=1, cents=500, owner="p"),
                                  HyperBet(case="bust", box=1, cents=500, owner="p"))))
    _draw(table, "TH AS 9C")  # box1 T 9, bank A
    table.apply(Confirm())  # nobody insures
    table.apply(Next())
    _draw(table, "KD")  # the bank's blackjack
    round_ = table.round
    assert round_ is not None and round_.phase == "settlement"
    facts = facts_of_round(round_, "p", shoe="S1", true_count=0.0, edge=0.0)
    assert facts.hyper_blackjack_cents == 500 and facts.insurance_offered and facts.insurance_cents == 0
