"""ChipLink keeps the chip watcher in step with the round; when the two lose step, the table goes on.

Driven with real readings (the reader events the driver yields), a real watcher and a real controller.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment

from table_runtime.display.schema import SNAPSHOT_SCHEMA
from table_runtime.game.inputs import Confirm, Next, Undo, Void
from tests.table_runtime.chip_table import ChipTable


class Table(ChipTable):
    """The chip table of these tests: 40 chips, the link following the controller, 3 scans a read."""


def box1_wins_ten(table: Table) -> None:
    """To settlement: box1 (10.00 €) stands on 20 against a 6, the bank ends on 18: 20.00 € due on box1."""
    table.lock({"box1": 2})
    table.draw("TS 6D TC")
    table.controller.submit(Next(), source="panel")
    table.draw("TH 2S")


def watch_phase(table: Table) -> str:
    return table.watcher.phase


def test_bets_locked_from_the_zones_and_a_lost_step_suspends_the_watch_not_the_table(tmp_path: Path) -> None:
    table = Table(tmp_path)
    controller = table.controller
    table.lock({"box1": 2})
    round_ = controller.table.round
    assert round_ is not None and [(b.number, b.bet.seated_cents) for b in round_.boxes] == [(1, 1000)]
    table.draw("TS 6H 5D")  # box1 15 against a 6: DOUBLE is allowed, so box1's window is open
    assert watch_phase(table) == "locked"

    table.watcher.close_window("box1")  # something else closed it: the link and the watcher disagree
    controller.submit(Next(), source="panel")  # the turn moves on: closing box1's window fails
    kinds = [alarm["kind"] for alarm in controller.alarms.active]
    assert kinds == ["chip_watch_suspended"]
    assert watch_phase(table) == "betting"  # the watch is off for this round...
    table.draw("TC")  # ...and the game goes on: 6 + 10 = 16, the bank draws
    assert round_.phase == "bank"
    table.draw("2C")
    assert round_.phase == "settlement" and {p.outcome for p in round_.payouts} == {"lose"}
    table.scan()
    assert watch_phase(table) == "betting"  # not re-adopted in the same round
    controller.submit(Confirm())
    assert round_.phase == "closed"
    table.zones["box1"] = []
    table.put("box2", 3)
    table.scan(6)
    assert table.link.lock_bets(source="test")  # the next round is watched again
    assert watch_phase(table) == "locked"
    table.journal.close()


def test_chips_taken_off_the_insurance_line_during_its_window_are_past_posting(tmp_path: Path) -> None:
    table = Table(tmp_path)
    controller = table.controller
    table.lock({"box1": 2, "box1.insurance": 1})  # a chip on the line before the deal: out of place at the lock
    assert [alarm["kind"] for alarm in controller.alarms.active] == ["chips_out_of_place"]
    assert watch_phase(table) == "locked"  # the lock's own alarm does not undo the lock
    table.draw("TS AH 5D")  # the bank's ace: the insurance window opens
    assert controller.table.round is not None and controller.table.round.phase == "insurance"
    table.zones["box1.insurance"] = []  # the chip leaves the line while the window is open
    table.scan(6)
    assert table.link.insurance_inputs() == []  # CONFIRM closes the window: nothing is on the line to insure
    alarms = {alarm["kind"]: alarm for alarm in controller.alarms.active}
    past = alarms["past_posting"]  # TABLE.md What the controller must catch: chips removed from a locked zone
    assert past["box"] == 1 and past["amounts"] == {"expected_cents": 500, "seen_cents": 0}
    assert "during the insurance window" in past["message"]
    table.journal.close()


def test_after_a_restart_the_lock_of_the_zones_still_reports_chips_out_of_place(tmp_path: Path) -> None:
    first = Table(tmp_path)
    first.lock({"box1": 2})
    first.draw("TS 6H 5D")  # box1 plays 15 against a 6
    first.journal.close()  # the power goes

    second = Table(tmp_path)  # the journal replays the round
    round_ = second.controller.table.round
    assert round_ is not None and round_.phase == "playing"
    second.put("box1", 2)
    second.put("box2.behind", 1)  # a behind stake on a box nobody plays
    second.scan(4)
    assert watch_phase(second) == "locked"  # the recovered round adopted the zones
    alarms = [alarm for alarm in second.controller.alarms.active if alarm["kind"] == "behind_without_seated"]
    assert [alarm["box"] for alarm in alarms] == [2]
    second.journal.close()


def payout_check(table: Table) -> object:
    return table.controller.snapshot().get("payout_check")


def test_the_snapshot_shows_each_zone_due_and_seen_as_the_dealer_pays_and_drops_it_at_close(tmp_path: Path) -> None:
    """TABLE.md A round, step 6: the dealer sees a wrong payout on the display before CONFIRM closes the round."""
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
    assert round_ is not None and round_.phase == "settlement" and watch_phase(table) == "settling"
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
    assert table.watcher.expected_final["box1"] == 2000

    table.link.verify_payouts()  # CONFIRM, as the runtime does it: no alarm, the round closes
    controller.submit(Confirm())
    assert round_.phase == "closed"
    assert [alarm["kind"] for alarm in controller.alarms.active] == []
    assert payout_check(table) is None and "payout_check" not in controller.snapshot() and pushed[-1] is None
    assert table.watcher.expected_final == {}
    table.journal.close()


def test_a_payout_still_wrong_at_confirm_is_raised_and_the_round_closes_as_before(tmp_path: Path) -> None:
    table = Table(tmp_path)
    controller = table.controller
    box1_wins_ten(table)
    table.put("box1", 1)
    table.scan()
    assert payout_check(table) == {"box1": {"due_cents": 2000, "seen_cents": 1500}}
    table.link.verify_payouts()
    controller.submit(Confirm())
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
    assert round_ is not None and round_.phase == "bank" and watch_phase(table) == "locked"
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
    assert "payout_check" not in controller.snapshot() and watch_phase(table) == "betting"
    table.journal.close()


def test_chips_added_in_an_open_window_then_no_double_is_past_posting_with_the_amounts(tmp_path: Path) -> None:
    table = Table(tmp_path)
    controller = table.controller
    table.lock({"box1": 2})
    table.draw("TS 6H 5D")  # box1 15 against a 6: its double window is open
    table.put("box1", 2)  # a stake equal to the original appears...
    table.scan(3)
    controller.submit(Next(), source="panel")  # ...but the dealer stands the hand (TABLE.md past-posting)
    (alarm,) = [alarm for alarm in controller.alarms.active if alarm["kind"] == "past_posting"]
    assert alarm["box"] == 1
    assert alarm["amounts"] == {"expected_cents": 1000, "seen_cents": 2000, "added_cents": 1000}
    assert "added with no double or split; locked 10.00 €, now 20.00 €" in alarm["message"]
    table.journal.close()
