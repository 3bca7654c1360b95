"""The core's chip watch, driven as the runtime drives it: reader events through the readers' edge, the dealer's
commands through the command table, a real controller and journal (docs/rules.md "What the table catches").

Every alarm comes from the one transition of the core, in the transaction of the input that caused it.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment

from table_runtime.display.schema import SNAPSHOT_SCHEMA
from table_runtime.game.inputs import Discard, Next, Undo, Void
from tests.table_runtime.chip_table import ChipTable


class Table(ChipTable):
    """60 chips, 6 scans a read unless a test says otherwise."""

    def __init__(self, path: Path, rules: str = "fr-casino", *, scans: int = 6) -> None:
        super().__init__(path, rules, chips=60, scans=scans)


def box1_wins_ten(table: Table) -> None:
    """To settlement: box1 (10.00 €) stands on 20 against a 6, the bank ends on 18: 20.00 € due on box1."""
    table.lock({"box1": 2})
    table.draw("TS 6D TC")
    table.controller.submit(Next(), source="panel")
    table.draw("TH 2S")


def test_chips_taken_off_the_insurance_line_during_its_window_are_past_posting(tmp_path: Path) -> None:
    table = Table(tmp_path)
    controller = table.controller
    table.lock({"box1": 2, "box1.insurance": 1})  # a chip on the line before the deal: out of place at the lock
    assert [alarm["kind"] for alarm in controller.alarms.active] == ["chips_out_of_place"]
    assert table.watch.phase == "locked"  # the lock's own alarm does not undo the lock
    table.draw("TS AH 5D")  # the bank's ace: the insurance window opens
    assert controller.table.round is not None and controller.table.round.phase == "insurance"
    table.zones["box1.insurance"] = []  # the chip leaves the line while the window is open
    table.scan(6)
    assert table.press("CONFIRM")["ok"]  # CONFIRM closes the window: nothing is on the line to insure
    assert controller.table.round.boxes[0].insurance == 0
    alarms = {alarm["kind"]: alarm for alarm in controller.alarms.active}
    past = alarms["past_posting"]  # docs/rules.md "Past-posting": chips removed from a locked zone
    assert past["box"] == 1 and past["amounts"] == {"expected_cents": 500, "seen_cents": 0}
    assert "during the insurance window" in past["message"]
    table.journal.close()


def test_after_a_restart_a_chip_put_on_a_zone_meanwhile_is_past_posting(tmp_path: Path) -> None:
    """docs/rules.md "Power loss": the locks are replayed from the journal, not taken from the zones as they stand
    after the restart: the chips that never moved are quiet, a behind stake slipped onto box2 is not."""
    first = Table(tmp_path)
    first.lock({"box1": 2})
    first.draw("TS 6H 5D")  # box1 plays 15 against a 6
    first.journal.close()  # the power goes

    second = Table(tmp_path)  # the journal replays the round
    round_ = second.controller.table.round
    assert round_ is not None and round_.phase == "playing"
    assert second.watch.phase == "locked" and second.watch.locks["box1"].cents == 1000  # replayed
    second.put("box1", 2)  # the same chips, where they were
    second.put("box2.behind", 1)  # a behind stake on a box nobody plays
    second.scan(5)
    assert [(alarm["kind"], alarm["box"], alarm["amounts"]) for alarm in second.alarms()] == [
        ("past_posting", 2, {"expected_cents": 0, "seen_cents": 500})]
    second.journal.close()


def payout_check(table: Table) -> object:
    return table.controller.snapshot().get("payout_check")


def test_the_snapshot_shows_each_zone_due_and_seen_as_the_dealer_pays_and_drops_it_at_close(tmp_path: Path) -> None:
    """docs/rules.md "A round", step 6: the dealer sees a wrong payout on the display before CONFIRM closes the
    round."""
    table = Table(tmp_path)
    controller = table.controller
    pushed: list[object] = []  # what the display was last told, as the runtime pushes it after every change
    controller.subscribe(lambda: pushed.append(controller.snapshot().get("payout_check")))
    table.lock({"box1": 2, "box2": 2})  # 10.00 € each (5.00 € chips)
    table.draw("TS 9H 6D TC 7C")  # box1 20, box2 16, the bank shows a 6
    assert payout_check(table) is None  # nothing is checked while the round is played
    controller.submit(Next(), source="panel")
    controller.submit(Next(), source="panel")
    table.draw("TH 2S")  # the bank 18: box1 wins, box2 loses
    round_ = controller.table.round
    assert round_ is not None and round_.phase == "settlement" and table.watch.phase == "settling"
    # Settlement begins: the untouched zones against what each must end at; empty zones of unplayed boxes are left out.
    assert payout_check(table) == {"box1": {"due_cents": 2000, "seen_cents": 1000},
                                   "box2": {"due_cents": 0, "seen_cents": 1000}}
    assert pushed[-1] == payout_check(table)
    jsonschema.validate(controller.snapshot(), SNAPSHOT_SCHEMA)  # the display contract, payout_check included

    table.put("box1", 1)  # paid 5.00 € short...
    table.zones["box2"] = []  # ...and box2's stake collected
    table.scan(2)  # a chip counts after 2 reads, a chip gone after 5
    assert payout_check(table) == {"box1": {"due_cents": 2000, "seen_cents": 1500},
                                   "box2": {"due_cents": 0, "seen_cents": 1000}}
    assert pushed[-1] == payout_check(table)
    table.scan(3)
    assert payout_check(table) == {"box1": {"due_cents": 2000, "seen_cents": 1500},
                                   "box2": {"due_cents": 0, "seen_cents": 0}}
    assert pushed[-1] == payout_check(table)
    table.put("box1", 2)  # then 5.00 € too much
    table.scan()
    assert payout_check(table) == {"box1": {"due_cents": 2000, "seen_cents": 2500},
                                   "box2": {"due_cents": 0, "seen_cents": 0}}
    assert pushed[-1] == payout_check(table)
    table.free.append(table.zones["box1"].pop())  # the dealer takes one back: right now
    table.scan(5)
    assert payout_check(table) == {"box1": {"due_cents": 2000, "seen_cents": 2000},
                                   "box2": {"due_cents": 0, "seen_cents": 0}}
    assert pushed[-1] == payout_check(table)
    assert table.watch.expected["box1"] == 2000

    table.press("CONFIRM")  # CONFIRM, as the runtime does it: no alarm, the round closes
    assert round_.phase == "closed"
    assert [alarm["kind"] for alarm in controller.alarms.active] == []
    assert payout_check(table) is None and "payout_check" not in controller.snapshot() and pushed[-1] is None
    assert table.watch.expected == {}
    table.journal.close()


def test_a_payout_still_wrong_at_confirm_is_raised_and_the_round_closes_as_before(tmp_path: Path) -> None:
    table = Table(tmp_path)
    controller = table.controller
    box1_wins_ten(table)
    table.put("box1", 1)
    table.scan()
    assert payout_check(table) == {"box1": {"due_cents": 2000, "seen_cents": 1500}}
    table.press("CONFIRM")
    alarms = [alarm for alarm in controller.alarms.active if alarm["kind"] == "wrong_payout"]
    assert [(alarm["box"], alarm["amounts"]) for alarm in alarms] == [(1, {"expected_cents": 2000, "seen_cents": 1500})]
    assert controller.table.round is not None and controller.table.round.phase == "closed"
    assert "payout_check" not in controller.snapshot()
    table.journal.close()


def test_undo_out_of_settlement_takes_the_check_off_and_the_bank_card_again_brings_it_back(tmp_path: Path) -> None:
    table = Table(tmp_path)
    controller = table.controller
    box1_wins_ten(table)
    assert payout_check(table) == {"box1": {"due_cents": 2000, "seen_cents": 1000}}
    controller.submit(Undo())  # the bank's last card taken back: nothing is due yet
    round_ = controller.table.round
    assert round_ is not None and round_.phase == "bank" and table.watch.phase == "locked"
    assert "payout_check" not in controller.snapshot()
    table.scan()
    assert "payout_check" not in controller.snapshot()  # a scan outside settlement does not bring it back
    table.draw("5S")  # the bank 21 this time: box1 loses
    assert round_.phase == "settlement"
    assert payout_check(table) == {"box1": {"due_cents": 0, "seen_cents": 1000}}
    table.journal.close()


def test_a_round_voided_at_settlement_takes_the_check_off(tmp_path: Path) -> None:
    table = Table(tmp_path)
    controller = table.controller
    box1_wins_ten(table)
    assert payout_check(table) == {"box1": {"due_cents": 2000, "seen_cents": 1000}}
    controller.submit(Void())
    assert controller.table.round is not None and controller.table.round.phase == "voided"
    assert "payout_check" not in controller.snapshot() and table.watch.phase == "betting"
    table.journal.close()


def test_chips_added_in_an_open_window_then_no_double_is_past_posting_with_the_amounts(tmp_path: Path) -> None:
    table = Table(tmp_path)
    controller = table.controller
    table.lock({"box1": 2})
    table.draw("TS 6H 5D")  # box1 15 against a 6: its double window is open
    table.put("box1", 2)  # a stake equal to the original appears...
    table.scan(3)
    controller.submit(Next(), source="panel")  # ...but the dealer stands the hand (docs/rules.md "Past-posting")
    (alarm,) = [alarm for alarm in controller.alarms.active if alarm["kind"] == "past_posting"]
    assert alarm["box"] == 1
    assert alarm["amounts"] == {"expected_cents": 1000, "seen_cents": 2000, "added_cents": 1000}
    assert "added with no double or split; locked 10.00 €, now 20.00 €" in alarm["message"]
    table.journal.close()


def test_a_blackjack_paid_before_the_bank_draws_is_not_past_posting_nor_a_wrong_payout(tmp_path: Path) -> None:
    """docs/rules.md "Settlement", a house option: with pay_blackjack_before_bank a blackjack is paid and removed
    before the bank
    draws; the chips leaving its zone are that payment, not past-posting, and the zone then ends empty."""
    table = Table(tmp_path, "fr-classic")
    table.lock({"box1": 2, "box2": 2})  # 10.00 € each; fr-classic deals with 2 boxes at least
    table.draw("AS 9C 9D TS 7C")  # box1 blackjack, box2 16, the bank shows a 9: box1 is paid at once
    round_ = table.controller.table.round
    assert round_ is not None and round_.phase == "playing"
    table.put("box1", 3)  # 15.00 € paid (3:2)...
    table.scan()
    table.take("box1")  # ...and the player takes stake and payout away
    table.scan()
    assert [alarm["kind"] for alarm in table.alarms()] == []
    table.controller.submit(Next(), source="panel")  # box2 stands on 16
    table.draw("TH")  # the bank 19: box2 loses
    assert round_.phase == "settlement"
    table.take("box2")
    table.scan()
    table.press("CONFIRM")
    assert round_.phase == "closed"
    assert [alarm["kind"] for alarm in table.alarms()] == []
    table.journal.close()


def test_after_a_restart_the_round_waits_for_every_reader_before_locking_the_zones(tmp_path: Path) -> None:
    """docs/rules.md "Power loss": with two readers, the scans of the first say nothing of the second's zones (its
    chips must not read as taken off and put back: past-posting that never happened)."""
    first = Table(tmp_path)
    first.lock({"box1": 2, "box2": 2})
    first.draw("TS 9H 6D TC 7C")  # box1 19, box2 16, the bank shows a 6: box1 plays
    first.journal.close()  # the power goes

    second = Table(tmp_path)
    round_ = second.controller.table.round
    assert round_ is not None and round_.phase == "playing"
    second.put("box1", 2)
    second.put("box2", 2)  # the chips never moved
    second.scan(5, zones=("box1", "box1.behind", "box1.insurance"), reader="left")
    second.scan(5, zones=("box2", "box2.behind", "box2.insurance", "box3", "box4", "box5", "box6", "box7",
                          "box3.behind", "box4.behind", "box5.behind", "box6.behind", "box7.behind",
                          "box3.insurance", "box4.insurance", "box5.insurance", "box6.insurance",
                          "box7.insurance"), reader="right")
    assert second.watch.phase == "locked"
    assert second.watch.locks["box2"].cents == 1000
    assert [alarm["kind"] for alarm in second.alarms()] == []
    second.journal.close()


def test_chips_of_any_amount_added_in_a_window_then_standing_are_past_posting(tmp_path: Path) -> None:
    """docs/rules.md "Past-posting": 5.00 € slipped onto a 10.00 € stake while a double was possible, then NEXT: no
    double was ever asked, so it is past-posting (not a double of the wrong amount)."""
    table = Table(tmp_path)
    table.lock({"box1": 2})
    table.draw("TS 6H 5D")  # box1 15 against a 6: its double window is open
    table.put("box1", 1)
    table.scan()
    table.controller.submit(Next(), source="panel")
    assert [alarm["kind"] for alarm in table.alarms()] == ["past_posting"]
    (alarm,) = table.alarms()
    assert alarm["box"] == 1
    assert alarm["amounts"] == {"expected_cents": 1000, "seen_cents": 1500, "added_cents": 500}
    table.journal.close()


def test_undoing_a_resplit_then_the_split_lets_the_dealer_hand_back_both_stakes(tmp_path: Path) -> None:
    """docs/rules.md "Corrections and recall": each UNDO of a split gives its stake back to the player without
    past-posting,
    the first split's too (the zone was left locked at the stake of two hands)."""
    table = Table(tmp_path)
    table.lock({"box1": 2})  # 10.00 €
    table.draw("8S 6H 8D")  # a pair of 8s against a 6
    table.put("box1", 2)
    table.scan()
    table.press("SPLIT")
    table.draw("8C")  # the first hand pairs again
    table.put("box1", 2)
    table.scan()
    table.press("SPLIT")
    round_ = table.controller.table.round
    assert round_ is not None and len(round_.hands) == 3 and table.alarms() == []
    table.controller.submit(Undo(), source="panel")  # the resplit taken back...
    table.take("box1", 2)  # ...and its stake handed back
    table.scan()
    assert len(round_.hands) == 2 and table.alarms() == []
    table.controller.submit(Undo(), source="panel")  # the 8C taken back (held for the dealer)
    table.controller.submit(Undo(), source="panel")  # the split taken back...
    assert len(round_.hands) == 1
    table.take("box1", 2)  # ...and its stake handed back
    table.scan()
    table.controller.submit(Discard(), source="panel")  # the held 8C goes to the discard
    table.controller.submit(Next(), source="panel")  # box1 stands on 16: its window closes
    assert round_.phase == "bank"
    assert [alarm["kind"] for alarm in table.alarms()] == []
    assert table.watch.total("box1") == table.watch.locks["box1"].cents == 1000
    table.journal.close()


