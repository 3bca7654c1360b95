"""The dealers' work at the floor (issue 34): each table's `DealerWork` rows stored (`dealer_work`, migration 0007)
and summed by dealer, table or shift (`table-floor query dealers`).

A table journals a stint's figures when it ends (table_runtime/staff/dealer_work.py: his logout, or the next
dealer's push). The floor stores them as the table wrote them, under the employee id (never a name), and sums them:
rounds, hands and boxes in play, time on shift (in rounds, shuffling, idle), errors by kind; the rates are the
sums' (rounds per hour of the summed time, errors per 100 of the summed rounds), so the stints of a shift add up
to the table's own figures.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, Final, Literal

import asyncpg

from casino_floor import bounds
from casino_floor.integrity import Row
from casino_floor.shifts import Shifts

DEALER_WORK: Final = "DealerWork"  # the status row's type
Grouping = Literal["dealer", "table", "shift"]
GROUPINGS: Final = ("dealer", "table", "shift")
_SUMMED: Final = ("seconds", "seconds_in_rounds", "shuffle_seconds", "rounds", "hands", "box_rounds", "error_count")


def is_dealer_work(row: Row) -> bool:
    return row.kind == "status" and row.type == DEALER_WORK


def _count(value: Any, name: str) -> int:
    return bounds.integer(value, name) if isinstance(value, int) and not isinstance(value, bool) else 0


def _seconds(value: Any) -> float:
    return bounds.finite(value, "seconds") if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def dealer_work_row(row: Row, body: dict[str, Any]) -> tuple[Any, ...] | None:
    """The `dealer_work` row of a `DealerWork` status row (its decoded `body`; None for one naming no employee: the
    chain keeps it); `bounds.Refused` for a count its columns cannot hold."""
    employee = body.get("employee")
    if not isinstance(employee, str) or not employee:
        return None
    errors = body.get("errors")
    counted = {str(kind): _count(count, f"errors.{kind}") for kind, count in
               (errors.items() if isinstance(errors, dict) else ())}
    until = body.get("until")
    return (row.table_id, row.journal, row.seq, row.ts, employee[:64], _seconds(body.get("since")),
            None if until is None else _seconds(until), _seconds(body.get("seconds")),
            _seconds(body.get("seconds_in_rounds")), _count(body.get("rounds"), "rounds"),
            _count(body.get("hands"), "hands"), _count(body.get("box_rounds"), "box_rounds"), json.dumps(counted),
            sum(counted.values()))


# Its rows into `dealer_work`, each once (a row delivered twice is stored once).
DEALER_WORK_INSERT: Final = (
    "INSERT INTO dealer_work (table_id, journal, seq, ts, employee, since, until, seconds, seconds_in_rounds, "
    "rounds, hands, box_rounds, errors, error_count) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "
    "$12, $13::jsonb, $14) ON CONFLICT DO NOTHING")


async def dealers(connection: asyncpg.Connection, shifts: Shifts, by: Grouping, start: float, end: float
                  ) -> list[dict[str, Any]]:
    """One row per dealer, table or shift with the stints that began in [start, end)."""
    if by not in GROUPINGS:
        raise ValueError(f"by must be one of {', '.join(GROUPINGS)}")
    # The shuffle's seconds are read from the stored note itself (`events`, while it is retained): the table's
    # figure, not a column of its own (a note written before it has none: 0, its shuffles in the idle time).
    stints = await connection.fetch(
        "SELECT d.*, coalesce(CASE WHEN jsonb_typeof(e.body::jsonb -> 'shuffle_seconds') = 'number' "
        "THEN (e.body::jsonb ->> 'shuffle_seconds')::float8 END, 0) AS shuffle_seconds "
        "FROM dealer_work d LEFT JOIN events e USING (table_id, journal, seq, ts) "
        "WHERE d.since >= $1 AND d.since < $2 ORDER BY d.since", start, end)
    sums: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys(_SUMMED, 0.0))
    errors: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    counts: dict[str, int] = defaultdict(int)
    for stint in stints:
        key = (stint["employee"] if by == "dealer" else stint["table_id"] if by == "table"
               else shifts.name_of(stint["since"]))
        counts[key] += 1
        for name in _SUMMED:
            sums[key][name] += stint[name]
        for kind, count in json.loads(stint["errors"]).items():
            errors[key][kind] += int(count)
    out = []
    for key in sorted(sums):
        total = sums[key]
        hours = total["seconds"] / 3600.0
        out.append({by: key, "stints": counts[key], "seconds": round(total["seconds"], 3),
                    "rounds": int(total["rounds"]), "hands": int(total["hands"]),
                    "box_rounds": int(total["box_rounds"]),
                    "rounds_per_hour": round(total["rounds"] / hours, 2) if hours else 0.0,
                    "hands_per_hour": round(total["hands"] / hours, 2) if hours else 0.0,
                    "box_rounds_per_hour": round(total["box_rounds"] / hours, 2) if hours else 0.0,
                    "errors": dict(sorted(errors[key].items())), "error_count": int(total["error_count"]),
                    "errors_per_100_rounds": round(100.0 * total["error_count"] / total["rounds"], 2)
                    if total["rounds"] else 0.0,
                    "seconds_in_rounds": round(total["seconds_in_rounds"], 3),
                    "shuffle_seconds": round(total["shuffle_seconds"], 3),
                    "idle_seconds": round(max(0.0, total["seconds"] - total["seconds_in_rounds"]
                                              - total["shuffle_seconds"]), 3)})
    return out
