"""The journal's one writer thread, and the order of the table's steps.

A change of the table (an input with its events, an alarm, a note) is an ordinary method of the controller: it
applies the change to the core, makes its blocking journal calls (an fsynced append, a checkpoint, the fold that
puts the core back after a refused commit) and returns. `JournalWriter.run(change)` makes it a step of the
running table: one step at a time, in the order they were asked for (an `asyncio.Lock`, first come first served),
the whole change in the writer's one thread, so the loop goes on while SQLite waits for the disk (an fsync on a
slow card, a busy file) and the next step is not applied to the core before the one before it is durable.

While a step runs (`stepping`) the core belongs to the writer's thread: readers on the loop take the committed
view (runtime/committed_view.py) or `await settled()`, after which the core is the journal's until their next
`await`. The start, the fast table and the tests without a loop call the same change on their own thread;
`check` refuses that while a step is in flight (two writers would interleave).

A step is never left half done: if the task that awaits it is cancelled while it runs, the change is let finish
(committed, or put back as the journal has it) before the cancellation goes on.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class StepOrderError(RuntimeError):
    """A change was made on the caller's thread while a step runs in the writer's: ours, never the devices'."""


class JournalWriter:
    """Owns the writer thread (started on the first `run`, ended by `close`) and the order of the steps."""

    def __init__(self) -> None:
        self._executor: ThreadPoolExecutor | None = None
        self._order: asyncio.Lock | None = None
        self._order_loop: asyncio.AbstractEventLoop | None = None
        self._stepping_thread: int | None = None  # the writer thread's id while it makes a step
        self.stepping = False  # a step runs: the core is the writer thread's, maybe ahead of the journal

    def _lock(self, loop: asyncio.AbstractEventLoop) -> asyncio.Lock:
        if self._order is None or self._order_loop is not loop:  # a lock serves the loop it was made on
            self._order, self._order_loop = asyncio.Lock(), loop
        return self._order

    def _thread(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal-writer")
        return self._executor

    async def run(self, change: Callable[[], T], *, before: Callable[[], None] = lambda: None,
                  after: Callable[[], None] = lambda: None) -> T:
        """Make `change()` in the writer thread after the steps asked for before it. `before` runs on the loop once
        the step's turn has come, before the change touches the core (the controller keeps its committed view);
        `after` on the loop once the change is over, done or refused, before the next step (the controller tells
        its listeners)."""
        loop = asyncio.get_running_loop()
        async with self._lock(loop):
            before()
            self.stepping = True
            try:
                running = loop.run_in_executor(self._thread(), self._make, change)
                cancelled = False
                while not running.done():
                    try:
                        await asyncio.wait((running,))
                    except asyncio.CancelledError:  # the step completes first (module docstring), then we go
                        cancelled = True
                if cancelled:
                    running.exception()  # retrieved: what the change raised is not the canceller's to see
                    raise asyncio.CancelledError
                return running.result()
            finally:
                self.stepping = False
                after()

    def _make(self, change: Callable[[], T]) -> T:
        self._stepping_thread = threading.get_ident()
        try:
            return change()
        finally:
            self._stepping_thread = None

    def check(self) -> None:
        """Refuse a change on a thread other than the writer's while a step runs in it."""
        if self.stepping and self._stepping_thread != threading.get_ident():
            raise StepOrderError("a step of the table is being journaled: make this change after it (`step`)")

    async def settled(self) -> None:
        """Return once no step is in flight: until the caller's next `await`, the core is the journal's."""
        loop = asyncio.get_running_loop()
        while self.stepping:
            async with self._lock(loop):
                pass

    def close(self) -> None:
        """End the writer thread once its last call returns (a later `run` starts another)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
