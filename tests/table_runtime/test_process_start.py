"""A process of the table's started off the loop is never left starting behind a cancellation
(runtime/process_pipe.py `start_off_the_loop`).

A table stopped during its start (the audit, the program check and the rating worker each being spawned) used to
leave the thread forking after the stop: the child, until it execs, held every descriptor of the runtime, the
journal's writer claim among them, so a restart on the same journal was refused ("written by another runtime"),
and a rating worker started then was never stopped."""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
import time
from pathlib import Path

import pytest

import table_runtime.runtime.rating_watch as rating_watch
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.process_pipe import start_off_the_loop
from table_runtime.runtime.rating_watch import RatingWatch
from table_runtime.runtime.rating_worker import RatingWorker

pytestmark = pytest.mark.timeout(60)


async def test_a_cancelled_start_waits_for_the_start_and_hands_over_what_it_made() -> None:
    entered, release = threading.Event(), threading.Event()
    ended: list[float] = []
    abandoned: list[str] = []

    def start() -> str:
        entered.set()
        release.wait(10)
        ended.append(time.monotonic())
        return "the process"

    starting = asyncio.create_task(start_off_the_loop(start, abandoned=abandoned.append))
    await asyncio.to_thread(entered.wait, 10)
    starting.cancel()
    await asyncio.sleep(0.05)  # the cancellation delivered while the start still runs
    assert not starting.done()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await starting
    assert ended and abandoned == ["the process"]


async def test_a_rating_watch_stopped_while_its_worker_starts_stops_the_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "journal.db"
    entered, release = threading.Event(), threading.Event()
    made: list[RatingWorker] = []

    class SlowToStart(RatingWorker):
        def __init__(self, *args: object, **kwargs: object) -> None:
            entered.set()
            release.wait(10)
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            made.append(self)

    monkeypatch.setattr(rating_watch, "RatingWorker", SlowToStart)
    with Journal.open(path) as journal:
        controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1_700_000_000.0)
        before = set(multiprocessing.active_children())
        watching = asyncio.create_task(RatingWatch(controller, settings=AdviceSettings(), nice=0).run())
        await asyncio.to_thread(entered.wait, 10)
        watching.cancel()
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await watching
        assert len(made) == 1  # started before the cancellation went on
        left = [child for child in multiprocessing.active_children() if child not in before and child.is_alive()]
        assert left == [], f"a rating worker left running: {left}"
    with Journal.open(path) as again:  # the writer's claim is free: a restart takes it
        again.claim_writer()
