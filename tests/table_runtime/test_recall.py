"""Recall is the one fold of the journal: a round recalled is the round the table journaled when it closed.

The demo's fast table (the real controller and journal, the simulated dealer and its errors) plays 200 rounds
with storms of refused presses from the panel in the middle of rounds and in settlement (each a `command_refused`
alarm counted on by `alarm_updated` rows, docs/alarms.md "Storms"); every round recalled has the result, rows,
payouts and alarms, storm counts included, of its journaled `RoundRecord`.
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from simulators.dealer import Intent
from simulators.fast_table import FastTable
from table_runtime.core.alarm_ledger import AlarmLedger
from table_runtime.core.row_kinds import RowKind
from table_runtime.game.commands import Command
from table_runtime.game.events import Event
from table_runtime.game.phases import PLAYING, SETTLEMENT
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds


class StormyTable(FastTable):
    """The fast demo table, whose dealer now and then presses a button the table refuses, several times over."""

    def __init__(self, controller: TableController, *, seed: int) -> None:
        super().__init__(controller, seed=seed, error_rate=0.05)
        self.storms = random.Random(f"storms:{seed}")

    def act(self, intent: Intent) -> list[Event]:
        events = super().act(intent)
        round_ = self.controller.table.round
        phase = None if round_ is None else round_.phase
        if phase in (PLAYING, SETTLEMENT) and self.storms.random() < 0.08:
            command = Command.NEXT if phase == SETTLEMENT else Command.SPLIT  # no hand plays / no pair to split
            for _ in range(self.storms.randint(2, 4)):
                self.controller.press(command, {}, role="dealer", source="panel", refusal_alarm=True)
        return events


def as_recorded(recalled: dict[str, Any]) -> dict[str, Any]:
    """What a recalled round says of what its RoundRecord holds."""
    return {"round": recalled["round"], "shoe_id": recalled["shoe_id"], "started_seq": recalled["started_seq"],
            "closed_seq": recalled["closed_seq"], "result": {"settled": "closed"}.get(recalled["result"], "voided"),
            "payouts": recalled["payouts"], "alarms": [AlarmLedger.as_recorded(alarm) for alarm in recalled["alarms"]]}


def test_every_round_of_a_demo_with_storms_recalls_as_its_journaled_record(tmp_path: Path) -> None:
    """200 rounds (1,000 before: 15.6 s of CPU, 2.9 s now): about 11,500 rows, so 21 checkpoints on the way, 288
    `alarm_updated` rows and 88 storms of three presses or more; every round is compared, so a round recalled
    wrongly fails here as it did in 1,000."""
    ticks = itertools.count()
    with Journal.open(journal_path(tmp_path)) as journal:
        journal._db().execute("PRAGMA synchronous=OFF")  # what is checked is the rows, not their fsyncs
        controller = TableController(table_id="T4", rules=profile("fr-casino").replace(surrender=True),
                                     limits=TableLimits(), journal=journal, checkpoint_rows=500,
                                     clock=lambda: 1_700_000_000.0 + next(ticks) * 0.1)
        StormyTable(controller, seed=29).run(200)
        records = [entry.body for entry in journal.entries(kinds=(RowKind.ROUND,))]
        recalled = recall_rounds(journal, last=len(records))
        updates = sum(1 for _ in journal.entries(kinds=(RowKind.ALARM_UPDATED,)))
    assert len(records) >= 200 and updates > 100
    storms = [alarm for record in records for alarm in record["alarms"] if alarm.get("count", 1) >= 3]
    assert len(storms) > 20, "storms of three refused presses or more, counted in the rounds' records"
    assert [as_recorded(round_) for round_ in recalled] == [
        {key: record[key] for key in ("round", "shoe_id", "started_seq", "closed_seq", "result", "payouts", "alarms")}
        for record in records]


def test_a_storm_in_settlement_counts_in_recall_and_in_the_steps_snapshots(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1_800_000_000.0)
        table = FastTable(controller, seed=4, error_rate=0.0)
        while controller.table.round is None or controller.table.round.phase != SETTLEMENT:
            table.act(table.dealer.next_intent(controller.table))
        for _ in range(3):  # the storm: three refused NEXT presses in settlement
            controller.press(Command.NEXT, {}, role="dealer", source="panel", refusal_alarm=True)
        [alarm] = [alarm for alarm in controller.alarms.active if alarm["kind"] == "command_refused"]
        table.run(1)  # CONFIRM closes the round
        [record] = [entry.body for entry in journal.entries(kinds=(RowKind.ROUND,))]
        [recalled] = recall_rounds(journal, last=1)
    [refused] = [recorded for recorded in record["alarms"] if recorded["kind"] == "command_refused"]
    assert refused["count"] == 3 and refused["id"] == alarm["id"]
    assert [AlarmLedger.as_recorded(alarm) for alarm in recalled["alarms"]] == record["alarms"]
    command = subprocess.run(  # what `table-runtime recall --json` prints
        [sys.executable, "-m", "table_runtime", "recall", "--data-dir", str(tmp_path), "--last", "1", "--json"],
        capture_output=True, text=True, check=True)
    assert json.loads(command.stdout) == [recalled]
    # Each refused NEXT is journaled as an input with its alarm: its step shows the storm as the table did then.
    refusals = [step for step in recalled["steps"] if step["type"] == "Next"
                and step["snapshot"]["phase"] == SETTLEMENT]
    assert [[alarm["count"] for alarm in step["snapshot"]["alarms"]] for step in refusals] == [[1], [2], [3]]
