"""Review of the chip link: each test drives a real watcher and a real controller with the reader events the
driver yields, and pins a bug found in review (TABLE.md What the controller must catch)."""

from __future__ import annotations

from pathlib import Path

from table_runtime.game.inputs import Confirm, Discard, Double, Next, Split, Undo
from tests.table_runtime.chip_table import ChipTable


class Table(ChipTable):
    """60 chips, 6 scans a read unless a test says otherwise."""

    def __init__(self, path: Path, rules: str = "fr-casino") -> None:
        super().__init__(path, rules, chips=60, scans=6)


def test_a_blackjack_paid_before_the_bank_draws_is_not_past_posting_nor_a_wrong_payout(tmp_path: Path) -> None:
    """RULES.md Settlement, 002: with pay_blackjack_before_bank a blackjack is paid and removed before the bank
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
    table.link.verify_payouts()
    table.controller.submit(Confirm())
    assert round_.phase == "closed"
    assert [alarm["kind"] for alarm in table.alarms()] == []
    table.journal.close()


def test_after_a_restart_the_round_waits_for_every_reader_before_locking_the_zones(tmp_path: Path) -> None:
    """TABLE.md Power loss: with two readers, three scans of the first must not lock the second's zones as
    empty (its chips then read as added to a locked zone: past-posting that never happened)."""
    first = Table(tmp_path)
    first.lock({"box1": 2, "box2": 2})
    first.draw("TS 9H 6D TC 7C")  # box1 19, box2 16, the bank shows a 6: box1 plays
    first.journal.close()  # the power goes

    second = Table(tmp_path)
    round_ = second.controller.table.round
    assert round_ is not None and round_.phase == "playing"
    second.put("box1", 2)
    second.put("box2", 2)  # the chips never moved
    second.scan(4, zones=("box1", "box1.behind", "box1.insurance"), reader="left")
    second.scan(4, zones=("box2", "box2.behind", "box2.insurance", "box3", "box4", "box5", "box6", "box7",
                          "box3.behind", "box4.behind", "box5.behind", "box6.behind", "box7.behind",
                          "box3.insurance", "box4.insurance", "box5.insurance", "box6.insurance",
                          "box7.insurance"), reader="right")
    assert second.watcher.phase == "locked"
    assert second.watcher.locked_cents("box2") == 1000
    assert [alarm["kind"] for alarm in second.alarms()] == []
    second.journal.close()


def test_chips_of_any_amount_added_in_a_window_then_standing_are_past_posting(tmp_path: Path) -> None:
    """TABLE.md past-posting: 5.00 € slipped onto a 10.00 € stake while a double was possible, then NEXT: no
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


def split(table: Table) -> None:
    """SPLIT as the runtime applies it: the link closes the box's windows, then the round splits."""
    following = table.link.before_double_or_split()
    table.controller.submit(Split(behind_following=following), source="panel")


def test_undoing_a_resplit_then_the_split_lets_the_dealer_hand_back_both_stakes(tmp_path: Path) -> None:
    """TABLE.md Corrections: each UNDO of a split gives its stake back to the player without past-posting,
    the first split's too (the zone was left locked at the stake of two hands)."""
    table = Table(tmp_path)
    table.lock({"box1": 2})  # 10.00 €
    table.draw("8S 6H 8D")  # a pair of 8s against a 6
    table.put("box1", 2)
    table.scan()
    split(table)
    table.draw("8C")  # the first hand pairs again
    table.put("box1", 2)
    table.scan()
    split(table)
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
    assert table.watcher.total_cents("box1") == table.watcher.locked_cents("box1") == 1000
    table.journal.close()


def double(table: Table) -> None:
    following = table.link.before_double_or_split()
    table.controller.submit(Double(behind_following=following), source="panel")


