"""The rated sessions of a journal: its rows through the one fold (core/record.py), then the sessions' fold.

`SessionFold.take(seq, ts, kind, body)` folds one journal row into a table core exactly as the start and
recall do (`record.fold`), then hands the input, the events it caused and the table's round to
`RatedSessions.observe` (rating/sessions.py), and returns the `ratings` messages the row caused. The feed
keeps one, fed every row from the first in order, so a replay of the journal gives the same messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from table_runtime.core.journal_rows import InputRow, row_from_json
from table_runtime.core.record import Row, fold, starting_core
from table_runtime.core.terms import TableTerms
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.rating.sessions import RatedSessions


class TimedRow(Row, Protocol):
    """A journal row with the time it was written (journal/rows.py JournalEntry is one)."""

    @property
    def ts(self) -> float: ...


class SessionFold:
    """A table core and its rated sessions, fed the journal's rows in order."""

    def __init__(self, table_id: str, rules: RuleOptions, limits: TableLimits | None = None, *,
                 zones: Iterable[str] = (), advice: AdviceSettings | None = None) -> None:
        self.core = starting_core(TableTerms.of(table_id, rules, limits, zones))  # the one constructor (core/record.py)
        self.sessions = RatedSessions(table_id, rules, advice=advice)
        self.last_seq = 0

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
