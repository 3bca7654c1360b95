"""The dealer on shift at each table, as the pit page shows him: folded from the ``events`` channel (pure).

Each table's journal rows go through the table's own tally of the dealers' work (table_runtime/staff/
dealer_work.py `WorkTally`, the one reader of a stint from the rows): the stint open is the dealer on shift, by
his employee id (the floor never holds a name), with his rounds, rounds per hour and errors per 100 rounds so far.
Rows arrive at least once and, across a reconnect, out of order: a row at or below the last one folded of its
journal is dropped (a row missed and replayed later is not counted: the stint's figures on the page are the live
feed's, the stored `DealerWork` note at its end is the table's own). A table's newest journal is the one shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from casino_floor.tables_view import as_time
from table_runtime.staff.dealer_work import WorkTally

# The rows the tally reads: the logins and inputs, the round's start and record, the cut card, the alarms.
_KINDS: Final = frozenset({"input", "event", "round", "alarm", "alarm_updated"})


@dataclass(slots=True)
class _Journal:
    tally: WorkTally = field(default_factory=WorkTally)
    last_seq: int = 0
    last_ts: float = 0.0


class DealersOnShift:
    """Every table's dealer on shift, by table id."""

    def __init__(self) -> None:
        self._journals: dict[str, dict[str, _Journal]] = {}
        self._newest: dict[str, str] = {}  # table id -> the journal of its newest row

    def apply(self, payload: Mapping[str, Any]) -> str | None:
        """Fold one ``events`` payload; the table whose dealer changed (or may have), or None."""
        return self._fold(payload, None)

    def apply_rows(self, rows: list[dict[str, Any]]) -> set[str]:
        """Fold the ``events`` rows of one message, in order, as `apply` folds each; the tables they changed."""
        changed: set[str] = set()
        last: tuple[Any, Any, _Journal] | None = None  # the journal of the row before (a message's are all one)
        for row in rows:
            key = (row.get("table_id"), row.get("journal"))
            folded = last[2] if last is not None and last[:2] == key else None
            table_id = self._fold(row, folded)
            if table_id is not None:
                changed.add(table_id)
                last = (*key, self._journals[table_id][str(key[1])])
        return changed

    def _fold(self, payload: Mapping[str, Any], folded: _Journal | None) -> str | None:
        """`apply`, `folded` the payload's journal when the caller has it at hand."""
        table_id, journal, seq, ts = (payload.get("table_id"), payload.get("journal"), payload.get("seq"),
                                      as_time(payload.get("ts")))
        body, kind = payload.get("body"), payload.get("kind")
        if not (isinstance(table_id, str) and isinstance(journal, str) and isinstance(seq, int)
                and ts is not None and isinstance(body, dict) and kind in _KINDS):
            return None
        journals = self._journals.setdefault(table_id, {}) if folded is None else self._journals[table_id]
        if folded is None:
            folded = journals.setdefault(journal, _Journal())
        if seq <= folded.last_seq:
            return None
        folded.last_seq, folded.last_ts = seq, ts
        newest = journals.get(self._newest.get(table_id, ""))
        if newest is None or newest is folded or ts >= newest.last_ts:
            self._newest[table_id] = journal
        try:
            folded.tally.add_fields(seq, ts, str(kind), body)
        except (KeyError, TypeError, ValueError):  # a body off the journal's format: the stint goes on without it
            return None
        return table_id

    def seed(self, rows: list[Mapping[str, Any]]) -> None:
        """The stored rows of one table's journal from its dealer's login (`events` payloads, in seq order): that
        journal's tally starts again from them, rows already heard live and not yet stored lost from its counts."""
        if not rows:
            return
        table_id, journal = rows[0].get("table_id"), rows[0].get("journal")
        if not isinstance(table_id, str) or not isinstance(journal, str):
            return
        journals = self._journals.setdefault(table_id, {})
        heard = journals.pop(journal, None)
        for row in rows:
            self.apply(row)
        if heard is not None and journal in journals:
            journals[journal].last_seq = max(journals[journal].last_seq, heard.last_seq)

    def on_shift(self, table_id: str) -> dict[str, Any] | None:
        """The dealer on shift at the table and his stint so far, or None."""
        folded = self._journals.get(table_id, {}).get(self._newest.get(table_id, ""))
        stint = folded.tally.open if folded is not None else None
        if stint is None:
            return None
        view = stint.view()
        return {"table_id": table_id, "employee": stint.employee, "since": stint.since,
                **{name: view[name] for name in ("seconds", "rounds", "rounds_per_hour", "errors_per_100_rounds")}}

    def overview(self) -> list[dict[str, Any]]:
        """Every table with a dealer on shift, by table id."""
        return [shown for table_id in sorted(self._journals) if (shown := self.on_shift(table_id)) is not None]
