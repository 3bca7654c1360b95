"""Where a replay starts: a journal checkpoint's state, or a fresh table (docs/journal.md "Checkpoints").

A checkpoint is written just before the input that starts a round, once `checkpoint_rows` rows were written
since the last one (the rule: core/core_state.py `checkpoint_before`): the table core between rounds and its
alarm ledger (`checkpoint_state`). A start, a rollback, the audit or recall then fold only the rows after it
(core/record.py); the journal checked its seal and the chain from it to the head when it opened.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Protocol

from table_runtime.core.record import replay
from table_runtime.core.row_kinds import DERIVED_KINDS
from table_runtime.core.table_core import TableCore
from table_runtime.journal import Checkpoint, JournalEntry
from table_runtime.runtime.terms import TermsSource, table_core


@dataclass(frozen=True, slots=True)
class Resume:
    """Where a replay starts: after row `seq` (0: the first row), with this core."""

    seq: int
    core: TableCore


class JournalRows(TermsSource, Protocol):
    """What a replay reads of a journal: its terms and its rows in order (a `Journal`, or the audit's read-only
    rows, journal/audit.py)."""

    def entries(self, after_seq: int = 0, limit: int | None = None, *, kinds: Collection[str] | None = None,
                exclude: Collection[str] = ()) -> Iterator[JournalEntry]: ...


def resume(journal: TermsSource, checkpoint: Checkpoint | None) -> Resume:
    """The core at `checkpoint` (a fresh table when None), under the journal's own terms (runtime/terms.py
    `table_core`, the one constructor); a `JournalError` for a state this program cannot read."""
    return Resume(0 if checkpoint is None else checkpoint.seq, table_core(journal, checkpoint))


def rebuild(journal: JournalRows, checkpoint: Checkpoint | None, *, until: int | None = None) -> TableCore:
    """The core the journal holds: from `checkpoint` (None: the first row), every row after it folded (up to row
    `until` when given). Reads the rows that change the state and any row of a kind this program does not know
    (an error), not the events beside the inputs."""
    start = resume(journal, checkpoint)
    return replay(start.core, journal.entries(start.seq, exclude=DERIVED_KINDS), until=until)