def test_after_a_restart_undoing_a_new_double_lets_the_dealer_hand_its_stake_back(tmp_path: Path) -> None:
    """docs/rules.md "Power loss", "Corrections and recall": a split made before the power cut, a double after it, then
    UNDO of
    the double: its stake handed back is not past-posting (the link counted the split the journal replayed as
    if it were the double, and kept the zone locked at the doubled stake)."""
    first = Table(tmp_path)
    first.lock({"box1": 2})  # 10.00 €
    first.draw("8S 6H 8D")
    first.put("box1", 2)
    first.scan()
    first.press("SPLIT")
    first.draw("3C")  # the first hand: 8 + 3
    first.journal.close()  # the power goes

    second = Table(tmp_path)
    round_ = second.controller.table.round
    assert round_ is not None and len(round_.hands) == 2
    second.put("box1", 4)  # both hands' stakes, as before the cut
    second.scan()
    assert second.watch.phase == "locked" and second.alarms() == []
    second.put("box1", 2)
    second.scan()
    second.press("DOUBLE")
    assert round_.hands[0].doubled
    second.controller.submit(Undo(), source="panel")  # the double taken back...
    second.take("box1", 2)  # ...and its stake handed back
    second.scan()
    second.controller.submit(Next(), source="panel")  # the first hand stands on 11
    assert [alarm["kind"] for alarm in second.alarms()] == []
    assert second.watch.locks["box1"].cents == 2000
    second.journal.close()


