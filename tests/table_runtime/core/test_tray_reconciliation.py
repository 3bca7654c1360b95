"""Continuous reconciliation of the chip tray (core/tray_reconciliation.py), pure and through a real controller,
journal and readers' edge: a chip taken or dropped between rounds is named within one round; a slow dealer, an
incomplete read and a long run of rounds give no false variance."""

from __future__ import annotations

import json
import random
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment
import pytest

from table_runtime.core.alarm_ledger import SUPERVISOR_ACK_KINDS
from table_runtime.core.buy_ins import BuyIn
from table_runtime.core.core_state import checkpoint_state, restore_checkpoint
from table_runtime.core.inputs import ZoneChip
from table_runtime.core.tray_reconciliation import (
    TrayFlows,
    TrayWatch,
    reconcile,
    settlement_flows,
    variance_alarm,
)
from table_runtime.display.schema import SNAPSHOT_SCHEMA
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Payout
from table_runtime.game.inputs import Next, ShoeShuffled
from tests.table_runtime.tray_table import ROWS, TrayTable


def chips(*pairs: tuple[str, int]) -> dict[str, ZoneChip]:
    return {uid: ZoneChip(uid=uid, cents=cents) for uid, cents in pairs}


def test_the_expected_tray_is_the_count_plus_collected_minus_paid_minus_sold_plus_fills_minus_credits() -> None:
    counted = chips(("a", 2500), ("b", 500), ("c", 500))
    flows = TrayFlows(collected_cents=1000, paid_cents=500, sold_cents=2500, fills_cents=10000, credits_cents=5000)
    assert flows.net_cents == 3000
    read = chips(("b", 500), ("d", 500), ("e", 500), ("f", 10000), ("g", 2500), ("h", 2500))  # 16,500 = 3,500 + 3,000
    read.pop("h")
    assert reconcile(4, counted, read, flows) is not None
    read = chips(("b", 500), ("c", 500), ("f", 5000), ("g", 500))  # 6,500 = 3,500 + 3,000
    assert reconcile(4, counted, read, flows) is None


def test_a_variance_names_the_round_the_amounts_the_denomination_and_the_uids() -> None:
    counted = chips(("E0040100AA", 2500), ("E0040100BB", 500))
    variance = reconcile(12, counted, chips(("E0040100BB", 500)), TrayFlows())
    assert variance is not None and variance.variance_cents == -2500
    alarm = variance_alarm(variance)
    assert alarm.kind == "tray_variance" and alarm.box is None
    assert dict(alarm.amounts) == {"expected_cents": 3000, "seen_cents": 500, "variance_cents": -2500, "round": 12,
                                   "denomination_cents": 2500}
    assert "round 12" in alarm.message and "1 x 25.00 € missing" in alarm.message and "E0040100AA" in alarm.message
    assert "art. 49" in alarm.rule


def test_chips_seen_on_the_table_since_the_count_are_explained_not_named() -> None:
    counted = chips(("paid", 500), ("kept", 500))
    variance = reconcile(3, counted, chips(("kept", 500), ("dropped", 100)), TrayFlows(), frozenset({"paid"}))
    assert variance is not None and [chip.uid for chip in variance.extra] == ["dropped"] and not variance.missing


def test_a_settlement_is_collected_and_paid() -> None:
    def payout(net: int) -> Payout:
        return Payout(box=1, hand=0, owner="box1", kind="original", staked_cents=1000, outcome="x", net_cents=net)
    assert settlement_flows([payout(-1000), payout(1500), payout(0), payout(-500)]) == TrayFlows(
        collected_cents=1500, paid_cents=1500)


def test_rounds_with_an_honest_dealer_raise_no_variance(tmp_path: Path) -> None:
    table = TrayTable(tmp_path)
    table.scan()
    for win in (True, False, False, True):
        table.round(win=win)
    assert table.kinds() == []
    watch = table.controller.core.tray
    assert watch.counted is not None and watch.expected_cents == watch.read_cents
    assert watch.by_denomination() == {2500: 80, 500: 80, 100: 80}  # 2 x 5.00 paid twice, 2 x 5.00 collected twice
    snapshot = table.controller.snapshot()
    assert snapshot["tray"] == {"read_cents": watch.read_cents, "expected_cents": watch.read_cents, "due_round": 4}
    assert set(snapshot["zones"]) == {"box1", "box1.behind", "box1.insurance"}  # the tray's rows are not of play
    jsonschema.validate(snapshot, SNAPSHOT_SCHEMA)  # the display's contract, the tray included
    table.journal.close()


