"""The rating watch's fold in a process of its own, so that its CPU never holds the runtime's interpreter.

The rated sessions fold the whole journal again (the table's one fold, then the sessions, the detection's scores
and each decision's cost: about 1.4 ms of CPU a round, and 1.8 s to fit the edge model at the start). In a
thread of the runtime that work holds the GIL for up to the interpreter's switch interval at a time while a card
waits for the loop: measured, it moved card -> screen p99 from about 9 ms to 25 ms on the Pi's proxy
(bench/README.md). In a process of its own, at the lowest CPU priority (nice 19), the operating system gives it
only what the table's process leaves, and the loop, asleep until a card comes, is woken at once.

`RatingWorker` (the runtime's side) starts the process (`spawn`: nothing of the runtime's threads or open files
is copied, the journal's included), hands it the journal's rows it reads itself, and gets back what the watch
shows and journals. The process holds no journal connection: a power cut or a kill of the table leaves nothing
of it on the journal's files, and it is killed with the watch (a daemon: with the runtime too).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

from table_runtime.errors import TableError
from table_runtime.game.events import Alarm
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.journal import JournalEntry
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.rating.session_fold import SessionFold
from table_runtime.rating.sessions import theo_cents

NICE = 19  # the worker's niceness: it takes the CPU the table leaves
Row = tuple[int, float, str, dict[str, Any]]  # seq, ts, kind, body: a journal row as the worker folds it
Step = tuple[int, list[dict[str, Any]], list[Alarm]]  # the last row folded, the open sessions, the advice


class RatingWorkerError(TableError):
    """The worker refused a row (the message names it) or ended."""


def session_view(fold: SessionFold, now: float) -> list[dict[str, Any]]:
    """The open sessions by box, seated first: player, time played, rounds, handle, win, theo and skill theo."""
    sessions = fold.sessions
    view = []
    for _, session in sorted(sessions.open.items()):
        theo, theo_skill = theo_cents(session.handle, sessions.edge, session.cost)
        view.append({"session": session.session, "box": session.box, "behind": session.behind,
                     "player": session.player, "seconds_played": session.seconds(now), "rounds": session.rounds,
                     "hands": session.hands, "handle_cents": session.handle, "win_cents": session.win,
                     "theo_cents": theo, "theo_skill_cents": theo_skill})
    return view


def fold_step(fold: SessionFold, rows: Sequence[Row], now: float) -> Step:
    """Fold `rows` into `fold`: the last row folded, the open sessions as the supervisor's view shows them at
    `now`, and the advice these rows raised (each once)."""
    for seq, ts, kind, body in rows:
        fold.take(seq, ts, kind, body)
    advice = fold.sessions.advice
    assert advice is not None
    alarms, advice.raised = advice.raised, []
    return fold.last_seq, session_view(fold, now), alarms


def _serve(connection: Connection, table_id: str, rules: RuleOptions, limits: TableLimits,
           settings: AdviceSettings, nice: int, zones: tuple[str, ...] = ()) -> None:
    """The worker process: its priority, its fold (the house edge, the chart and the edge model computed here),
    then one answer per batch of rows until the runtime closes the pipe. A runtime gone without closing it (kill -9)
    ends the worker the same way, quietly: the pipe broken is its end, not an error to print."""
    os.nice(nice)
    fold = SessionFold(table_id, rules, limits, zones=zones, advice=settings)
    while True:
        try:
            rows, now = connection.recv()
        except (EOFError, ConnectionResetError):
            return
        try:
            answer: Step | str = fold_step(fold, rows, now)
        except (TableError, KeyError, TypeError, ValueError) as error:
            answer = f"row {fold.last_seq + 1} does not fold: {error}"
        try:
            connection.send(answer)
        except (BrokenPipeError, ConnectionResetError):  # nobody to answer: the runtime was killed
            return


class RatingWorker:
    """The runtime's side of the worker process: `step(rows, now)` blocks (call it off the loop); `close()`."""

    def __init__(self, table_id: str, rules: RuleOptions, limits: TableLimits, settings: AdviceSettings, *,
                 nice: int = NICE, zones: Sequence[str] = ()) -> None:
        context = multiprocessing.get_context("spawn")
        self._connection, theirs = context.Pipe()
        self._process = context.Process(target=_serve,
                                        args=(theirs, table_id, rules, limits, settings, nice, tuple(zones)),
                                        name=f"rating-{table_id}", daemon=True)
        self._process.start()
        theirs.close()

    def step(self, entries: Sequence[JournalEntry], now: float) -> Step:
        """Fold `entries` in the worker; what it gives back (RatingWorkerError if it refused a row or ended)."""
        try:
            self._connection.send(([(entry.seq, entry.ts, entry.kind, dict(entry.body)) for entry in entries], now))
            answer: Step | str = self._connection.recv()
        except (EOFError, OSError) as error:
            raise RatingWorkerError(f"the rating worker ended: {error or type(error).__name__}") from error
        if isinstance(answer, str):
            raise RatingWorkerError(answer)
        return answer

    def close(self) -> None:
        """Kill the worker (whatever it was folding: the journal has it all) and wait for it."""
        self._connection.close()
        self._process.kill()
        self._process.join()
