"""The rating watch's fold in a process of its own, so that its CPU never holds the runtime's interpreter.

The rated sessions fold the whole journal again (the table's one fold, then the sessions, the detection's scores
and each decision's cost: about 1.4 ms of CPU a round, and 1.8 s to fit the edge model at the start). In a
thread of the runtime that work holds the GIL for up to the interpreter's switch interval at a time while a card
waits for the loop: measured, it moved card -> screen p99 from about 9 ms to 25 ms on the Pi's proxy
(bench/README.md). In a process of its own the operating system shares the cores instead, and the loop, asleep
until a card comes, is woken at once.

The process (`spawn`: nothing of the runtime's threads or open files is copied) keeps one `SessionFold` and its
own read-only connection to the journal (SQLite in WAL mode: readers never block the writer), both made by
`start`, at the lowest CPU priority (nice 19: the scheduler gives it what the table's process leaves); each
`step` folds the next rows and gives back what the watch shows and journals. The asyncio side is
runtime/rating_watch.py.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from table_runtime.game.events import Alarm
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.journal import Journal
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.rating.session_fold import SessionFold
from table_runtime.rating.sessions import half_up

NICE = 19  # the worker's niceness: it takes the CPU the table leaves
_state: tuple[SessionFold, Journal] | None = None  # the worker process's fold and journal (`start`)


def session_view(fold: SessionFold, now: float) -> list[dict[str, Any]]:
    """The open sessions by box, seated first: player, time played, rounds, handle, win, theo and skill theo."""
    sessions = fold.sessions
    return [{"session": session.session, "box": session.box, "behind": session.behind, "player": session.player,
             "seconds_played": session.seconds(now), "rounds": session.rounds, "hands": session.hands,
             "handle_cents": session.handle, "win_cents": session.win,
             "theo_cents": half_up(session.handle * sessions.edge),
             "theo_skill_cents": half_up(session.handle * sessions.edge + session.cost)}
            for _, session in sorted(sessions.open.items())]


def fold_rows(fold: SessionFold, journal: Journal, chunk_rows: int) -> int:
    """Fold the next rows (at most `chunk_rows`) into `fold`; how many there were."""
    rows = list(journal.entries(fold.last_seq, chunk_rows))
    for row in rows:
        fold.take(row.seq, row.ts, row.kind, row.body)
    return len(rows)


def start(table_id: str, rules: RuleOptions, limits: TableLimits, settings: AdviceSettings, path: Path) -> None:
    """In the worker: the lowest CPU priority (the table's own process first, on a Pi whose cores are all busy
    too), the fold (the house edge, the chart and the edge model computed here) and the journal."""
    global _state
    os.nice(NICE)
    _state = (SessionFold(table_id, rules, limits, advice=settings), Journal.open(path))


def step(chunk_rows: int, now: float) -> tuple[int, int, list[dict[str, Any]], list[Alarm]]:
    """In the worker: fold the next rows; how many, the last row folded, the open sessions as the supervisor's view
    shows them, and the advice raised by these rows (each once)."""
    assert _state is not None, "start() first"
    fold, journal = _state
    folded = fold_rows(fold, journal, chunk_rows)
    advice = fold.sessions.advice
    assert advice is not None
    alarms, advice.raised = advice.raised, []
    return folded, fold.last_seq, session_view(fold, now), alarms


def stop() -> None:
    """In the worker: close its journal connection."""
    global _state
    if _state is not None:
        _state[1].close()
        _state = None
