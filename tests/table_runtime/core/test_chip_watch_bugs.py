"""The chip watch follows only what the round accepted, checks an early payment, and restarts from the journal.

Each test drives the real controller and journal as the runtime does (tests/table_runtime/chip_table.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from table_runtime.game.cards import parse_cards
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Next, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from tests.table_runtime.chip_table import ChipTable


def test_a_split_the_rules_refuse_raises_no_chip_alarm_and_leaves_the_window_open(tmp_path: Path) -> None:
    """Online, 8S | 6D | 8H, SPLIT, 8C: a second split is refused (2 hands at most, 004). Only the refusal is an
    alarm (no 'the double was pressed but no stake was added'); the window stays open, so the stake added for
    the DOUBLE that follows is a double, not past-posting."""
    table = ChipTable(tmp_path, "online", scans=6)
    table.lock({"box1": 2})  # 10.00 €
    table.draw("8S 6D 8H")
    table.put("box1", 2)
    table.scan()
    assert table.press("SPLIT")["ok"]
    table.draw("8C")  # the first hand 8S 8C: a pair again
    refused = table.press("SPLIT")
    assert not refused["ok"] and refused["alarmed"]
    assert table.kinds() == ["command_refused"]
    assert "box1" in table.watch.windows  # the first hand may still double: its window is open
    table.put("box1", 2)
    table.scan()
    assert table.press("DOUBLE")["ok"]
    round_ = table.controller.table.round
    assert round_ is not None and round_.hands[0].doubled
    assert table.kinds() == ["command_refused"]
    table.journal.close()


def test_a_blackjack_paid_at_once_is_checked_like_every_payout(tmp_path: Path) -> None:
    """fr-classic pays a blackjack before the bank draws (house option pay_blackjack_before_bank); the zone ends empty,
    but what the player took
    away must be stake + 3:2: 10.00 € + 15.00 €. Paid 5.00 € short, CONFIRM names the difference."""
    table = ChipTable(tmp_path, "fr-classic", chips=60, scans=6)
    table.lock({"box1": 2, "box2": 2})  # fr-classic deals with 2 boxes at least
    table.draw("AS 9C 9D TS 7C")  # box1 blackjack, box2 16, the bank shows a 9: box1 is paid at once
    table.put("box1", 2)  # 10.00 € paid instead of 15.00 €...
    table.scan()
    table.take("box1")  # ...and the player takes it all away: no past-posting
    table.scan()
    assert table.kinds() == []
    table.controller.submit(Next(), source="panel")
    table.draw("TH")  # the bank 19: box2 loses
    table.take("box2")
    table.scan()
    snapshot = table.controller.snapshot()
    assert snapshot["payout_check"]["box1"] == {"due_cents": 2500, "seen_cents": 2000}
    table.press("CONFIRM")
    (alarm,) = table.alarms()
    assert (alarm["kind"], alarm["box"], alarm["amounts"]) == (
        "wrong_payout", 1, {"expected_cents": 2500, "seen_cents": 2000})
    assert "5.00 short" in alarm["message"]
    table.journal.close()


def after_a_double(table: ChipTable) -> None:
    table.lock({"box1": 2, "box2": 2})
    table.draw("6S 9H 6D 5C TC")  # box1 11, box2 19 against a 6
    table.put("box1", 2)
    table.scan()
    assert table.press("DOUBLE")["ok"]


def in_the_insurance_phase(table: ChipTable) -> None:
    table.lock({"box1": 2, "box2": 2})
    table.draw("TS 9H AD TC 7C")  # the bank's ace: insurance
    table.put("box1.insurance", 1)  # box1 insures, not yet confirmed
    table.scan()


def at_settlement(table: ChipTable) -> None:
    table.lock({"box1": 2, "box2": 2})
    table.draw("TS 9H 6D TC 7C")  # box1 20, box2 16 against a 6
    table.controller.submit(Next(), source="panel")
    table.controller.submit(Next(), source="panel")
    table.draw("TH 2S")  # the bank 18: box1 wins 10.00 €, box2 loses
    table.put("box1", 2)  # the dealer pays box1...
    table.scan()


@pytest.mark.parametrize("situation", [after_a_double, in_the_insurance_phase, at_settlement])
def test_a_restart_with_the_chips_where_they_were_raises_nothing_and_a_chip_moved_meanwhile_does(
        tmp_path: Path, situation: object) -> None:
    """table check, docs/rules.md « Power loss »: the chip watch (locks, windows, what was paid) is replayed from the
    journal. The
    readers report the same chips: no alarm. A chip taken off box2 while the table was down: past-posting (at
    settlement, where the dealer collects, a wrong payout at CONFIRM)."""
    assert callable(situation)
    first = ChipTable(tmp_path / "same", chips=60, scans=6)
    situation(first)
    kinds, watch = first.kinds(), first.watch
    first.journal.close()  # the power goes

    second = ChipTable(tmp_path / "same", chips=60, scans=6)
    assert second.watch == watch  # replayed, not guessed
    second.zones = {zone: list(chips) for zone, chips in first.zones.items()}  # the chips never moved
    second.scan()
    assert second.kinds() == kinds == []
    assert second.watch == watch
    second.journal.close()

    moved = ChipTable(tmp_path / "moved", chips=60, scans=6)
    situation(moved)
    moved.journal.close()
    third = ChipTable(tmp_path / "moved", chips=60, scans=6)
    third.zones = {zone: list(chips) for zone, chips in moved.zones.items()}
    third.zones["box2"].pop()  # 5.00 € taken off box2 while the table was down
    third.scan()
    if situation is at_settlement:  # the dealer may be collecting: the end of the zone is what is checked
        assert third.kinds() == [] and third.controller.snapshot()["payout_check"]["box2"] == {
            "due_cents": 0, "seen_cents": 500}
        third.press("CONFIRM")
        assert [(alarm["kind"], alarm["box"]) for alarm in third.alarms()] == [("wrong_payout", 2)]
    else:
        assert [(alarm["kind"], alarm["box"]) for alarm in third.alarms()] == [("past_posting", 2)]
    third.journal.close()


def test_a_journal_written_before_zone_changes_were_journaled_still_replays_and_locks_the_zones_as_read(
        tmp_path: Path) -> None:
    """docs/journal.md: a journal with no ZoneChanged rows (an earlier version) replays; the zones of the round it
    left in play are locked as the readers first report them (nothing to compare them with), then watched."""
    with Journal.open(journal_path(tmp_path)) as journal:  # the earlier runtime: game inputs only
        old = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                              clock=lambda: 1.0)
        old.submit(ShoeShuffled(shoe_id="S1"))
        for card in parse_cards("9C 9D 9H 9S 8C"):
            old.submit(CardDrawn(card=card))
        old.submit(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="box1"),)), source="chips")
        for card in parse_cards("TS 6H 5D"):
            old.submit(CardDrawn(card=card))

    table = ChipTable(tmp_path, chips=60, scans=6)
    assert table.controller.recovered and table.watch.phase == "locked" and table.watch.locks == {}
    table.put("box1", 2)
    table.scan()
    assert table.kinds() == [] and table.watch.locks["box1"].cents == 1000
    table.put("box2", 1)  # box2 was read empty at the restart: a chip there now is past-posting
    table.scan()
    assert [(alarm["kind"], alarm["box"]) for alarm in table.alarms()] == [("past_posting", 2)]
    table.journal.close()
