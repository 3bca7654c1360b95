"""The chip check of a surrender (55-4 1° as amended on 6 May 2020) on a real controller and journal: the dealer
collects half the stake at once and the player takes the other half back; UNDO puts the stake back in play."""

from __future__ import annotations

from pathlib import Path

from ..chip_table import SETTLE_SCANS, ChipTable


def test_a_surrendered_zone_must_hold_the_half_returned_when_it_is_emptied(tmp_path: Path) -> None:
    """55-4 1° (2020): the dealer collects half the stake, the player takes back the other half; the readers see
    the zone go down to the half, then empty: no past-posting, no wrong payout."""
    table = ChipTable(tmp_path, "fr-2020")
    table.lock({"box1": 4})  # 20.00
    table.draw("TS 9D 6H")
    reply = table.press("SURRENDER")
    assert reply["ok"], reply
    assert table.controller.table.phase == "settlement"
    assert table.controller.snapshot()["payout_check"]["box1"] == {"due_cents": 1000, "seen_cents": 2000}
    table.take("box1", 2)  # the house's half
    table.scan(SETTLE_SCANS)
    table.take("box1")  # the player's half
    table.scan(SETTLE_SCANS)
    assert table.press("CONFIRM")["ok"]
    assert table.controller.table.phase == "closed"
    assert table.kinds() == []


def test_a_surrendered_stake_taken_whole_is_a_wrong_payout(tmp_path: Path) -> None:
    table = ChipTable(tmp_path, "fr-2020")
    table.lock({"box1": 4})
    table.draw("TS 9D 6H")
    table.press("SURRENDER")
    table.take("box1")  # all 20.00 off the zone at once: nothing was collected
    table.scan(SETTLE_SCANS)
    table.press("CONFIRM")
    (alarm,) = table.alarms()
    assert (alarm["kind"], alarm["box"], alarm["amounts"]) == ("wrong_payout", 1,
                                                              {"expected_cents": 1000, "seen_cents": 2000})
    assert "10.00 of the stake 20.00 back" in alarm["message"]


def test_undo_of_a_surrender_puts_the_stake_back_in_play(tmp_path: Path) -> None:
    """UNDO takes a surrender back like a stand: the hand plays on, its zone is the locked stake again (chips
    handed back as they were raise nothing), and the round settles it as any hand."""
    table = ChipTable(tmp_path, "fr-2020")
    table.lock({"box1": 4})
    table.draw("TS 9D 6H")
    table.press("SURRENDER")
    table.take("box1", 2)  # the dealer had collected the half...
    table.scan(SETTLE_SCANS)
    assert table.press("UNDO")["ok"]
    assert table.controller.table.phase == "playing"
    table.zones["box1"] += [table.free.pop(0), table.free.pop(0)]  # ...and hands the same two chips back
    table.scan(SETTLE_SCANS)
    assert table.kinds() == []
    assert table.press("NEXT")["ok"]
    table.draw("8C")  # 9D 8C = 17 beats 16
    assert table.controller.snapshot()["payout_check"]["box1"] == {"due_cents": 0, "seen_cents": 2000}
