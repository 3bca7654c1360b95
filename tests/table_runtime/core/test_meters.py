"""The lifetime meters (core/meters.py) are part of the one table state: the live table's equal a recomputation
from the journal's round records and buy-ins, a restart from a checkpoint folds to the same meters, and no meter
ever goes down from one row to the next."""

from __future__ import annotations

import itertools
from pathlib import Path

from simulators.fast_table import FastTable
from table_runtime.core.buy_ins import BuyIn
from table_runtime.core.meters import TABLE_METERS, Meters
from table_runtime.core.record import replay, starting_core
from table_runtime.core.terms import TableTerms
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController

RULES, LIMITS = profile("fr-casino"), TableLimits()


def controller_on(journal: Journal) -> TableController:
    ticks = itertools.count()
    return TableController(table_id="T", rules=RULES, limits=LIMITS, journal=journal,
                           clock=lambda: 1_700_000_000.0 + next(ticks), checkpoint_rows=40)


def recomputed(journal: Journal) -> dict[str, int]:
    """The table's meters from the journal's own records: the round rows and the buy-ins' events."""
    found = dict.fromkeys(TABLE_METERS, 0)
    for entry in journal.entries():
        body = entry.body
        if entry.kind == "round" and body["result"] == "voided":
            found["voids"] += 1
        elif entry.kind == "round":
            found["rounds"] += 1
            payouts = body["payouts"]
            found["handle_cents"] += sum(payout["staked_cents"] for payout in payouts)
            found["collected_cents"] += sum(max(0, -payout["net_cents"]) for payout in payouts)
            found["paid_cents"] += sum(max(0, payout["net_cents"]) for payout in payouts)
            found["hands"] += len({(payout["box"], payout["hand"]) for payout in payouts
                                   if payout["kind"] != "insurance" and not payout["kind"].startswith("hyper")})
        elif entry.kind == "event" and body["type"] == "BuyInRecorded":
            found["drop_cents"] += body["cents"]
            found["drop_cash_cents" if body["tender"] == "cash" else "drop_marker_cents"] += body["cents"]
    return found


def test_the_meters_are_the_journal_s_and_a_restart_folds_the_same_that_never_go_down(tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    with Journal.open(path) as journal:
        controller = controller_on(journal)
        controller.submit(BuyIn(cents=50_000, tender="cash", by="dealer"), source="display")
        FastTable(controller, seed=11, error_rate=0.05).run(40)  # dealer errors: undos, voids
        controller.submit(BuyIn(cents=20_000, tender="marker", by="dealer"), source="display")
        live = controller.core.meters.view()
        assert {name: live[name] for name in TABLE_METERS} == recomputed(journal)
        assert live["rounds"] + live["voids"] >= 35 and live["handle_cents"] > 0 and live["drop_cents"] == 70_000
        assert live["win_cents"] == live["collected_cents"] - live["paid_cents"]
        assert sum(box["handle_cents"] for box in live["boxes"].values()) == live["handle_cents"]
        assert controller.snapshot()["meters"] == live
        assert journal.checkpoints_until(journal.last_seq), "the test means a restart from a checkpoint"

    with Journal.open(path) as journal:
        restarted = controller_on(journal)
        assert journal.start_checkpoint is not None
        assert restarted.core.meters.view() == live
        core = starting_core(TableTerms.of("T", RULES, LIMITS, ()))
        before = Meters().view()
        for entry in journal.entries():  # the one fold from row 1: no meter ever goes down
            replay(core, [entry])
            now = core.meters.view()
            assert all(now[name] >= before[name] for name in TABLE_METERS), entry.seq
            before = now
        assert now == live
