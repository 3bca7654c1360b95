"""The rated sessions, live: the one rating fold in a process of its own (runtime/rating_worker.py); what it makes
journaled, the supervisor's view of the rated players.

`RatingWatch.run()` starts the worker process, which starts from its newest checkpoint (never the first row of an
aged journal), reads the journal's rows itself and folds them `chunk_rows` at a time, the rows written since every
`poll_s` seconds. What a step made that the journal does not hold yet (the `ratings` messages, and each flag of the
detection as an `advantage_play` alarm: advice with figures, never an action on the game) is journaled by the
controller in one transaction: `rating` rows, which the feed publishes on its `ratings` channel as it publishes
every row (feed/messages.py), and the alarms. After each step `sessions` is the open sessions as the supervisor's
view shows them. A row the fold refuses, or a worker that dies, ends the watch with one log line; the table plays
on. While the journal cannot be written the step's rows wait (the worker is asked for nothing more meanwhile).

`journal_ratings` is the same fold run in the caller's process over a journal no table has open (a table's life
journaled again offline: the tests, the benches).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from typing import Any

from table_runtime.core.row_kinds import RowKind
from table_runtime.journal import Journal
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.process_pipe import start_off_the_loop
from table_runtime.runtime.rating_worker import (
    CHECKPOINT_ROWS,
    CHUNK_ROWS,
    NICE,
    TABLE_ADVICE,
    RatingFold,
    RatingWorker,
    RatingWorkerError,
)

log = logging.getLogger(__name__)


class RatingWatch:
    """The live rating of one table (see the module): `run()` until cancelled, `sessions` for the view."""

    def __init__(self, controller: TableController, *, settings: AdviceSettings | None = None,
                 poll_s: float = 1.0, chunk_rows: int = CHUNK_ROWS, nice: int = NICE,
                 checkpoint_rows: int = CHECKPOINT_ROWS) -> None:
        self.controller = controller
        self.settings = settings or AdviceSettings()
        self.poll_s = poll_s
        self.chunk_rows = chunk_rows
        self.nice = nice  # the worker process's niceness once caught up (runtime/rating_worker.py)
        self.checkpoint_rows = checkpoint_rows
        self.caught_up = asyncio.Event()  # the rows there were at the start are folded
        self.sessions: list[dict[str, Any]] = []

    async def run(self) -> None:
        controller = self.controller
        worker = await start_off_the_loop(  # starting a process (fork, exec, its arguments) is not the loop's to wait
            functools.partial(RatingWorker, controller.journal.path, self.settings, nice=self.nice,
                              checkpoint_rows=self.checkpoint_rows), abandoned=RatingWorker.close)
        try:
            while True:
                _, sessions, advice, messages, caught_up = await asyncio.to_thread(
                    worker.step, controller.clock(), self.chunk_rows)
                # The view first: whoever sees the step's advice on the banner sees the sessions it is about.
                self.sessions = sessions
                while not await controller.step(controller.ratings, messages, advice):  # noqa: ASYNC110
                    await asyncio.sleep(self.poll_s)  # the journal cannot be written: the same rows again, later
                if caught_up:
                    self.caught_up.set()
                    await asyncio.sleep(self.poll_s)
        except RatingWorkerError as error:
            log.error("rating watch stopped: %s", error)
        finally:
            worker.close()  # a kill and a wait of milliseconds: never half a step to finish


def journal_ratings(journal: Journal, *, settings: AdviceSettings | None = TABLE_ADVICE,
                    checkpoint_rows: int = CHECKPOINT_ROWS) -> int:
    """Fold the rated sessions of `journal` (open in this process, no table playing on it) from their newest
    checkpoint, and journal the messages of every row the journal has none for yet as `rating` rows (each at its
    causing row's time); the number journaled. No advice is journaled (a table's watch journals that); its
    checkpoints are those a watch with the same `settings` (by default, a table's) starts from."""
    fold = RatingFold(journal.path, settings=settings, checkpoint_rows=checkpoint_rows, rate_history=True)
    written = 0
    try:
        while True:
            _, _, _, messages, caught_up = fold.step(time.time())
            if messages:
                journal.append_many([(RowKind.RATING, message) for message in messages], ts=journal_ts(journal))
                written += len(messages)
            if caught_up:
                return written
    finally:
        fold.close()


def journal_ts(journal: Journal) -> float:
    """The time of the journal's last row (rows appended offline keep the journal's order of time)."""
    last = list(journal.entries(max(0, journal.last_seq - 1), 1))
    return last[0].ts if last else time.time()