def test_a_chip_taken_from_the_tray_between_two_rounds_is_named_at_the_next_lock(tmp_path: Path) -> None:
    table = TrayTable(tmp_path)
    table.scan()
    table.round(win=True)  # round 1: the first count at its lock
    table.round(win=False)  # round 2
    taken = next(chip for chip in table.zones[ROWS[2]] if chip.denomination_cents == 2500)
    table.zones[ROWS[2]].remove(taken)  # between rounds 2 and 3, into a pocket
    table.scan()
    assert table.variances() == []  # nothing until the next round
    table.round(win=False)  # round 3: its lock checks the tray after round 2, its settlement decides
    [alarm] = table.variances()
    assert alarm["amounts"] == {"expected_cents": alarm["amounts"]["expected_cents"],
                                "seen_cents": alarm["amounts"]["expected_cents"] - 2500, "variance_cents": -2500,
                                "round": 2, "denomination_cents": 2500}
    assert taken.uid in alarm["message"] and "1 x 25.00 € missing" in alarm["message"]
    assert AlarmKind.TRAY_VARIANCE in SUPERVISOR_ACK_KINDS  # it catches the dealer: the supervisor clears it
    table.round(win=True)  # the tray as read is the next count: the alarm is raised once
    assert len(table.variances()) == 1
    table.journal.close()


def test_a_chip_dropped_into_the_tray_by_mistake_is_named_extra(tmp_path: Path) -> None:
    table = TrayTable(tmp_path)
    table.scan()
    table.round(win=False)
    dropped = table.stranger.pop()
    table.zones[ROWS[1]].append(dropped)  # a chip that never lay on the table
    table.round(win=True)
    [alarm] = table.variances()
    assert alarm["amounts"]["variance_cents"] == 500 and alarm["amounts"]["round"] == 1
    assert dropped.uid in alarm["message"] and "1 x 5.00 € extra" in alarm["message"]
    table.journal.close()


def test_a_buy_in_sells_chips_out_of_the_tray_without_a_variance(tmp_path: Path) -> None:
    table = TrayTable(tmp_path)
    table.scan()
    table.round(win=True)
    sold = [chip for chip in table.zones[ROWS[3]] if chip.denomination_cents == 2500][:4]
    for chip in sold:
        table.zones[ROWS[3]].remove(chip)  # 100.00 € of chips handed to a player for his banknotes
    table.controller.submit(BuyIn(cents=10000, box=1))
    table.round(win=False)
    table.round(win=True)
    assert table.variances() == []
    table.journal.close()


def test_a_faulty_row_gives_no_variance_only_a_later_check(tmp_path: Path) -> None:
    table = TrayTable(tmp_path)
    table.scan()
    table.round(win=True)
    table.faulty.add(ROWS[0])  # row 1's antenna fails: the tray is never read whole
    table.round(win=False)  # the stake collected into row 1, not read
    table.round(win=False)
    assert table.variances() == [] and table.controller.core.tray.due == 3  # rounds 2 and 3 wait
    table.faulty.clear()
    table.round(win=True)  # read whole again: the flows of the rounds unchecked add up
    table.round(win=False)
    tray = table.controller.core.tray
    assert table.variances() == [] and tray.expected_cents == tray.read_cents
    table.journal.close()


def test_a_dealer_who_racks_the_collected_chips_late_gives_no_variance(tmp_path: Path) -> None:
    table = TrayTable(tmp_path)
    table.scan()
    table.round(win=True)
    table.controller.submit(ShoeShuffled(shoe_id="S1"))
    table.draw("9C 9D 9H 9S 8C")
    table.bet()
    table.scan()
    table.press("DEAL")
    table.draw("TS 6D 7C")
    table.controller.submit(Next(), source="panel")
    table.draw("TH 4S")  # box1 loses
    held, table.zones["box1"] = table.zones["box1"], []  # swept into the dealer's hand
    table.scan()
    assert table.press("CONFIRM")["ok"]
    table.scan(2)  # the tray's reads: the collected chips not in it yet
    table.zones[ROWS[0]] += held  # racked, slowly, before the next deal
    table.scan(2)
    table.scan(4)
    table.round(win=False)
    assert table.variances() == []
    table.journal.close()