def test_after_a_restart_undoing_a_new_double_lets_the_dealer_hand_its_stake_back(tmp_path: Path) -> None:
    """TABLE.md Power loss and Corrections: a split made before the power cut, a double after it, then UNDO of
    the double: its stake handed back is not past-posting (the link counted the split the journal replayed as
    if it were the double, and kept the zone locked at the doubled stake)."""
    first = Table(tmp_path)
    first.lock({"box1": 2})  # 10.00 €
    first.draw("8S 6H 8D")
    first.put("box1", 2)
    first.scan()
    split(first)
    first.draw("3C")  # the first hand: 8 + 3
    first.journal.close()  # the power goes

    second = Table(tmp_path)
    round_ = second.controller.table.round
    assert round_ is not None and len(round_.hands) == 2
    second.put("box1", 4)  # both hands' stakes, as before the cut
    second.scan()
    assert second.watcher.phase == "locked" and second.alarms() == []
    second.put("box1", 2)
    second.scan()
    double(second)
    assert round_.hands[0].doubled
    second.controller.submit(Undo(), source="panel")  # the double taken back...
    second.take("box1", 2)  # ...and its stake handed back
    second.scan()
    second.controller.submit(Next(), source="panel")  # the first hand stands on 11
    assert [alarm["kind"] for alarm in second.alarms()] == []
    assert second.watcher.locked_cents("box1") == 2000
    second.journal.close()


def confirm_insurance(table: Table) -> None:
    """CONFIRM in the insurance window as the runtime applies it: the chips on the line, then Confirm."""
    for placed in table.link.insurance_inputs():
        table.controller.submit(placed, source="chips")
    table.controller.submit(Confirm(), source="panel")


def test_chips_put_on_the_insurance_line_after_its_window_closed_are_past_posting(tmp_path: Path) -> None:
    """TABLE.md past-posting: once CONFIRM closed the insurance window, a chip slipped onto the line (when the
    bank's second card is seen coming) is past-posting at once, the insured box's line and the other's."""
    table = Table(tmp_path)
    table.lock({"box1": 2, "box2": 2})
    table.draw("TS 9H AD TC 7C")  # box1 20, box2 16, the bank's ace: insurance
    round_ = table.controller.table.round
    assert round_ is not None and round_.phase == "insurance"
    table.put("box1.insurance", 1)  # box1 insures for 5.00 €
    table.scan()
    confirm_insurance(table)
    assert round_.phase == "playing" and table.alarms() == []
    assert [box.insurance for box in round_.boxes] == [500, 0]
    table.put("box2.insurance", 1)
    table.put("box1.insurance", 1)
    table.scan()
    alarms = [alarm for alarm in table.alarms() if alarm["kind"] == "past_posting"]
    assert sorted((alarm["box"], alarm["amounts"]["seen_cents"]) for alarm in alarms) == [(1, 1000), (2, 500)]
    table.journal.close()


def test_insurance_collected_when_the_bank_draws_its_second_card_is_not_past_posting(tmp_path: Path) -> None:
    """RULES.md Insurance: with no hole card it is settled when the bank draws its second card; the dealer
    collects a lost insurance then, before the bank draws on. Chips slipped onto an uninsured line still alarm."""
    table = Table(tmp_path)
    table.lock({"box1": 2, "box2": 2})
    table.draw("TS 9H AD TC 7C")  # box1 20, box2 16, the bank's ace
    table.put("box1.insurance", 1)
    table.scan()
    confirm_insurance(table)
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
    table.link.verify_payouts()
    assert [(alarm["kind"], alarm["box"]) for alarm in table.alarms()] == [("past_posting", 2)]
    table.journal.close()


def test_a_busted_stake_collected_at_once_is_not_past_posting(tmp_path: Path) -> None:
    """RULES.md Player decisions: over 21 the hand is dead at once, stake collected (000). The dealer takes the
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
    table.link.verify_payouts()
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
    assert second.watcher.phase == "locked"
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
    split(table)
    table.draw("5C TC")  # the first hand 8 5 10: bust
    table.take("box1", 2)  # its stake collected at once
    table.scan()
    table.draw("3D")  # the second hand 8 3: it may double
    table.put("box1", 2)
    table.scan()
    double(table)
    round_ = table.controller.table.round
    assert round_ is not None and round_.hands[1].doubled
    assert [alarm["kind"] for alarm in table.alarms()] == []
    table.journal.close()
