"""The journal's one writer thread, and the order of the table's steps.

A step of the table (an input with its events, an alarm, a note) is written once, as a *plan*: a generator that
changes the core on the caller's thread and yields each blocking journal call (an fsynced append, a checkpoint,
the fold that puts the core back after a refused commit) as a callable, then reads its result (or has its error
raised at the `yield`). `JournalWriter` runs plans two ways:

- `run` (the running table, on the event loop): one step at a time, in the order they were asked for (an
  `asyncio.Lock`, first come first served); each journal call runs in the writer's one thread, so the loop goes
  on while SQLite waits for the disk (an fsync on a slow card, a busy file) and the next step is not applied to the
  core before the one before it is durable. `stepping` is True meanwhile: the core is ahead of the journal then,
  and readers that cannot wait take the committed view (runtime/committed_view.py) or `await settled()`.
- `run_now` (the start, the fast table, the tests that drive the controller without a loop): each call on the
  caller's thread. Refused while a `run` step is in flight (two writers would interleave).

A step is never left half done: if the task that awaits it is cancelled while its journal call runs, the call is
let finish and the step completes (committed, or put back as the journal has it) before the cancellation goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeAlias, TypeVar

T = TypeVar("T")
JournalCall: TypeAlias = Callable[[], Any]
Plan: TypeAlias = Generator[JournalCall, Any, T]  # yields the journal's calls, returns the step's result


def _advance(plan: Plan[Any], result: Any, error: BaseException | None) -> tuple[bool, Any]:
    """Hand the plan its last journal call's result (or error, raised at its `yield`): (False, the next call), or
    (True, the plan's return value) once it is over."""
    try:
        return False, plan.send(result) if error is None else plan.throw(error)
    except StopIteration as done:
        return True, done.value


class StepOrderError(RuntimeError):
    """A step was run on the caller's thread while another runs on the writer's: ours, never the devices'."""


class JournalWriter:
    """Owns the writer thread (started on the first `run`, ended by `close`) and the order of the steps."""

    def __init__(self) -> None:
        self._executor: ThreadPoolExecutor | None = None
        self._order: asyncio.Lock | None = None
        self._order_loop: asyncio.AbstractEventLoop | None = None
        self.stepping = False  # a step runs: the core may be ahead of the journal

    def _lock(self, loop: asyncio.AbstractEventLoop) -> asyncio.Lock:
        if self._order is None or self._order_loop is not loop:  # a lock serves the loop it was made on
            self._order, self._order_loop = asyncio.Lock(), loop
        return self._order

    def _thread(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal-writer")
        return self._executor

    async def run(self, plan: Plan[T], *, before: Callable[[], None] = lambda: None,
                  after: Callable[[], None] = lambda: None) -> T:
        """Run `plan` after the steps asked for before it, its journal calls in the writer thread. `before` runs once
        the step's turn has come, before the plan touches the core (the controller keeps its committed view);
        `after` once the plan is over, done or refused, before the next step (the controller tells its listeners)."""
        loop = asyncio.get_running_loop()
        async with self._lock(loop):
            before()
            self.stepping = True
            try:
                return await self._drive(plan, loop)
            finally:
                self.stepping = False
                after()

    async def _drive(self, plan: Plan[T], loop: asyncio.AbstractEventLoop) -> T:
        cancelled = False
        result: Any = None
        error: BaseException | None = None
        while True:
            over, call = _advance(plan, result, error)
            if over:
                if cancelled:
                    raise asyncio.CancelledError from None
                return call  # type: ignore[no-any-return]
            result, error = None, None
            running = loop.run_in_executor(self._thread(), call)
            while not running.done():
                try:
                    await asyncio.wait((running,))
                except asyncio.CancelledError:  # the step completes first (module docstring), then we go
                    cancelled = True
            try:
                result = running.result()
            except BaseException as raised:  # handed to the plan at its `yield`, which rolls back or raises it
                error = raised

    def run_now(self, plan: Plan[T]) -> T:
        """Run `plan` with its journal calls on this thread (no loop needed)."""
        if self.stepping:
            raise StepOrderError("a step of the table is being journaled: run this one after it (`run`)")
        result: Any = None
        error: BaseException | None = None
        while True:
            over, call = _advance(plan, result, error)
            if over:
                return call  # type: ignore[no-any-return]
            result, error = None, None
            try:
                result = call()
            except BaseException as raised:  # as in `run`
                error = raised

    async def settled(self, *, yielding: bool = False) -> None:
        """Return once no step is in flight: until the caller's next `await`, the core is the journal's.
        `yielding`: let what is ready on the loop run first (`asyncio.sleep(0)`)."""
        if yielding:
            await asyncio.sleep(0)
        loop = asyncio.get_running_loop()
        while self.stepping:
            async with self._lock(loop):
                pass

    def close(self) -> None:
        """End the writer thread once its last call returns (a later `run` starts another)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
