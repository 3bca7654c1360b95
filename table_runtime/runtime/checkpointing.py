"""Where a replay starts: a journal checkpoint's state, or a fresh table (docs/journal.md "Checkpoints").

A checkpoint is written just before the input that starts a round, once `checkpoint_rows` rows were written
since the last one: the table core between rounds and its alarm ledger (core/core_state.py
`checkpoint_state`). A start, a rollback, the audit or recall then fold only the rows after it
(core/record.py); the journal checked its seal and the chain from it to the head when it opened.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from table_runtime.core.core_state import restore_checkpoint
from table_runtime.core.inputs import CoreInput
from table_runtime.core.record import replay
from table_runtime.core.row_kinds import DERIVED_KINDS
from table_runtime.core.table_core import TableCore
from table_runtime.errors import JournalError
from table_runtime.game.inputs import BetsLocked
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.journal import Checkpoint, JournalEntry


@dataclass(frozen=True, slots=True)
class Resume:
    """Where a replay starts: after row `seq` (0: the first row), with this core."""

    seq: int
    core: TableCore


def checkpoint_due(item: CoreInput, core: TableCore, seq: int, last_checkpoint: int, every: int) -> bool:
    """Whether a checkpoint is due before `item`, the input after row `seq`, `core` being the table the rows up to
    `seq` fold to: a bet lock between rounds, `every` rows or more after the last checkpoint (at row
    `last_checkpoint`, 0: none). Whether the input then starts a round (a checkpoint is kept only if it does) is
    the caller's to see. The controller and the bench's journal filler both ask this."""
    return (isinstance(item, BetsLocked) and not core.table.round_in_play and seq > 0
            and seq - last_checkpoint >= every)


def resume(checkpoint: Checkpoint | None, rules: RuleOptions, limits: TableLimits, *,
           zones: Iterable[str] = ()) -> Resume:
    """The core at `checkpoint` (a fresh table when None); a `JournalError` for a state this program cannot read."""
    zones = tuple(zones)
    if checkpoint is None:
        return Resume(0, TableCore(rules, limits, zones=zones))
    try:
        core = restore_checkpoint(rules, limits, checkpoint.state, zones=zones)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise JournalError(f"the checkpoint at row {checkpoint.seq} is unreadable: {error!r}") from error
    return Resume(checkpoint.seq, core)


class JournalRows(Protocol):
    """What a replay reads of a journal: its rows in order (a `Journal`, or the audit's read-only connection)."""

    def entries(self, after_seq: int = 0, limit: int | None = None, *, kinds: Collection[str] | None = None,
                exclude: Collection[str] = ()) -> Iterator[JournalEntry]: ...


def rebuild(journal: JournalRows, checkpoint: Checkpoint | None, rules: RuleOptions, limits: TableLimits, *,
            zones: Iterable[str] = (), until: int | None = None) -> TableCore:
    """The core the journal holds: from `checkpoint` (None: the first row), every row after it folded (up to row
    `until` when given). Reads the rows that change the state and any row of a kind this program does not know
    (an error), not the events beside the inputs."""
    start = resume(checkpoint, rules, limits, zones=zones)
    return replay(start.core, journal.entries(start.seq, exclude=DERIVED_KINDS), until=until)