def test_chips_put_on_the_insurance_line_after_its_window_closed_are_past_posting(tmp_path: Path) -> None:
    """docs/rules.md "Past-posting": once CONFIRM closed the insurance window, a chip slipped onto the line (when the
    bank's second card is seen coming) is past-posting at once, the insured box's line and the other's."""
    table = Table(tmp_path)
    table.lock({"box1": 2, "box2": 2})
    table.draw("TS 9H AD TC 7C")  # box1 20, box2 16, the bank's ace: insurance
    round_ = table.controller.table.round
    assert round_ is not None and round_.phase == "insurance"
    table.put("box1.insurance", 1)  # box1 insures for 5.00 €
    table.scan()
    table.press("CONFIRM")
    assert round_.phase == "playing" and table.alarms() == []
    assert [box.insurance for box in round_.boxes] == [500, 0]
    table.put("box2.insurance", 1)
    table.put("box1.insurance", 1)
    table.scan()
    alarms = [alarm for alarm in table.alarms() if alarm["kind"] == "past_posting"]
    assert sorted((alarm["box"], alarm["amounts"]["seen_cents"]) for alarm in alarms) == [(1, 1000), (2, 500)]
    table.journal.close()


def test_insurance_collected_when_the_bank_draws_its_second_card_is_not_past_posting(tmp_path: Path) -> None:
    """docs/rules.md "Insurance": with no hole card it is settled when the bank draws its second card; the dealer
    collects a lost insurance then, before the bank draws on. Chips slipped onto an uninsured line still alarm."""
    table = Table(tmp_path)
    table.lock({"box1": 2, "box2": 2})
    table.draw("TS 9H AD TC 7C")  # box1 20, box2 16, the bank's ace
    table.put("box1.insurance", 1)
    table.scan()
    table.press("CONFIRM")
    table.controller.submit(Next(), source="panel")
    table.controller.submit(Next(), source="panel")
    table.draw("5H")  # the bank A5, soft 16: no blackjack, box1's insurance is lost; the bank draws on
    round_ = table.controller.table.round
    assert round_ is not None and round_.phase == "bank"
    table.take("box1.insurance")  # the dealer collects it now
    table.scan()
    assert table.alarms() == []
    table.put("box2.insurance", 1)  # nobody insured box2: this is past-posting
    table.scan()
    assert [(alarm["kind"], alarm["box"]) for alarm in table.alarms()] == [("past_posting", 2)]
    table.take("box2.insurance")
    table.draw("2D")  # soft 18: box1 wins, box2 loses
    assert round_.phase == "settlement"
    table.put("box1", 2)
    table.take("box2")
    table.scan()
    table.press("CONFIRM")
    assert [(alarm["kind"], alarm["box"]) for alarm in table.alarms()] == [("past_posting", 2)]
    table.journal.close()


