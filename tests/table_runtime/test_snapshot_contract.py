"""The runtime's snapshots and recalled rounds follow the display contract (docs/display.md)."""

from __future__ import annotations

from pathlib import Path

import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment

from simulators.fast_table import FastTable
from table_runtime.display.schema import RECALLED_ROUND_SCHEMA, SNAPSHOT_SCHEMA
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds


def test_snapshots_and_recall_follow_the_display_contract(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1_800_000_000.0)
        seen: list[dict[str, object]] = []
        controller.subscribe(lambda: seen.append(controller.snapshot()))
        FastTable(controller, seed=5, error_rate=0.2).run(6)
        assert len(seen) > 100
        for snapshot in seen[::7]:
            jsonschema.validate(snapshot, SNAPSHOT_SCHEMA)
        rounds = recall_rounds(journal, last=3)
    assert [r["round"] for r in rounds] == [4, 5, 6]
    for recalled in rounds:
        jsonschema.validate(recalled, RECALLED_ROUND_SCHEMA)
