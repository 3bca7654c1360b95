"""The hyper black jack field through the table core (55-4 6°): assignment, DEAL, the bank drawing for it, the
settlement and its order, past-posting on a case, and the core rebuilt from its journal rows."""

from __future__ import annotations

from table_runtime.config import zone_names
from table_runtime.core.record import replay
from table_runtime.core.table_core import TableCore
from table_runtime.game.events import HyperFieldSettled, RoundSettled
from table_runtime.game.rules import TableLimits
from table_runtime.game.snapshot import table_snapshot
from tests.table_runtime.core.hyper_table import Table


def test_unassigned_chips_refuse_deal_naming_the_case_and_the_amount() -> None:
    table = Table()
    table.set("box1", 1000)
    table.set("hyper.21", 1500)
    refused = table.press("DEAL")
    assert refused is not None and refused.reason == "hyper_unassigned"
    assert "hyper 21: 15.00 on the case, 0.00 assigned" in refused.message
    assert table.press("HYPER_ASSIGN", case="21", box=1, cents=1000) is None
    refused = table.press("DEAL")
    assert refused is not None and "15.00 on the case, 10.00 assigned" in refused.message
    assert table.press("HYPER_ASSIGN", case="21", box=1, cents=1500) is None
    assert table.press("DEAL") is None
    assert table.core.table.round is not None and [
        (bet.case, bet.box, bet.cents, bet.owner) for bet in table.core.table.round.hyper_bets] == [
        ("21", 1, 1500, "box1")]
    assert table.core.hyper.assigned == {}  # the field's stakes are the round's now


def test_an_assignment_needs_a_main_bet_and_a_seated_player_where_the_casino_says_so() -> None:
    table = Table(hyper_seated_only=True)
    refused = table.press("HYPER_ASSIGN", case="bust", box=2, cents=500)
    assert refused is not None and refused.reason == "hyper_no_main_bet"
    table.set("box2", 1000)
    table.set("box2.behind", 1000)
    refused = table.press("HYPER_ASSIGN", case="bust", box=2, cents=500, behind=True)
    assert refused is not None and refused.reason == "hyper_seated_only"
    refused = table.press("HYPER_ASSIGN", case="22", box=2, cents=500)
    assert refused is not None and refused.reason == "bad_hyper_assignment"
    assert table.press("HYPER_ASSIGN", case="bust", box=2, cents=500) is None
    closed = Table(hyper_blackjack=False)
    closed.set("box1", 1000)
    refused = closed.press("HYPER_ASSIGN", case="bust", box=1, cents=500)
    assert refused is not None and refused.reason == "hyper_closed"


def test_the_hyper_limits_are_per_case_and_box_like_the_boxes() -> None:
    table = Table()
    table.set("box1", 1000)
    table.set("hyper.20", 60_000)
    table.press("HYPER_ASSIGN", case="20", box=1, cents=60_000)
    table.press("DEAL")
    assert table.core.table.round is None
    (alarm,) = table.alarms
    assert (alarm.kind, alarm.box, dict(alarm.amounts)) == ("bet_over_maximum", 1,
                                                            {"hyper_cents": 60_000, "max_cents": 50_000})
    assert "hyper 20" in alarm.message


def test_all_boxes_busted_the_bank_still_draws_for_the_field_and_pays_it_in_the_texts_order() -> None:
    table = Table()
    table.set("box1", 1000)
    table.set("hyper.bust", 1000)
    table.set("hyper.20", 500)
    table.press("HYPER_ASSIGN", case="bust", box=1, cents=1000)
    table.press("HYPER_ASSIGN", case="20", box=1, cents=500)
    assert table.press("DEAL") is None
    table.draw("TC 6D 6C")  # box1 16 against a 6
    table.draw("9H")  # box1 busts: every main bet is decided
    round_ = table.core.table.round
    assert round_ is not None and round_.phase == "bank" and round_.bank_must_draw
    before = len(table.alarms)
    table.press("CONFIRM")
    (refusal,) = table.alarms[before:]
    assert (refusal.kind, refusal.reason) == ("bank_must_draw", "hyper_bank_must_draw")
    assert dict(refusal.amounts) == {"bank_total": 6, "hyper_cents": 1500}
    table.set("box1", 0)  # the dead stake collected at once: no past-posting
    table.draw("TD 8S")  # the bank: 6 + 10 = 16, then 8: bust
    (settled,) = [event for event in table.events if isinstance(event, HyperFieldSettled)]
    assert (settled.result, settled.staked_cents) == ("bust", 1500)
    (closing,) = [event for event in table.events if isinstance(event, RoundSettled)]
    assert [(p.kind, p.outcome, p.net_cents) for p in closing.payouts] == [
        ("hyper.20", "hyper_lose", -500), ("original", "bust", -1000), ("hyper.bust", "hyper_win", 2000)]
    check = table.core.snapshot_extra()["payout_check"]
    assert check["hyper.bust"] == {"due_cents": 3000, "seen_cents": 1000}
    assert check["hyper.20"] == {"due_cents": 0, "seen_cents": 500}
    table.set("hyper.bust", 3000)  # paid before the losing hyper stake is collected: out of order
    assert table.kinds()[-1] == "settlement_order"
    table.set("hyper.20", 0)
    table.press("CONFIRM")
    assert "wrong_payout" not in table.kinds() and table.core.table.round.phase == "closed"  # type: ignore[union-attr]
    assert table.kinds().count("settlement_order") == 1
    rebuilt = replay(TableCore(table.rules, TableLimits(), zones=zone_names(7, hyper=True)), table.rows)
    assert table_snapshot(rebuilt.table) == table_snapshot(table.core.table)
    assert rebuilt.chips == table.core.chips


