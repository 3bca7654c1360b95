"""The rated sessions' advice to the supervisor, live: the rating fold over the journal, off the loop.

`watch_ratings` keeps a `SessionFold` (rating/session_fold.py) with the detection's scores of every seated
session (rating/session_flags.py), fed the journal's rows in a worker thread, `chunk_rows` at a time: first
every row up to the head (the start: what was advised before is not advised again, the journal has it), then
the rows written since, every `poll_s` seconds. A flag found on a new row is journaled by the controller as an
`advantage_play` alarm (a supervisor's kind, never halting): advice with figures, never an action on the game.
A row the fold refuses ends the watch with one log line; the table plays on.
"""

from __future__ import annotations

import asyncio
import logging

from table_runtime.errors import TableError
from table_runtime.journal import Journal
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.rating.session_fold import SessionFold
from table_runtime.runtime.controller import TableController

log = logging.getLogger(__name__)
CHUNK_ROWS = 2000


def _fold_rows(fold: SessionFold, journal: Journal, chunk_rows: int) -> int:
    """Fold the next rows (at most `chunk_rows`) into `fold`; how many there were."""
    rows = list(journal.entries(fold.last_seq, chunk_rows))
    for row in rows:
        fold.take(row.seq, row.ts, row.kind, row.body)
    return len(rows)


async def watch_ratings(controller: TableController, *, settings: AdviceSettings | None = None,
                        poll_s: float = 1.0, chunk_rows: int = CHUNK_ROWS,
                        caught_up: asyncio.Event | None = None) -> None:
    """Advise the supervisor of the flags of the rated sessions, as rows come, until cancelled; `caught_up` is
    set once the rows there were at the start are folded (from then on a flag is advised)."""
    # The house edge, the chart and the edge model are computed once (a second or two of CPU): off the loop too.
    fold = await asyncio.to_thread(SessionFold, controller.table_id, controller.rules, controller.limits,
                                   advice=settings or AdviceSettings())
    advice = fold.sessions.advice
    assert advice is not None
    live = False
    while True:
        try:
            folded = await asyncio.to_thread(_fold_rows, fold, controller.journal, chunk_rows)
        except (TableError, KeyError, TypeError, ValueError) as error:
            log.error("rating watch stopped: row %d does not fold: %s", fold.last_seq + 1, error)
            return
        alarms, advice.raised = advice.raised, []
        if live and alarms:
            controller.raise_alarms(alarms)
        if folded < chunk_rows:
            live = True
            if caught_up is not None:
                caught_up.set()
            await asyncio.sleep(poll_s)
