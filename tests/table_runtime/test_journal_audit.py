"""The background audit runs in a process of its own (runtime/journal_audit.py): the runtime only waits for its
reports; the process is gone once the audit is over; a forged row before the start's checkpoint still stops play."""

from __future__ import annotations

import asyncio
import multiprocessing
import sqlite3
from pathlib import Path

from table_runtime.game.rules import TableLimits
from table_runtime.journal import Journal
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.journal_audit import audit_journal

from .rating.rated_table import RAMP, T0, RatedTable, play_ramp


def _played(tmp_path: Path) -> Path:
    table = RatedTable(tmp_path, checkpoint_rows=20)
    table.press("SEAT", box=1, player="A")
    play_ramp(table, RAMP)
    table.close()
    return table.journal.path


async def _audit_watched(controller: TableController) -> set[str]:
    """The audit run to its end, and the names of the child processes seen while it ran."""
    seen: set[str] = set()
    audit = asyncio.create_task(audit_journal(controller, chunk_rows=20, nice=0))
    while not audit.done():
        seen |= {child.name for child in multiprocessing.active_children()}
        await asyncio.sleep(0.001)
    await audit
    return seen


def test_the_audit_runs_in_a_process_of_its_own_and_a_forged_row_stops_play(tmp_path: Path) -> None:
    path = _played(tmp_path)
    with Journal.open(path) as journal:
        start = journal.start_checkpoint
        assert start is not None and start.seq > 40
        controller = TableController(table_id="T01", rules=RatedTable.rules_of("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: T0)
        assert "audit-T01" in asyncio.run(_audit_watched(controller))
        assert not controller.halted
    assert not [child for child in multiprocessing.active_children() if child.name == "audit-T01"]
    db = sqlite3.connect(path)  # a card changed before the start's checkpoint: the start cannot tell
    seq, body = db.execute("SELECT seq, body FROM entries WHERE kind = 'input' AND body LIKE '%CardDrawn%' "
                           "AND seq < ? ORDER BY seq LIMIT 1", (start.seq,)).fetchone()
    db.execute("UPDATE entries SET body = ? WHERE seq = ?", (body.replace('"card":"', '"card":"K', 1), seq))
    db.commit()
    db.close()
    with Journal.open(path) as journal:
        controller = TableController(table_id="T01", rules=RatedTable.rules_of("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: T0)
        asyncio.run(audit_journal(controller, chunk_rows=20, nice=0))
        assert controller.halted and f"row {seq}" in controller.halted
        assert controller.alarms.active[-1]["amounts"] == {"row": seq}