def test_a_hyper_case_paid_short_is_a_wrong_payout_naming_the_case() -> None:
    table = Table()
    table.set("box3", 1000)
    table.set("hyper.21", 1000)
    table.press("HYPER_ASSIGN", case="21", box=3, cents=1000)
    table.press("DEAL")
    table.draw("TC 7D 9C")
    table.press("NEXT")
    table.draw("4H")  # the bank: 7 + 4 = 11, then a ten: 21
    table.draw("TH")
    table.set("box3", 0)  # 19 against 21: collected
    table.set("hyper.21", 10_000)  # due 1000 + 10 pour 1 = 11 000: 10.00 short
    table.press("CONFIRM")
    (wrong,) = [alarm for alarm in table.alarms if alarm.kind == "wrong_payout"]
    assert wrong.message.startswith("hyper.21: expected 110.00") and dict(wrong.amounts) == {
        "expected_cents": 11_000, "seen_cents": 10_000}


def test_chips_put_on_a_case_after_the_first_card_are_past_posting_naming_the_case() -> None:
    table = Table()
    table.set("box1", 1000)
    table.press("DEAL")
    table.draw("TC")
    table.set("hyper.blackjack", 500)
    (alarm,) = table.alarms
    assert alarm.kind == "past_posting" and "case BLACK JACK changed" in alarm.message and "55-4 6°" in alarm.rule
    assert dict(alarm.amounts) == {"expected_cents": 0, "seen_cents": 500}


def test_the_first_card_locks_unassigned_chips_with_an_alarm() -> None:
    table = Table()
    table.set("box1", 1000)
    table.set("hyper.17", 500)
    table.draw("TC")
    (alarm,) = table.alarms
    assert (alarm.kind, dict(alarm.amounts)) == ("hyper_unassigned", {"seen_cents": 500, "assigned_cents": 0})
    assert alarm.message.startswith("hyper.17:")


def test_an_assignment_is_taken_as_sent_never_coerced() -> None:
    """Issue 30: HYPER_ASSIGN took 10.5 cents as 10, `true` as 1 cent, "yes" as the player behind and 10^30
    cents. Each is refused, names what is wrong, and the field keeps no assignment."""
    table = Table()
    table.set("box1", 1000)
    for args, reason, words in (
        ({"cents": 10.5}, "bad_hyper_assignment", "box and cents (whole numbers)"),
        ({"cents": True}, "bad_hyper_assignment", "box and cents (whole numbers)"),
        ({"box": 1.0}, "bad_hyper_assignment", "box and cents (whole numbers)"),
        ({"case": 21}, "bad_hyper_assignment", "needs case (its name)"),
        ({"behind": "yes"}, "bad_hyper_assignment", "behind is true or false"),
        ({"cents": 10**30}, "input_out_of_bounds", "args.cents is past the floor's 64-bit numbers"),
    ):
        refused = table.press("HYPER_ASSIGN", **{"case": "21", "box": 1, "cents": 500, **args})
        assert refused is not None and (refused.reason, words in refused.message) == (reason, True), args
    assert table.core.hyper.assigned == {} and table.rows[-1].body["type"] != "HyperAssigned"
    assert table.press("HYPER_ASSIGN", case="21", box=1, cents=500, behind=False) is None
    assert table.core.hyper.assigned == {("21", "box1"): 500}
