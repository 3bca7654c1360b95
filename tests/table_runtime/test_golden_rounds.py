"""Golden rounds: whole rounds with their payouts in cents, each citing the seed line it encodes.

Deal order (art. 55-4 « Déroulement de la partie », no hole card the houses' texts): box order, one card to the bank,
box order again.
The rules: docs/rules.md (the regulation, arrêté du 14 mai 2007 art. 55-4, and the houses' options).
"""

from __future__ import annotations

from table_runtime.game import citations
from table_runtime.game.cards import Card
from table_runtime.game.events import Alarm, BlackjackPaidEarly, CardsDiscarded
from table_runtime.game.inputs import InsurancePlaced
from table_runtime.game.rules import TableLimits, profile
from table_runtime.game.table import Table

from .scenario import play


def test_higher_hand_paid_even_money() -> None:
    played = play("TS 9H KD NEXT TC")
    assert played.table.phase == "settlement"
    assert played.net() == {1: 1000}


def test_lower_hand_collected() -> None:
    assert play("TS 9H 7D NEXT TC").net() == {1: -1000}


def test_equal_hand_is_a_push() -> None:
    played = play("TS 9H 9D NEXT TC")
    assert played.outcomes(1) == [(0, "original", "push", 0)]


def test_bank_bust_pays_every_hand_in_play() -> None:
    played = play("TS 5S 6H 6D TD NEXT NEXT TC 8C", bets="1:1000 2:1000")
    assert played.table.round is not None and played.table.round.bank.busted
    assert played.net() == {1: 1000, 2: 1000}


def test_busted_hand_is_collected_and_bank_does_not_draw() -> None:
    played = play("TS 6H 6D TH")
    round_ = played.table.round
    assert round_ is not None and round_.phase == "settlement"
    assert len(round_.bank.cards) == 1  # docs/rules.md: no stake left to compare, the bank does not draw
    assert played.outcomes(1) == [(0, "original", "bust", -1000)]


def test_blackjack_paid_three_to_two() -> None:
    played = play("AS 9H KD 8C")
    assert played.outcomes(1) == [(0, "original", "blackjack", 1500)]


def test_bank_draws_only_its_second_card_for_a_waiting_blackjack_rules_bank() -> None:
    played = play("AS 5H KD 6C")
    round_ = played.table.round
    assert round_ is not None and [c.code for c in round_.bank.cards] == ["5H", "6C"]
    assert round_.phase == "settlement"
    assert played.net() == {1: 1500}


def test_blackjack_against_bank_blackjack_is_a_push() -> None:
    played = play("AS AH KD CONFIRM KC")
    assert played.outcomes(1) == [(0, "original", "push", 0)]


def test_blackjack_beats_twenty_one_in_three_cards() -> None:
    played = play("AS TS 5H KD QS NEXT 6C TC", bets="1:1000 2:1000")
    assert played.table.round is not None and played.table.round.bank.total == 21
    assert played.net() == {1: 1500, 2: -1000}


def test_bank_stands_on_soft_17() -> None:
    played = play("TS 6H 9D NEXT AC")
    round_ = played.table.round
    assert round_ is not None and round_.bank.total == 17 and round_.bank.soft
    assert len(round_.bank.cards) == 2
    assert played.net() == {1: 1000}


def test_option_bank_hits_soft_17_contrast() -> None:
    rules = profile("fr-casino").replace(dealer_hits_soft_17=True)
    played = play("TS 6H 9D NEXT AC 3C", rules=rules)
    assert played.table.round is not None and played.table.round.bank.total == 20
    assert played.net() == {1: -1000}


def test_bank_ace_counts_eleven_when_it_reaches_17_to_21() -> None:
    played = play("TS 5H 9D NEXT AC 4C")
    round_ = played.table.round
    assert round_ is not None and round_.bank.total == 20 and len(round_.bank.cards) == 3
    assert played.net() == {1: -1000}


def test_insurance_won_pays_two_to_one() -> None:
    played = play("TS AH 9D INS:1:500 CONFIRM NEXT KC")
    assert sorted(played.outcomes(1)) == [(0, "insurance", "insurance_win", 1000), (0, "original", "lose", -1000)]
    assert played.net() == {1: 0}


