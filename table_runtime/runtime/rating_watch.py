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
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any

from table_runtime.errors import TableError
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.runtime import rating_worker
from table_runtime.runtime.controller import TableController

log = logging.getLogger(__name__)
CHUNK_ROWS = 2000


class RatingWatch:
    """The live rating of one table (see the module): `run()` until cancelled, `sessions` for the view."""

    def __init__(self, controller: TableController, *, settings: AdviceSettings | None = None,
                 poll_s: float = 1.0, chunk_rows: int = CHUNK_ROWS) -> None:
        self.controller = controller
        self.settings = settings or AdviceSettings()
        self.poll_s = poll_s
        self.chunk_rows = chunk_rows
        self.caught_up = asyncio.Event()  # the rows there were at the start are folded: flags are advised
        self.sessions: list[dict[str, Any]] = []

    async def run(self) -> None:
        controller = self.controller
        loop = asyncio.get_running_loop()
        worker = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        last_seq = 0
        try:
            await loop.run_in_executor(worker, partial(rating_worker.start, controller.table_id, controller.rules,
                                                       controller.limits, self.settings, controller.journal.path))
            while True:
                folded, last_seq, self.sessions, alarms = await loop.run_in_executor(
                    worker, rating_worker.step, self.chunk_rows, controller.clock())
                if self.caught_up.is_set() and alarms:  # journaled through the writer, after the steps before
                    await controller.step(controller.plan_raise_alarms(alarms))
                if folded < self.chunk_rows:
                    self.caught_up.set()
                    await asyncio.sleep(self.poll_s)
        except (TableError, KeyError, TypeError, ValueError) as error:
            log.error("rating watch stopped: row %d does not fold: %s", last_seq + 1, error)
        except (BrokenProcessPool, OSError) as error:
            log.error("rating watch stopped: its worker process ended: %s", error)
        finally:
            worker.shutdown(wait=False, cancel_futures=True)
