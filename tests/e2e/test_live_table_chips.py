"""A scripted round on the live table: real serial, pyusb and GPIO drivers over simulated devices.

Checks what the table must catch (docs/rules.md "What the table catches") with the chip readers:
bets locked from the zones at DEAL, a double seen as chips added in its window,
past-posting, a counterfeit chip, and a wrong payout named with its difference.
"""

from __future__ import annotations

import pytest

from table_runtime.game.cards import parse_cards
from tests.e2e.conftest import Live

STACK = parse_cards("9C 9D 9H 9S 8C  TS 5H 6D 9H 6H  TC  TD 8C")


@pytest.mark.timeout(120)
async def test_a_round_through_the_devices_catches_chip_fraud_and_a_wrong_payout(live: Live) -> None:
    controller, hands = live.controller, live.hands
    table = controller.table
    await live.load_stack(STACK)
    await live.draw(5)  # burns (house option cut_card_depth)
    assert table.shoe.burns_left == 0

    hands.put("box1", 1000)
    hands.put("box2", 2000)
    counterfeit = live.devices.tray.issuer.counterfeit(500)
    live.devices.reader_sim.place("box3", counterfeit)
    await hands.until("the counterfeit chip", lambda: bool(live.alarms("counterfeit_chip")))
    (alarm,) = live.alarms("counterfeit_chip")
    assert alarm["box"] == 3 and counterfeit.uid in str(alarm["message"])
    live.devices.reader_sim.remove("box3", counterfeit.uid)
    await hands.settle_zones()
    await hands.until("box3 empty", lambda: controller.core.chips.total("box3") == 0)
    await hands.press("DEAL")
    round_ = table.round
    assert round_ is not None and [(b.number, b.bet.seated_cents) for b in round_.boxes] == [(1, 1000), (2, 2000)]

    # past-posting: a chip slipped onto a locked box, then taken back
    hands.put("box1", 500)
    await hands.until("past-posting", lambda: bool(live.alarms("past_posting")))
    assert live.alarms("past_posting")[0]["box"] == 1
    hands.clear("box1")
    hands.put("box1", 1000)

    await live.draw(5)  # TS 5H | 6D | 9H 6H
    assert round_.phase == "playing" and round_.turn == (1, 0)
    await hands.press("NEXT")  # box1 stands on 19
    hands.put("box2", 2000)  # the double's stake, inside its window
    await hands.settle_zones()
    await hands.press("DOUBLE")
    assert round_.boxes[1].hands[0].doubled
    await live.draw(3)  # TC to box2 (21), TD 8C to the bank: 24, bust
    assert round_.phase == "settlement"
    assert {(p.box, p.kind): p.net_cents for p in round_.payouts} == {
        (1, "original"): 1000, (2, "original"): 2000, (2, "double"): 2000}

    hands.put("box1", 1000)  # paid right
    hands.put("box2", 3500)  # 5.00 short of 40.00
    await hands.settle_zones()
    await hands.press("CONFIRM")
    assert round_.phase == "closed"
    wrong = live.alarms("wrong_payout")
    assert [(a["box"], a["amounts"]) for a in wrong] == [(2, {"expected_cents": 8000, "seen_cents": 7500})]
    assert "short" in str(wrong[0]["message"])
