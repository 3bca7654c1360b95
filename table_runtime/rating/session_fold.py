"""The rated sessions of a journal: its rows through the one fold (core/record.py), then the sessions' fold.

`SessionFold.take(seq, ts, kind, body)` folds one journal row into a table core exactly as the start and
recall do (`record.fold`), then hands the input, the events it caused and the table's round to
`RatedSessions.observe` (rating/sessions.py), and returns the `ratings` messages the row caused. The rating
worker keeps the one fold of the rated sessions (runtime/rating_worker.py), from its newest checkpoint: the core
of the journal's checkpoint at that row and the sessions' state sealed beside it (rating/session_state.py), so a
fold from there gives the same messages as a fold from the first row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from table_runtime.core.journal_rows import InputRow, row_from_json
from table_runtime.core.record import Row, fold, starting_core
from table_runtime.core.table_core import TableCore
from table_runtime.core.terms import TableTerms
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.rating.sessions import RatedSessions, RatingModels


class TimedRow(Row, Protocol):
    """A journal row with the time it was written (journal/rows.py JournalEntry is one)."""

    @property
    def ts(self) -> float: ...


class SessionFold:
    """A table core and its rated sessions, fed the journal's rows in order."""

    def __init__(self, table_id: str, rules: RuleOptions, limits: TableLimits | None = None, *,
                 zones: Iterable[str] = (), advice: AdviceSettings | None = None,
                 models: RatingModels | None = None, core: TableCore | None = None, last_seq: int = 0) -> None:
        """A fold from the first row, or from row `last_seq` with `core` the table after it (a checkpoint's; the
        sessions' state is then the caller's to restore: rating/session_state.py)."""
        # the one constructor (core/record.py) for a fold from the first row
        self.core = starting_core(TableTerms.of(table_id, rules, limits, zones)) if core is None else core
        self.sessions = RatedSessions(table_id, rules, advice=advice, models=models)
        self.last_seq = last_seq

    def take(self, seq: int, ts: float, kind: str, body: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The `ratings` messages row `seq` caused (it is folded into the core first)."""
        row = row_from_json(seq, kind, body)
        events = fold(self.core, seq, row)
        self.last_seq = seq
        item = row.item if isinstance(row, InputRow) else None
        return self.sessions.observe(seq, ts, item, events, self.core.table.round)

    def take_all(self, rows: Iterable[TimedRow]) -> list[dict[str, Any]]:
        """Every message of `rows` (journal entries: seq, ts, kind, body), in order."""
        out: list[dict[str, Any]] = []
        for row in rows:
            out += self.take(row.seq, row.ts, row.kind, row.body)
        return out