def test_insurance_lost_and_play_goes_on() -> None:
    played = play("TS AH 9D INS:1:500 CONFIRM NEXT 7C")
    assert sorted(played.outcomes(1)) == [(0, "insurance", "insurance_lose", -500), (0, "original", "win", 1000)]


def test_insurance_must_be_half_the_stake() -> None:
    played = play("TS AH 9D INS:1:400")
    assert played.alarm_kinds == ["insurance_refused"]
    alarm = played.alarms[0]
    assert alarm.box == 1 and dict(alarm.amounts) == {"expected_cents": 500, "seen_cents": 400}
    assert played.table.round is not None and played.table.round.boxes[0].insurance == 0


def test_insurance_only_offered_on_a_bank_ace() -> None:
    played = play("TS 9H 9D INS:1:500")
    assert played.alarm_kinds == ["insurance_refused"]


def test_insured_blackjack_is_paid_one_to_one_when_bank_makes_blackjack() -> None:
    played = play("AS AH KD INS:1:500 CONFIRM TC")
    assert played.net() == {1: 1000}


def test_insured_blackjack_is_paid_one_to_one_when_bank_does_not() -> None:
    played = play("AS AH KD INS:1:500 CONFIRM 7C")
    assert played.net() == {1: 1000}


def test_double_adds_an_equal_stake_and_wins_both() -> None:
    played = play("5S 6H 6D DOUBLE TC TD 8C")
    assert played.outcomes(1) == [(0, "original", "win", 1000), (0, "double", "win", 1000)]


def test_double_receives_exactly_one_card() -> None:
    played = play("5S 6H 6D DOUBLE 2C TD 5C")
    round_ = played.table.round
    assert round_ is not None and len(round_.boxes[0].hands[0].cards) == 3
    assert [c.code for c in round_.bank.cards] == ["6H", "TD", "5C"]
    assert played.net() == {1: -2000}


def test_fr_classic_doubles_only_on_9_10_11() -> None:
    played = play("5S TS 6H 3D 7D DOUBLE", bets="1:1000 2:1000", rules="fr-classic")
    assert played.alarm_kinds == ["command_refused"]
    assert "9, 10 or 11" in played.alarms[0].message
    round_ = played.table.round
    assert round_ is not None and not round_.boxes[0].hands[0].doubled


def test_fr_classic_never_doubles_a_soft_hand() -> None:
    played = play("AS TS 6H 8D 7D DOUBLE", bets="1:1000 2:1000", rules="fr-classic")
    assert played.alarm_kinds == ["command_refused"]


def test_split_of_two_ten_valued_cards_of_different_rank() -> None:
    played = play("KS 6H QD SPLIT 9C NEXT 8C NEXT TD 8H", bets="1:1000")
    round_ = played.table.round
    assert round_ is not None and len(round_.boxes[0].hands) == 2
    assert played.outcomes(1) == [(0, "original", "win", 1000), (1, "split", "win", 1000)]


def test_fr_classic_splits_only_identical_cards() -> None:
    played = play("KS TS 6H QD 7D SPLIT", bets="1:1000 2:1000", rules="fr-classic")
    assert played.alarm_kinds == ["command_refused"]


def test_split_aces_take_one_card_each_and_21_is_not_blackjack() -> None:
    played = play("AS 7H AD SPLIT KC QD TS")
    assert played.outcomes(1) == [(0, "original", "win", 1000), (1, "split", "win", 1000)]


def test_split_aces_are_not_split_again() -> None:
    played = play("AS 7H AD SPLIT AC")
    round_ = played.table.round
    assert round_ is not None
    assert round_.next_card_target == "box1.hand1"  # the ace pair on hand 0 is finished with one card
    assert "SPLIT" not in round_.allowed()


def test_resplit_without_limit_in_the_regulation() -> None:
    played = play("8S 6H 8D SPLIT 8C SPLIT 8H SPLIT")
    round_ = played.table.round
    assert round_ is not None and len(round_.boxes[0].hands) == 4
    assert played.alarm_kinds == []