def test_a_busted_stake_collected_at_once_is_not_past_posting(tmp_path: Path) -> None:
    """docs/rules.md "Player decisions": over 21 the hand is dead at once, stake collected (000). The dealer takes the
    chips then; any other change of the zone is still past-posting, and settlement checks the zone is empty."""
    table = Table(tmp_path)
    table.lock({"box1": 2, "box2": 2})
    table.draw("TS 9H 6D 6C 7C")  # box1 16, box2 16, the bank shows a 6
    table.draw("8S")  # box1 busts
    table.take("box1")  # its stake collected at once
    table.scan()
    assert table.alarms() == []
    table.controller.submit(Next(), source="panel")  # box2 stands
    table.draw("TH 2S")  # the bank 18: box2 loses
    round_ = table.controller.table.round
    assert round_ is not None and round_.phase == "settlement"
    table.take("box2")
    table.scan()
    table.press("CONFIRM")
    assert table.alarms() == []
    table.journal.close()


def test_after_a_restart_a_busted_stake_already_collected_is_not_past_posting(tmp_path: Path) -> None:
    first = Table(tmp_path)
    first.lock({"box1": 2, "box2": 2})
    first.draw("TS 9H 6D 6C 7C 8S")  # box1 busts
    first.journal.close()  # the power goes (box1's stake was collected)

    second = Table(tmp_path)
    second.put("box2", 2)
    second.scan()
    assert second.watch.phase == "locked"
    assert second.alarms() == []
    second.journal.close()


