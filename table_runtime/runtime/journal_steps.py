"""How the controller's changes reach the journal: one step at a time, each journal call in the writer's thread.

A change of the table is a plan (runtime/journal_writer.py): a generator that yields its journal calls (the
fsynced appends, the checkpoints, the fold after a refused commit). `step(plan)` runs it after the steps asked
for before it, the loop awaiting it while the disk commits; the plain methods run a plan on the caller's thread
(`JournalWriter.run_now`: the start, the fast table, tests without a loop). While a step is in flight the core is
ahead of the journal: readers see the committed view (runtime/committed_view.py) kept when the step started,
and listeners are told once the step is over, never half of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TypeVar

from table_runtime.core.journal_outage import TimedRow
from table_runtime.core.journal_rows import JournalRow, rows_to_json
from table_runtime.journal import Journal, JournalEntry
from table_runtime.runtime.committed_view import CommittedView
from table_runtime.runtime.journal_writer import JournalWriter, Plan

T = TypeVar("T")


class JournalSteps:
    """The base of the table controller: its steps through the journal's writer thread and its committed view."""

    journal: Journal
    clock: Callable[[], float]
    writer: JournalWriter
    _view: CommittedView | None  # the last committed state, once built
    _step_changed: bool  # a step in flight committed a change: told when the step is over

    def _changed(self) -> None:
        raise NotImplementedError

    def _build_view(self) -> CommittedView:
        raise NotImplementedError

    async def step(self, plan: Plan[T]) -> T:
        """Run one change (a `plan_*`) after those asked for before it, its journal calls off the loop: the loop
        serves the display, the feed and the devices while the disk commits; readers see the committed view."""
        return await self.writer.run(plan, before=self._keep_view, after=self._step_over)

    def _keep_view(self) -> None:
        if self._view is None:  # the core is the journal's now: what readers see until the step is over
            self._view = self._build_view()

    def _step_over(self) -> None:
        """The step is over (its last commit durable, or the core put back): readers and listeners see it whole,
        never half (a reader gone offline and its alarm, a registry's zones and its note, are one step)."""
        if self._step_changed:
            self._step_changed = False
            self._changed()

    @property
    def committed(self) -> CommittedView:
        """The table as the journal has it (committed_view.py): what the display, lamps and metrics read, even while
        a step is being journaled."""
        if self._view is None:
            assert not self.writer.stepping, "a step keeps the view before it changes the core"
            self._view = self._build_view()
        return self._view

    @property
    def last_seq(self) -> int:
        """The last durable row's seq, read without waiting for a commit in flight (`Journal.written_seq`)."""
        return self.journal.written_seq

    def _append(self, rows: Sequence[JournalRow]) -> Plan[list[JournalEntry]]:
        """Rows in one fsynced transaction, in the writer's thread (`step`) or this one."""
        entries: list[JournalEntry] = yield partial(self.journal.append_many, rows_to_json(rows), ts=self.clock())
        return entries

    def _append_timed(self, rows: Sequence[TimedRow]) -> Plan[list[JournalEntry]]:
        """Rows each with the time it happened (what a journal outage held), in one transaction."""
        entries: list[JournalEntry] = yield partial(self.journal.append_timed, rows)
        return entries