def test_fr_classic_allows_three_hands_at_most() -> None:
    played = play("TS 8S 6H TD 8D NEXT SPLIT 8C SPLIT 8H SPLIT", bets="1:1000 2:1000", rules="fr-classic")
    round_ = played.table.round
    assert round_ is not None and len(round_.boxes[1].hands) == 3
    assert played.alarm_kinds == ["command_refused"]


def test_online_splits_once() -> None:
    played = play("8S 6H 8D SPLIT 8C SPLIT", rules="online")
    round_ = played.table.round
    assert round_ is not None and len(round_.boxes[0].hands) == 2
    assert played.alarm_kinds == ["command_refused"]


def test_double_after_split() -> None:
    played = play("5S 6H 5D SPLIT 6C DOUBLE TC 4C NEXT TD 2H")
    assert played.outcomes(1) == [
        (0, "original", "win", 1000), (0, "double", "win", 1000), (1, "split", "lose", -1000)]


def test_behind_stake_follows_a_double() -> None:
    played = play("5S 6H 6D DOUBLE:c TC TD 8C", bets="1:1000,c=500")
    assert sorted(played.outcomes(1)) == [
        (0, "double", "win", 500), (0, "double", "win", 1000),
        (0, "original", "win", 500), (0, "original", "win", 1000)]


def test_behind_stake_declines_a_double_and_plays_single_rules_settlement() -> None:
    played = play("5S 6H 6D DOUBLE TC TD 8C", bets="1:1000,c=500")
    by_owner: dict[str, int] = {}
    for payout in played.payouts:
        by_owner[payout.owner] = by_owner.get(payout.owner, 0) + payout.net_cents
    assert by_owner == {"p1": 2000, "c": 500}


def test_behind_stake_declining_a_split_stays_on_the_first_hand_rules_settlement() -> None:
    played = play("8S 6H 8D SPLIT TC NEXT 2C NEXT TD 2H", bets="1:1000,c=500")
    # bank 6+10+2 = 18; hand 0 is 18 (push), hand 1 is 10 (lose)
    assert sorted(played.outcomes(1)) == [
        (0, "original", "push", 0), (0, "original", "push", 0), (1, "split", "lose", -1000)]


def test_bank_blackjack_takes_doubled_stakes_without_hole_card() -> None:
    played = play("5S AH 6D CONFIRM DOUBLE 9C KC")
    assert played.outcomes(1) == [(0, "original", "lose", -1000), (0, "double", "lose", -1000)]


def test_option_bank_blackjack_takes_original_only_contrast() -> None:
    rules = profile("fr-casino").replace(bank_blackjack_takes="original_only")
    played = play("5S AH 6D CONFIRM DOUBLE 9C KC", rules=rules)
    assert played.net() == {1: -1000}


def test_bank_blackjack_takes_split_stakes() -> None:
    played = play("8S TH 8D SPLIT TC NEXT 9C NEXT AS")
    assert played.net() == {1: -2000}


def test_twenty_one_after_split_is_paid_even() -> None:
    played = play("KS 9H QD SPLIT AC 8C NEXT TC")
    assert played.outcomes(1) == [(0, "original", "win", 1000), (1, "split", "lose", -1000)]


def test_ten_card_charlie_wins_even_against_bank_blackjack() -> None:
    # The insurance keeps the bank drawing its second card, which makes blackjack.
    played = play("AS AH AD INS:1:500 CONFIRM AC AS 2S 2H 2D 2C 2S 2H KC", rules="online")
    round_ = played.table.round
    assert round_ is not None and len(round_.boxes[0].hands[0].cards) == 10
    assert round_.bank.blackjack
    assert played.outcomes(1) == [(0, "insurance", "insurance_win", 1000), (0, "original", "charlie", 1000)]


def test_no_charlie_in_the_regulation_contrast() -> None:
    played = play("AS AH AD INS:1:500 CONFIRM AC AS 2S 2H 2D 2C 2S 2H NEXT KC")
    assert played.outcomes(1) == [(0, "insurance", "insurance_win", 1000), (0, "original", "lose", -1000)]