def test_a_double_after_the_busted_split_hand_was_collected_is_a_double(tmp_path: Path) -> None:
    """Split 8s, the first hand busts and its stake is collected at once; the second hand doubles: the chips
    added are the double, whatever left the zone for the dead hand (it was 'no stake added')."""
    table = Table(tmp_path)
    table.lock({"box1": 2})  # 10.00 €
    table.draw("8S 6H 8D")
    table.put("box1", 2)
    table.scan()
    table.press("SPLIT")
    table.draw("5C TC")  # the first hand 8 5 10: bust
    table.take("box1", 2)  # its stake collected at once
    table.scan()
    table.draw("3D")  # the second hand 8 3: it may double
    table.put("box1", 2)
    table.scan()
    table.press("DOUBLE")
    round_ = table.controller.table.round
    assert round_ is not None and round_.hands[1].doubled
    assert [alarm["kind"] for alarm in table.alarms()] == []
    table.journal.close()


def test_insurance_line_is_closed_for_the_rest_of_the_round_after_confirm(tmp_path: Path) -> None:
    table = Table(tmp_path, scans=3)
    table.lock({"box1": 2})
    table.draw("TS AH 5D")  # box1 15, the bank's ace: the insurance line opens for 5.00 €
    table.put("box1.insurance", 1)
    table.scan()
    assert table.press("CONFIRM")["ok"]
    round_ = table.controller.table.round
    assert round_ is not None and round_.phase == "playing" and round_.boxes[0].insurance == 500
    table.put("box1.insurance", 1)  # a chip slipped onto the line while box1 plays
    table.scan(6)
    past = [alarm for alarm in table.controller.alarms.active if alarm["kind"] == "past_posting"]
    assert [(alarm["box"], alarm["amounts"]["seen_cents"]) for alarm in past] == [(1, 1000)]
    table.journal.close()
