"""The rated sessions, live: the rating fold over the journal, off the loop; advice to the supervisor, and the
supervisor's view of the rated players.

`RatingWatch.run()` keeps a `SessionFold` (rating/session_fold.py) with the detection's scores of every seated
session (rating/session_flags.py), fed the journal's rows in a worker thread, `chunk_rows` at a time: first
every row up to the head (the start: what was advised before is not advised again, the journal has it), then
the rows written since, every `poll_s` seconds. A flag found on a new row is journaled by the controller as an
`advantage_play` alarm (a supervisor's kind, never halting): advice with figures, never an action on the game.
After each step `sessions` is the open sessions as the supervisor's view shows them (a new list each time: the
loop reads it while the worker folds). A row the fold refuses ends the watch with one log line; the table
plays on.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from table_runtime.errors import TableError
from table_runtime.journal import Journal
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.rating.session_fold import SessionFold
from table_runtime.rating.sessions import half_up
from table_runtime.runtime.controller import TableController

log = logging.getLogger(__name__)
CHUNK_ROWS = 2000


def _fold_rows(fold: SessionFold, journal: Journal, chunk_rows: int) -> int:
    """Fold the next rows (at most `chunk_rows`) into `fold`; how many there were."""
    rows = list(journal.entries(fold.last_seq, chunk_rows))
    for row in rows:
        fold.take(row.seq, row.ts, row.kind, row.body)
    return len(rows)


def session_view(fold: SessionFold, now: float) -> list[dict[str, Any]]:
    """The open sessions by box, seated first: player, time played, rounds, handle, win, theo and skill theo."""
    sessions = fold.sessions
    return [{"session": session.session, "box": session.box, "behind": session.behind, "player": session.player,
             "seconds_played": session.seconds(now), "rounds": session.rounds, "hands": session.hands,
             "handle_cents": session.handle, "win_cents": session.win,
             "theo_cents": half_up(session.handle * sessions.edge),
             "theo_skill_cents": half_up(session.handle * sessions.edge + session.cost)}
            for _, session in sorted(sessions.open.items())]


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
        # The house edge, the chart and the edge model are computed once (a second or two of CPU): off the loop.
        fold = await asyncio.to_thread(SessionFold, controller.table_id, controller.rules, controller.limits,
                                       advice=self.settings)
        advice = fold.sessions.advice
        assert advice is not None
        while True:
            try:
                folded = await asyncio.to_thread(_fold_rows, fold, controller.journal, self.chunk_rows)
            except (TableError, KeyError, TypeError, ValueError) as error:
                log.error("rating watch stopped: row %d does not fold: %s", fold.last_seq + 1, error)
                return
            self.sessions = session_view(fold, controller.clock())
            alarms, advice.raised = advice.raised, []
            if self.caught_up.is_set() and alarms:  # journaled through the writer, after the steps before
                await controller.step(controller.plan_raise_alarms(alarms))
            if folded < self.chunk_rows:
                self.caught_up.set()
                await asyncio.sleep(self.poll_s)