def test_fr_classic_pays_blackjack_at_once_against_a_bank_ten() -> None:
    played = play("AS TS TH KD 9D NEXT AC", bets="1:1000 2:1000", rules="fr-classic")
    round_ = played.table.round
    assert round_ is not None and round_.bank.blackjack
    assert played.net() == {1: 1500, 2: -1000}


def test_blackjack_paid_early_says_what_it_pays() -> None:
    # Box 1: 10.01 seated + 5.00 behind; 3:2 of 1001 cents is 1501.5, paid 1501 (rounded down, as settled).
    played = play("AS TS TH KD 9D NEXT AC", bets="1:1001,c=500 2:1000", rules="fr-classic")
    (early,) = [event for event in played.events if isinstance(event, BlackjackPaidEarly)]
    assert (early.box, early.hand, early.staked_cents, early.cents) == (1, 0, 1501, 1501 + 750)
    assert early.cents == sum(p.net_cents for p in played.payouts if p.box == 1)


def test_regulation_pushes_that_blackjack_against_bank_blackjack() -> None:
    played = play("AS TS TH KD 9D NEXT AC", bets="1:1000 2:1000")
    assert played.net() == {1: 0, 2: -1000}


def test_fr_classic_needs_two_boxes() -> None:
    played = play("", bets="1:1000", rules="fr-classic")
    assert played.alarm_kinds == ["too_few_boxes"]
    assert played.table.phase == "betting"


def test_box_over_the_maximum_with_behind_stakes() -> None:
    played = play("", bets="1:4000,c=2000", limits=TableLimits(min_bet_cents=500, max_bet_cents=5000))
    assert played.alarm_kinds == ["bet_over_maximum"]
    alarm = played.alarms[0]
    assert alarm.box == 1 and dict(alarm.amounts) == {"total_cents": 6000, "max_cents": 5000}
    assert played.table.round is None


def test_box_under_the_minimum() -> None:
    played = play("", bets="1:1000 2:100")
    assert played.alarm_kinds == ["bet_under_minimum"] and played.alarms[0].box == 2


def test_first_five_cards_of_a_shoe_are_burned() -> None:
    played = play("", lock=False)
    assert played.table.shoe.burns_left == 0 and played.table.shoe.dealt == 5
    assert [type(e).__name__ for e in played.events].count("CardBurned") == 5


def test_cut_card_finishes_the_round_then_a_new_shoe() -> None:
    played = play("TS 9H CUT KD NEXT TC CONFIRM BETS")
    assert played.net() == {1: 1000}  # the round in progress finished normally
    assert played.alarm_kinds == ["new_shoe_needed"]
    played_after_shuffle = play("TS 9H CUT KD NEXT TC CONFIRM SHUFFLE:S2 9C 9D 9H 9S 8C BETS")
    assert played_after_shuffle.table.round is not None and played_after_shuffle.table.round.number == 2


def test_online_shuffles_before_every_round() -> None:
    played = play("TS 9H KD NEXT TC CONFIRM BETS", rules="online")
    assert played.alarm_kinds == ["new_shoe_needed"]


def test_seventh_ace_of_spades_is_an_alarm_and_not_played() -> None:
    played = play("TS 9H 5D AS AS AS AS AS AS AS")
    kinds = played.alarm_kinds
    assert kinds == ["card_overcount"]
    round_ = played.table.round
    assert round_ is not None
    assert [c.code for c, reason in round_.held] == ["AS"] and round_.held[0][1] == "overcount"


def test_card_for_a_bank_that_must_stand_is_held() -> None:
    played = play("TS 9H KD NEXT 8C 5D")
    assert played.alarm_kinds == ["bank_must_stand"]
    round_ = played.table.round
    assert round_ is not None and round_.bank.total == 17 and len(round_.bank.cards) == 2


