"""The séances at the floor (issue 33): each table's SeanceUpdated events stored as steps (`seance_steps`, migration
0009) and read back as séances (`table-floor query seances --day D`), the figures of the registers
(table_runtime/registers/; docs/accounts.md "The registers").

A table journals a SeanceUpdated event after each step of a séance and each buy-in of an open one, with the
séance's figures after it (table_runtime/core/seance.py). The floor stores every such row once (at-least-once is
enough: keyed by the row), so a séance's figures are its newest step's, its fills, credits and tips are the steps
confirmed, and the journal head its figures were made from is that newest step's seq and hash: the same row, so the
same head, as the table's own `accounts --json` names. A séance belongs to the day (UTC) of its opening.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Final

import asyncpg

from casino_floor import bounds
from casino_floor.integrity import Row
from table_runtime.registers.lines import SeanceLine, day_bounds

SEANCE_EVENT: Final = "SeanceUpdated"  # the event's type (table_runtime/game/events.py)
_FIGURES: Final = ("opener_cents", "fills_cents", "credits_cents", "drop_cash_cents", "drop_marker_cents",
                   "tips_cents", "orphans_cents")


def is_seance_step(row: Row) -> bool:
    return row.kind == "event" and row.type == SEANCE_EVENT


def _cents(value: Any, name: str) -> int:
    return bounds.whole(value, name) if isinstance(value, int) and not isinstance(value, bool) else 0


def seance_step_row(row: Row, body: dict[str, Any]) -> tuple[Any, ...] | None:
    """The `seance_steps` row of a SeanceUpdated event (its decoded `body`; None for one naming no séance: the chain
    keeps it); `bounds.Refused` for an amount its columns cannot hold."""
    seance = body.get("seance")
    if isinstance(seance, bool) or not isinstance(seance, int):
        return None
    closer, win = body.get("closer_cents"), body.get("win_cents")
    return (row.table_id, row.journal, row.seq, row.ts, row.hash, bounds.integer(seance, "seance"),
            str(body.get("action", ""))[:32], *(_cents(body.get(name), name) for name in _FIGURES),
            None if closer is None else _cents(closer, "closer_cents"),
            None if win is None else _cents(win, "win_cents"))


# Its rows into `seance_steps`, each once (a row delivered twice is stored once).
SEANCE_STEP_INSERT: Final = (
    "INSERT INTO seance_steps (table_id, journal, seq, ts, hash, seance, action, opener_cents, fills_cents, "
    "credits_cents, drop_cash_cents, drop_marker_cents, tips_cents, orphans_cents, closer_cents, win_cents) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT DO NOTHING")


# The séances with a step in [$1, $2), each summed over all its steps, kept if it opened in [$1, $2); its figures
# are those of its newest step (`head_seq`), joined back. `contiguous_seq`: how far the floor holds the journal
# without a gap (a head past it was made from rows the floor has not all received).
_SEANCES: Final = """
WITH touched AS (
    SELECT DISTINCT table_id, journal, seance FROM seance_steps WHERE ts >= $1 AND ts < $2
), summed AS (
    SELECT s.table_id, s.journal, s.seance, coalesce(min(s.ts) FILTER (WHERE s.action = 'opened'), min(s.ts))
           AS opened_at, max(s.ts) FILTER (WHERE s.action = 'closed') AS closed_at, max(s.seq) AS head_seq,
           count(*) FILTER (WHERE s.action = 'fill_confirmed') AS fills,
           count(*) FILTER (WHERE s.action = 'credit_confirmed') AS credits,
           count(*) FILTER (WHERE s.action = 'tip') AS tips
    FROM seance_steps s JOIN touched USING (table_id, journal, seance)
    GROUP BY s.table_id, s.journal, s.seance
)
SELECT summed.*, last.hash AS head_hash, last.opener_cents, last.fills_cents, last.credits_cents,
       last.drop_cash_cents, last.drop_marker_cents, last.tips_cents, last.orphans_cents, last.closer_cents,
       last.win_cents, j.contiguous_seq
FROM summed JOIN seance_steps last ON last.table_id = summed.table_id AND last.journal = summed.journal
     AND last.seq = summed.head_seq
LEFT JOIN journals j ON j.table_id = summed.table_id AND j.journal = summed.journal
WHERE summed.opened_at >= $1 AND summed.opened_at < $2
ORDER BY summed.table_id, summed.journal, summed.seance
"""


def _seance(record: asyncpg.Record) -> dict[str, Any]:
    closer = record["closer_cents"]
    return {"table_id": record["table_id"], "journal": record["journal"], "seance": record["seance"],
            "open": closer is None, "opened_at": record["opened_at"], "closed_at": record["closed_at"],
            "opener_cents": record["opener_cents"], "fills_cents": record["fills_cents"], "fills": record["fills"],
            "credits_cents": record["credits_cents"], "credits": record["credits"],
            "drop_cents": record["drop_cash_cents"] + record["drop_marker_cents"],
            "drop_cash_cents": record["drop_cash_cents"], "drop_marker_cents": record["drop_marker_cents"],
            "closer_cents": closer, "tips_cents": record["tips_cents"], "tips": record["tips"],
            "orphans_cents": record["orphans_cents"], "win_cents": record["win_cents"],
            "head_seq": record["head_seq"], "head_hash": record["head_hash"],
            "chain_verified": record["contiguous_seq"] is not None and record["head_seq"] <= record["contiguous_seq"]}


async def seances_of_day(connection: asyncpg.Connection, day: dt.date) -> list[dict[str, Any]]:
    """Every séance that opened on `day` (UTC), per table and séance: its figures, its head, whether the floor
    holds its journal without a gap up to that head (`chain_verified`)."""
    start, end = day_bounds(day)
    return [_seance(record) for record in await connection.fetch(_SEANCES, start, end)]


def seance_line(seance: dict[str, Any]) -> SeanceLine:
    """A row of `seances_of_day` as the registers read it."""
    return SeanceLine.from_figures(seance["table_id"], seance["journal"],
                                   {**seance, "head": {"seq": seance["head_seq"], "hash": seance["head_hash"]}})
