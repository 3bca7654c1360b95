"""The tables' lifetime meters at the floor (issue 35): each `meters` row a table journals (a séance closed, a
gaming day ended, a RAM clear: table_runtime/core/meters_snapshots.py) stored (`meters`, migration 0010) and
listed by table and time (`table-floor query meters`).

The floor stores the snapshot as the table wrote it: the whole meters (jsonb) and the headline ones as columns,
the employee id of a RAM clear (never a name). It sums nothing: a meter is the table's, counted by its one fold.
"""

from __future__ import annotations

import json
from typing import Any, Final

import asyncpg

from casino_floor import bounds
from casino_floor.integrity import Row

METERS_KIND: Final = "meters"  # the journal row's kind
_HEADLINE: Final = ("handle_cents", "win_cents", "drop_cents", "rounds")


def is_meters(row: Row) -> bool:
    return row.kind == METERS_KIND


def _whole(meters: dict[str, Any], name: str) -> int:
    value = meters.get(name, 0)
    return bounds.whole(value, f"meters.{name}") if isinstance(value, int) and not isinstance(value, bool) else 0


def meters_row(row: Row, body: dict[str, Any]) -> tuple[Any, ...] | None:
    """The `meters` row of a table's meters snapshot (its decoded `body`; None for one with no meters: the chain
    keeps it); `bounds.Refused` for a meter its columns cannot hold."""
    meters = body.get("meters")
    if not isinstance(meters, dict):
        return None
    seance, employee = body.get("seance"), body.get("employee")
    return (row.table_id, row.journal, row.seq, row.ts, str(body.get("reason", ""))[:32], str(body.get("day", ""))[:10],
            bounds.integer(seance, "seance") if isinstance(seance, int) and not isinstance(seance, bool) else None,
            employee[:64] if isinstance(employee, str) else None, *(_whole(meters, name) for name in _HEADLINE),
            json.dumps(meters))


# Its rows into `meters`, each once (a row delivered twice is stored once).
METERS_INSERT: Final = (
    "INSERT INTO meters (table_id, journal, seq, ts, reason, day, seance, employee, handle_cents, win_cents, "
    "drop_cents, rounds, meters) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb) "
    "ON CONFLICT DO NOTHING")


async def snapshots(connection: asyncpg.Connection, table: str | None, start: float, end: float
                    ) -> list[dict[str, Any]]:
    """Every snapshot journaled in [start, end), of one table or all, in time order."""
    records = await connection.fetch(
        "SELECT * FROM meters WHERE ts >= $1 AND ts < $2 AND ($3::text IS NULL OR table_id = $3) "
        "ORDER BY table_id, journal, seq", start, end, table)
    return [{"table": record["table_id"], "journal": record["journal"], "seq": record["seq"], "ts": record["ts"],
             "reason": record["reason"], "day": record["day"], "seance": record["seance"],
             "employee": record["employee"], **{name: record[name] for name in _HEADLINE},
             "meters": json.loads(record["meters"])} for record in records]
