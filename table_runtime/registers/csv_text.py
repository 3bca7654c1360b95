"""The registers as CSV: one row per séance (the carnet), one row per table and the day's total (the registre).

Amounts in cents, times in ISO 8601 UTC, each row with the journal head it was made from (`head_seq`,
`head_hash`), comma-separated with a header line, so a spreadsheet or a script reads them as `table-floor query`'s
CSV. Pure: the text, no file.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable
from typing import Any, Final

from table_runtime.registers.lines import Registre, SeanceLine

CARNET_COLUMNS: Final = ("table_id", "journal", "seance", "opened_at", "closed_at", "opener_cents", "fills",
                         "fills_cents", "advances_cents", "closer_cents", "credits", "credits_cents",
                         "drop_cash_cents", "drop_marker_cents", "drop_cents", "takings_cents", "win_cents",
                         "tips_cents", "orphans_cents", "head_seq", "head_hash")
REGISTRE_COLUMNS: Final = ("day", "table_id", "journal", "seances", "opener_cents", "fills_cents", "closer_cents",
                           "credits_cents", "drop_cents", "takings_cents", "win_cents", "tips_cents", "head_seq",
                           "head_hash")


def _iso(ts: float | None) -> str:
    return "" if ts is None else dt.datetime.fromtimestamp(ts, dt.UTC).isoformat(timespec="seconds")


def _text(columns: tuple[str, ...], rows: Iterable[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: "" if row[key] is None else row[key] for key in columns})
    return out.getvalue()


def carnet_row(seance: SeanceLine) -> dict[str, Any]:
    return {"table_id": seance.table_id, "journal": seance.journal, "seance": seance.seance,
            "opened_at": _iso(seance.opened_at), "closed_at": _iso(seance.closed_at),
            "opener_cents": seance.opener_cents, "fills": seance.fills, "fills_cents": seance.fills_cents,
            "advances_cents": seance.advances_cents, "closer_cents": seance.closer_cents, "credits": seance.credits,
            "credits_cents": seance.credits_cents, "drop_cash_cents": seance.drop_cash_cents,
            "drop_marker_cents": seance.drop_marker_cents, "drop_cents": seance.drop_cents,
            "takings_cents": seance.takings_cents, "win_cents": seance.win_cents, "tips_cents": seance.tips_cents,
            "orphans_cents": seance.orphans_cents, "head_seq": seance.head.seq, "head_hash": seance.head.hash}


def carnet_csv(seances: Iterable[SeanceLine]) -> str:
    """The carnet d'avances of these séances, a row each."""
    return _text(CARNET_COLUMNS, (carnet_row(seance) for seance in seances))


def registre_csv(register: Registre) -> str:
    """The registre de contrôle: a row per table, then the day's total (table_id ``Total``, no head)."""
    day = register.day.isoformat()
    return _text(REGISTRE_COLUMNS, ({"day": day, **row.to_json()} for row in (*register.rows, register.total)))