def test_chips_racked_just_before_the_deal_and_read_whole_after_it_give_no_variance(tmp_path: Path) -> None:
    """A whole read takes 3 scans (several seconds for a full tray): the lock's verdict waits for the round's first
    chips through the tray, and a whole read that matches meanwhile clears it."""
    table = TrayTable(tmp_path)
    table.scan()
    table.round(win=True)
    table.controller.submit(ShoeShuffled(shoe_id="S1"))
    table.draw("9C 9D 9H 9S 8C")
    table.bet()
    table.scan()
    table.press("DEAL")
    table.draw("TS 6D 7C")
    table.controller.submit(Next(), source="panel")
    table.draw("TH 4S")  # box1 loses
    held, table.zones["box1"] = table.zones["box1"], []  # swept into the dealer's hand
    table.scan()
    assert table.press("CONFIRM")["ok"]
    table.scan()  # the tray read whole after the close, without the collected chips
    table.zones[ROWS[0]] += held  # racked at the last moment
    table.controller.submit(ShoeShuffled(shoe_id="S1"))
    table.draw("9C 9D 9H 9S 8C")
    table.bet()
    table.scan(2)  # the stake joins box1 after 2 scans; the tray takes 3 identical ones to be read whole
    table.press("DEAL")  # the lock: the last whole read is short by the racked chips
    assert table.controller.core.tray.pending == 2 and table.variances() == []
    table.scan()  # read whole during the play
    assert table.controller.core.tray.pending == 0
    table.draw("TS 6D TC")
    table.controller.submit(Next(), source="panel")
    table.draw("TH 2S")
    table.pay("box1", 1000)
    table.scan()
    assert table.press("CONFIRM")["ok"] and table.variances() == []
    table.journal.close()


def test_a_chip_palmed_while_paying_is_named_at_the_next_lock(tmp_path: Path) -> None:
    table = TrayTable(tmp_path)
    table.scan()
    table.round(win=False)
    table.controller.submit(ShoeShuffled(shoe_id="S1"))
    table.draw("9C 9D 9H 9S 8C")
    table.bet()
    table.scan()
    table.press("DEAL")
    table.draw("TS 6D TC")
    table.controller.submit(Next(), source="panel")
    table.draw("TH 2S")  # box1 wins 10.00 €
    table.pay("box1", 1000)
    [palmed] = table.pay("box1", 100)  # one more chip out of the tray...
    table.zones["box1"].remove(palmed)  # ...into the dealer's sleeve
    table.scan()
    assert table.press("CONFIRM")["ok"]
    table.player_takes("box1")
    table.scan()  # nothing in the tray moves after the close: it is read whole again all the same
    table.round(win=False)
    [alarm] = table.variances()
    assert alarm["amounts"]["variance_cents"] == -100 and alarm["amounts"]["round"] == 2
    assert palmed.uid in alarm["message"] and "1 x 1.00 € missing" in alarm["message"]
    table.journal.close()


@pytest.mark.slow
def test_no_false_variance_over_a_long_run_of_rounds(tmp_path: Path) -> None:
    """200 rounds won and lost at random, the tray read with 3 scans a step only (the minimum for a whole read), the
    player buying chips out of the tray whenever he runs short."""
    table = TrayTable(tmp_path)
    table.scan()
    rng = random.Random(5)
    for _ in range(200):
        table.round(win=rng.random() < 0.45, scans=rng.choice((3, 4, 6)))
        if len(table.pocket) < 4:
            table.buy_in(10)
    assert table.variances() == [] and table.controller.core.tray.variances == 0
    assert table.controller.table.round is not None and table.controller.table.round.number == 200
    table.journal.close()


def test_a_checkpoint_carries_the_tray_so_a_chip_taken_across_a_restart_is_named(tmp_path: Path) -> None:
    """The watch in the checkpoint's state is the live one; a start from it checks the tray as the live table."""
    table = TrayTable(tmp_path)
    table.scan()
    table.round(win=True)
    table.round(win=False)
    core = table.controller.core
    state = checkpoint_state(core)
    restored = restore_checkpoint(core.table.rules, core.table.limits, state, zones=core.chips.zones)
    assert restored.tray == core.tray and restored.tray.counted is not None
    assert json.loads(json.dumps(state)) == state  # the journal holds it as JSON
    assert restore_checkpoint(core.table.rules, core.table.limits, {**state, "core": {
        key: value for key, value in state["core"].items() if key != "tray"}}).tray == TrayWatch()  # an old one
    table.journal.close()
