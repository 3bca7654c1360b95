"""The basic-strategy player decides from what the table shows, through the real round; the bettor stays in limits."""

from __future__ import annotations

import random

import pytest

from simulators.players import BasicStrategyPlayer, NoTurnError, RandomBettor, decide
from table_runtime.game.cards import Card
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Confirm, Double, Next, ShoeShuffled, Split
from table_runtime.game.round import Round
from table_runtime.game.rules import PROFILES, RuleOptions, TableLimits
from table_runtime.game.table import Table


def dealt(rules: RuleOptions, player_cards: str, up: str) -> tuple[Table, Round]:
    """A one-box round dealt: the box's first card, the bank's up card, the box's second card."""
    table = Table(rules.replace(burn_cards=0, min_boxes_to_deal=1))
    table.apply(ShoeShuffled(shoe_id="test"))
    table.apply(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="p"),)))
    first, second = player_cards.split()
    for code in (first, up, second):
        table.apply(CardDrawn(card=Card.parse(code)))
    assert table.round is not None
    return table, table.round


@pytest.fixture(scope="module")
def casino() -> BasicStrategyPlayer:
    return BasicStrategyPlayer.for_rules(PROFILES["fr-casino"])


@pytest.mark.parametrize(("cards", "up", "expected"), [
    ("8S 8H", "6D", Split),  # 8-8 splits against a small card
    ("6S 5H", "6D", Double),  # 11 doubles against a 6
    ("TS 6H", "TD", None),  # 16 against a ten: hit
    ("TS 2H", "4D", Next),  # 12 against a 4: stand
    ("AS 7H", "2D", Next),  # soft 18 against a 2: stand
    ("TS TH", "6D", Next),  # tens are never split
])
def test_casino_player_follows_the_computed_chart(casino: BasicStrategyPlayer, cards: str, up: str,
                                                   expected: type | None) -> None:
    _, round_ = dealt(PROFILES["fr-casino"], cards, up)
    decision = decide(round_, casino)
    if expected is None:
        assert decision is None
    else:
        assert isinstance(decision, expected)


def test_no_hole_card_play_against_an_ace(casino: BasicStrategyPlayer) -> None:
    # Without a hole card a double against an ace loses twice to a bank blackjack: 11 hits (docs/strategy.md).
    table, round_ = dealt(PROFILES["fr-casino"], "6S 5H", "AD")
    assert round_.phase == "insurance"
    table.apply(Confirm())  # the player does not insure
    assert "DOUBLE" in round_.allowed()
    assert decide(round_, casino) is None


def test_a_split_hand_waiting_for_its_card_is_a_hit(casino: BasicStrategyPlayer) -> None:
    table, round_ = dealt(PROFILES["fr-casino"], "8S 8H", "6D")
    table.apply(Split())
    hand = round_.current_hand
    assert hand is not None and len(hand.cards) == 1
    assert decide(round_, casino) is None


def test_the_player_asks_only_for_what_the_rules_allow() -> None:
    # fr-classic splits identical ranks only and doubles on 9-11: K-Q stands, 6-5 vs 6 doubles, A-7 does not.
    rules = PROFILES["fr-classic"]
    player = BasicStrategyPlayer.for_rules(rules)
    _, round_ = dealt(rules, "KS QH", "6D")
    assert "SPLIT" not in round_.allowed()
    assert isinstance(decide(round_, player), Next)
    _, round_ = dealt(rules, "AS 7H", "5D")
    assert "DOUBLE" not in round_.allowed()
    assert not isinstance(decide(round_, player), Double)


def test_deciding_with_no_hand_playing_is_an_error(casino: BasicStrategyPlayer) -> None:
    _, round_ = dealt(PROFILES["fr-casino"], "AS KH", "6D")  # a blackjack: nothing to decide
    with pytest.raises(NoTurnError):
        decide(round_, casino)


def test_random_bettor_stakes_whole_chips_within_limits_and_repeats_with_its_seed() -> None:
    limits = TableLimits(min_bet_cents=1000, max_bet_cents=5000)
    bettor = RandomBettor(random.Random(3), limits, chip_cents=500, max_chips=40, behind_chance=0.5)
    locked = [bettor.bets((1, 4, 7)) for _ in range(200)]
    for bets in locked:
        assert [bet.box for bet in bets.bets] == [1, 4, 7]
        for bet in bets.bets:
            assert limits.min_bet_cents <= bet.seated_cents and bet.total_cents <= limits.max_bet_cents
            assert all(stake % 500 == 0 for stake in (bet.seated_cents, *(b.cents for b in bet.behind)))
    assert any(bet.behind for bets in locked for bet in bets.bets)
    again = RandomBettor(random.Random(3), limits, chip_cents=500, max_chips=40, behind_chance=0.5)
    assert [again.bets((1, 4, 7)) for _ in range(200)] == locked
    table = Table(PROFILES["fr-casino"], limits)
    table.apply(ShoeShuffled(shoe_id="t"))
    table.apply(locked[0])
    assert table.round is not None and table.round.phase == "dealing"
