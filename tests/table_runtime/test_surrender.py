"""Surrender (« abandon », art. 55-4 1° as amended on 6 May 2020) and the one pair of aces, golden rounds.

The text: the player may give up « de ses deux premières cartes et sous réserve que le croupier n'ait pas
d'as », taking back half of the initial stake; the players behind undergo it (art. 55-4, « les joueurs debout »).
Deal order: box, bank, box (art. 55-4 « Déroulement de la partie »), so ``"TS 9D 6H"`` gives box 1 TS 6H against
the bank's 9D.
"""

from __future__ import annotations

from table_runtime.game.decisions import split_refusal
from table_runtime.game.events import Alarm, HandSurrendered
from table_runtime.game.refusals import RefusalReason
from table_runtime.game.rules import profile

from .scenario import play


def _refusals(played_alarms: list[Alarm]) -> list[str]:
    return [alarm.reason for alarm in played_alarms if alarm.kind == "command_refused"]


def test_surrender_gives_half_the_stake_back_at_once_55_4_1_2020() -> None:
    played = play("TS 9D 6H SURRENDER", rules="fr-2020")
    round_ = played.table.round
    assert round_ is not None and round_.phase == "settlement"  # the only hand is settled: nothing left to draw
    assert [card.code for card in round_.bank.cards] == ["9D"]
    assert played.outcomes(1) == [(0, "original", "surrender", -500)]
    (event,) = [event for event in played.events if isinstance(event, HandSurrendered)]
    assert (event.box, event.hand, event.staked_cents, event.returned_cents) == (1, 0, 1000, 500)
    assert round_.boxes[0].hands[0].status(False) == "surrendered"


def test_surrender_is_offered_on_the_first_two_cards_only_where_the_rules_allow_it() -> None:
    offered = play("TS 9D 6H", rules="fr-2020").table.round
    assert offered is not None and "SURRENDER" in offered.allowed()
    regulation = play("TS 9D 6H SURRENDER")  # fr-casino: the 2007 text, no surrender
    assert _refusals(regulation.alarms) == [RefusalReason.SURRENDER_NOT_OFFERED]
    round_ = regulation.table.round
    assert round_ is not None and "SURRENDER" not in round_.allowed() and round_.phase == "playing"


def test_no_surrender_against_a_bank_ace() -> None:
    played = play("TS AD 6H CONFIRM SURRENDER", rules="fr-2020")
    assert _refusals(played.alarms) == [RefusalReason.SURRENDER_BANK_ACE]
    round_ = played.table.round
    assert round_ is not None and round_.turn == (1, 0) and "SURRENDER" not in round_.allowed()


def test_no_surrender_after_a_third_card_or_a_double() -> None:
    third = play("TS 9D 3H 2C SURRENDER", rules="fr-2020")
    assert _refusals(third.alarms) == [RefusalReason.SURRENDER_TWO_CARDS]
    assert third.alarms[0].box == 1 and "55-4 1°" in third.alarms[0].rule


def test_no_surrender_of_a_split_hand() -> None:
    played = play("8S 9D 8H SPLIT 3C SURRENDER", rules="fr-2020")
    assert _refusals(played.alarms) == [RefusalReason.SURRENDER_AFTER_SPLIT]


def test_the_player_behind_undergoes_the_surrender_000_3() -> None:
    played = play("TS 9D 6H SURRENDER", bets="1:1000,c=600", rules="fr-2020")
    assert [(p.owner, p.outcome, p.net_cents) for p in played.payouts] == [
        ("p1", "surrender", -500), ("c", "surrender", -300)]
    (event,) = [event for event in played.events if isinstance(event, HandSurrendered)]
    assert (event.staked_cents, event.returned_cents) == (1600, 800)


def test_half_of_an_odd_stake_is_rounded_down_and_said() -> None:
    played = play("TS 9D 6H SURRENDER", bets="1:1001", rules="fr-2020")
    (payout,) = played.payouts
    assert (payout.net_cents, payout.staked_cents + payout.net_cents) == (-501, 500)
    assert payout.note == "half of 1001 cents is 500.5 cents: returned 500"


def test_a_surrendered_box_leaves_the_others_to_play_and_the_bank_draws_for_them() -> None:
    played = play("TS 5S 9D 6H TH SURRENDER NEXT 8C", bets="1:1000 2:1000", rules="fr-2020")
    round_ = played.table.round
    assert round_ is not None and [card.code for card in round_.bank.cards] == ["9D", "8C"]
    assert played.outcomes(1) == [(0, "original", "surrender", -500)]
    assert played.outcomes(2) == [(0, "original", "lose", -1000)]  # 5S TH = 15 against 9D 8C = 17

def test_undo_takes_a_surrender_back() -> None:
    played = play("TS 9D 6H SURRENDER UNDO", rules="fr-2020")
    round_ = played.table.round
    assert round_ is not None and round_.phase == "playing" and round_.turn == (1, 0)
    assert round_.payouts == () and "SURRENDER" in round_.allowed()
    assert not round_.boxes[0].hands[0].surrendered
    again = play("TS 9D 6H SURRENDER UNDO NEXT 8C", rules="fr-2020")
    assert again.outcomes(1) == [(0, "original", "lose", -1000)]  # 16 against 17


def test_one_pair_of_aces_only_55_4_2020_and_000_32() -> None:
    """« le joueur ne peut séparer qu'une seule paire d'as » (2020): an ace dealt to split aces is not split
    again, in the fr-2020 profile as in the regulation's own text (art. 55-4 « Les paires »)."""
    rules = profile("fr-2020")
    played = play("AS 7H AD SPLIT AC", rules=rules)
    round_ = played.table.round
    assert round_ is not None
    box = round_.boxes[0]
    aces = box.hands[0]
    assert [card.code for card in aces.cards] == ["AS", "AC"] and aces.finished(False)  # one card, no turn
    refusal = split_refusal(aces, rules, box)
    assert refusal is not None and refusal.reason == RefusalReason.SPLIT_ACES_AGAIN
    assert round_.turn == (1, 1) and "SPLIT" not in round_.allowed() and len(box.hands) == 2
