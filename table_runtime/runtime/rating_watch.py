"""The rated sessions, live: the rating fold over the journal in a process of its own (runtime/rating_worker.py);
advice to the supervisor, and the supervisor's view of the rated players.

`RatingWatch.run()` starts the worker process, which keeps a `SessionFold` (rating/session_fold.py) with the
detection's scores of every seated session (rating/session_flags.py) and folds the journal's rows `chunk_rows`
at a time: first every row up to the head (the start: what was advised before is not advised again, the journal
has it), then the rows written since, every `poll_s` seconds. A flag found on a new row is journaled by the
controller as an `advantage_play` alarm (a supervisor's kind, never halting): advice with figures, never an
action on the game. After each step `sessions` is the open sessions as the supervisor's view shows them. A row
the fold refuses, or a worker that dies, ends the watch with one log line; the table plays on.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from table_runtime.journal import Journal, JournalEntry
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.rating_worker import NICE, RatingWorker, RatingWorkerError
from table_runtime.runtime.terms import journal_terms

log = logging.getLogger(__name__)
CHUNK_ROWS = 2000


def _rows(journal: Journal, after: int, chunk_rows: int) -> list[JournalEntry]:
    return list(journal.entries(after, chunk_rows))


class RatingWatch:
    """The live rating of one table (see the module): `run()` until cancelled, `sessions` for the view."""

    def __init__(self, controller: TableController, *, settings: AdviceSettings | None = None,
                 poll_s: float = 1.0, chunk_rows: int = CHUNK_ROWS, nice: int = NICE) -> None:
        self.controller = controller
        self.settings = settings or AdviceSettings()
        self.poll_s = poll_s
        self.chunk_rows = chunk_rows
        self.nice = nice  # the worker process's niceness (runtime/rating_worker.py)
        self.caught_up = asyncio.Event()  # the rows there were at the start are folded: flags are advised
        self.sessions: list[dict[str, Any]] = []

    async def run(self) -> None:
        controller = self.controller
        terms = journal_terms(controller.journal, at=0) or controller.terms  # those of its first row (runtime/terms.py)
        worker = RatingWorker(terms.table_id, terms.rules, terms.limits, self.settings, nice=self.nice,
                              zones=terms.zones)
        last_seq = 0
        try:
            while True:
                rows = await asyncio.to_thread(_rows, controller.journal, last_seq, self.chunk_rows)
                last_seq, self.sessions, alarms = await asyncio.to_thread(worker.step, rows, controller.clock())
                if self.caught_up.is_set() and alarms:  # journaled through the writer, after the steps before
                    await controller.step(controller.raise_alarms, alarms)
                if len(rows) < self.chunk_rows:
                    self.caught_up.set()
                    await asyncio.sleep(self.poll_s)
        except RatingWorkerError as error:
            log.error("rating watch stopped: %s", error)
        finally:
            worker.close()  # a kill and a wait of milliseconds: never half a step to finish
