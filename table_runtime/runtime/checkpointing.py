"""What the controller keeps in a journal checkpoint and how it starts from one (docs/journal.md "Checkpoints").

A checkpoint is written just before the input that starts a round, once `checkpoint_rows` rows were written
since the last one: the table core between rounds (core/core_state.py) and the alarm board (the alarms not
yet acknowledged, which may be older than any round). A start or a rebuild then replays only the rows after
it; the journal checked its seal and the chain from it to the head when it opened.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from table_runtime.core.core_state import core_state, restore, restore_table
from table_runtime.core.table_core import TableCore
from table_runtime.errors import JournalError
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.game.table import Table
from table_runtime.journal import Checkpoint
from table_runtime.runtime.alarms import AlarmBoard


@dataclass(frozen=True, slots=True)
class Resume:
    """Where a replay starts: after row `seq` (0: the first row), with this core and board."""

    seq: int
    core: TableCore
    board: AlarmBoard


def state_of(core: TableCore, active: Sequence[dict[str, Any]], counts: dict[str, int],
             pending: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The checkpoint state: the core between rounds, the active alarms (in the order raised) and how many of each
    kind were raised (`counts` of the board, plus the `pending` alarms of the step not yet on it)."""
    counts = dict(counts)
    for alarm in pending:
        counts[alarm["kind"]] = counts.get(alarm["kind"], 0) + 1
    return {"core": core_state(core), "alarms": [dict(alarm) for alarm in active], "alarm_counts": counts}


def resume(checkpoint: Checkpoint | None, rules: RuleOptions, limits: TableLimits, *,
           zones: Iterable[str] = ()) -> Resume:
    """The core and board at `checkpoint` (a fresh table when None); a `JournalError` for a state this program
    cannot read."""
    zones = tuple(zones)
    if checkpoint is None:
        return Resume(0, TableCore(rules, limits, zones=zones), AlarmBoard())
    try:
        state = checkpoint.state
        core = restore(rules, limits, state["core"], zones=zones)
        board = AlarmBoard()
        for alarm in state["alarms"]:
            board.raised(dict(alarm))
        board.counts = {str(kind): int(count) for kind, count in state["alarm_counts"].items()}
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise JournalError(f"the checkpoint at row {checkpoint.seq} is unreadable: {error!r}") from error
    return Resume(checkpoint.seq, core, board)


def table_at(checkpoint: Checkpoint | None, rules: RuleOptions, limits: TableLimits) -> Table:
    """The game table alone at `checkpoint` (a fresh one when None): what recall replays from."""
    if checkpoint is None:
        return Table(rules, limits)
    try:
        return restore_table(rules, limits, checkpoint.state["core"]["table"])
    except (KeyError, TypeError, ValueError) as error:
        raise JournalError(f"the checkpoint at row {checkpoint.seq} is unreadable: {error!r}") from error