def test_undo_after_a_card_for_a_bank_that_must_stand_takes_back_that_card() -> None:
    # art. 55-4 « Déroulement de la partie »: on 17 the bank's total is final. The extra 5C is held; UNDO takes that
    # card back (it came last),
    # not the bank's 7C: the bank keeps its 17, no card stays held, and the next card is held again.
    played = play("TS TD 9H NEXT 7C 5C UNDO")
    round_ = played.table.round
    assert round_ is not None and round_.phase == "settlement"
    assert [c.code for c in round_.bank.cards] == ["TD", "7C"] and round_.bank.total == 17
    assert round_.held == [] and "ActionUndone" not in [type(e).__name__ for e in played.events]
    assert [e.cards for e in played.events if isinstance(e, CardsDiscarded)] == [(Card.parse("5C"),)]
    assert "CONFIRM" in round_.allowed()
    assert played.net() == {1: 1000}
    again = play("TS TD 9H NEXT 7C 5C UNDO 4D")
    assert again.alarm_kinds == ["bank_must_stand", "bank_must_stand"]
    assert again.table.round is not None and again.table.round.bank.total == 17
    closed = play("TS TD 9H NEXT 7C 5C UNDO CONFIRM")
    assert closed.table.phase == "closed" and closed.net() == {1: 1000}


def test_undo_after_the_held_card_is_taken_back_undoes_the_action_before_it() -> None:
    # The second UNDO takes back the bank's 7C, as after any card: the held card comes first, then the actions.
    played = play("TS TD 9H NEXT 7C 5C UNDO UNDO")
    round_ = played.table.round
    assert round_ is not None and [c.code for c in round_.bank.cards] == ["TD"]
    assert [(c.code, reason) for c, reason in round_.held] == [("7C", "undo")]


def test_confirm_while_the_bank_must_draw_is_refused() -> None:
    played = play("TS 9H KD NEXT CONFIRM")
    assert played.alarm_kinds == ["bank_must_draw"]
    assert played.table.phase == "bank"


def test_held_card_blocks_confirm_until_discarded() -> None:
    played = play("TS 9H KD NEXT TC 5D CONFIRM DISCARD CONFIRM")
    assert played.alarm_kinds == ["bank_must_stand", "command_refused"]
    assert played.table.phase == "closed"


def test_undo_moves_the_last_card_to_the_right_hand() -> None:
    # box 1 stood on 18 but the dealer drew before NEXT: the 3 went to box 1; UNDO, NEXT sends it to box 2.
    played = play("TS 9S 6H 8D 5D 3C UNDO NEXT NEXT TH TC", bets="1:1000 2:1000")
    round_ = played.table.round
    assert round_ is not None
    assert [c.code for c in round_.boxes[0].hands[0].cards] == ["TS", "8D"]
    assert [c.code for c in round_.boxes[1].hands[0].cards] == ["9S", "5D", "3C"]
    assert "ActionUndone" in [type(e).__name__ for e in played.events]


def test_void_ends_the_round_with_no_payouts() -> None:
    played = play("TS 9H KD VOID")
    assert played.table.phase == "voided"
    assert played.payouts == ()


def test_odd_cents_blackjack_is_rounded_down_and_says_so_rules_money() -> None:
    played = play("AS 9H KD 8C", bets="1:1001")
    (payout,) = played.payouts
    assert payout.net_cents == 1501 and "1501.5" in payout.note


def test_house_rounding_of_blackjack_to_the_smallest_chip_rules_money() -> None:
    rules = profile("fr-casino").replace(blackjack_round_down_cents=100)
    played = play("AS 9H KD 8C", bets="1:500", rules=rules)
    (payout,) = played.payouts
    assert payout.net_cents == 700 and "rounded down" in payout.note


def test_insurance_with_no_round_names_the_box_and_the_amount() -> None:
    (alarm,) = Table(profile("fr-casino")).apply(InsurancePlaced(box=3, cents=500))
    assert isinstance(alarm, Alarm)
    assert alarm.kind == "insurance_refused" and alarm.box == 3
    assert dict(alarm.amounts) == {"seen_cents": 500} and alarm.rule == citations.INSURANCE_IN_ROUND
