"""A step of the running table (runtime/journal_writer.py): the controller's own method, made whole in the journal's
writer thread, one step after the other; the loop's listeners are told once it is over; a change made on the
loop meanwhile is refused, not interleaved; a cancelled step still completes."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from table_runtime.game.inputs import Next
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.journal_writer import StepOrderError

pytestmark = pytest.mark.timeout(30)


def controller_on(journal: Journal) -> TableController:
    return TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                           clock=lambda: 1_700_000_000.0)


async def test_a_step_is_the_method_made_in_the_writer_thread_and_told_once_on_the_loop(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        told: list[str] = []
        controller.subscribe(lambda: told.append(threading.current_thread().name))
        made_in: list[str] = []

        def two_notes() -> int:
            made_in.append(threading.current_thread().name)
            controller.note({"type": "First"})
            controller.note({"type": "Second"})
            return controller.last_seq

        seq = await controller.step(two_notes)
        assert made_in[0].startswith("journal-writer")
        assert told == [threading.current_thread().name]  # once, on the loop, after both notes
        assert [entry.body["type"] for entry in journal.entries(kinds=("status",))][-2:] == ["First", "Second"]
        assert seq == journal.written_seq
        controller.note({"type": "Direct"})  # no step in flight: the same method on the caller's thread
        assert told == [threading.current_thread().name] * 2


async def test_a_change_on_the_loop_while_a_step_runs_is_refused_and_the_next_step_waits(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        inside, release = threading.Event(), threading.Event()

        def held() -> None:
            inside.set()
            assert release.wait(10)
            controller.note({"type": "Held"})

        first = asyncio.create_task(controller.step(held))
        assert await asyncio.to_thread(inside.wait, 10)
        before = journal.written_seq
        with pytest.raises(StepOrderError):
            controller.press("NEXT", {}, role="dealer", source="display")
        with pytest.raises(StepOrderError):
            controller.submit(Next())
        second = asyncio.create_task(controller.step(controller.note, {"type": "After"}))
        await asyncio.sleep(0.05)
        assert not second.done() and journal.written_seq == before  # in its turn, not before
        release.set()
        await first
        await second
        assert [entry.body["type"] for entry in journal.entries(kinds=("status",))][-2:] == ["Held", "After"]


async def test_a_cancelled_step_completes_before_the_cancellation_goes_on(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        inside, release = threading.Event(), threading.Event()

        def held() -> None:
            inside.set()
            assert release.wait(10)
            controller.note({"type": "Held"})

        step = asyncio.create_task(controller.step(held))
        assert await asyncio.to_thread(inside.wait, 10)
        step.cancel()
        await asyncio.sleep(0.05)
        assert not step.done()  # the change is let finish
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await step
        assert [entry.body["type"] for entry in journal.entries(kinds=("status",))][-1] == "Held"
        assert not controller.writer.stepping
