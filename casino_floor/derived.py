"""What the floor derives from a journal row for its questions (pure but the write): a round, an alarm, its clear, a
buy-in, a dealer's stint, a séance's step, a meters snapshot, each a row of its own table.

A row derives one such row at most, made once at ingest (`derived_row`) from the row's decoded body: a value its
columns cannot hold is `bounds.Refused` there, before the row joins a batch (the row is set aside, the batch goes
on), and what was made is what the batch writes (`write_derived`), with the journal rows, in one transaction.
"""

from __future__ import annotations

import json
from typing import Any, Final

import asyncpg

from casino_floor import bounds
from casino_floor.dealer_work import DEALER_WORK_INSERT, dealer_work_row, is_dealer_work
from casino_floor.integrity import Row
from casino_floor.meters import METERS_INSERT, METERS_KIND, is_meters, meters_row
from casino_floor.money import BUY_IN_EVENT, buy_in_cents, round_handle_cents, round_win_cents
from casino_floor.seances import SEANCE_STEP_INSERT, is_seance_step, seance_step_row

# Each derived table and its INSERT, in the order a batch writes them.
INSERTS: Final[dict[str, str]] = {
    "rounds": (
        "INSERT INTO rounds (table_id, journal, round, seq, ts, result, shoe_id, started_seq, closed_seq, "
        "handle_cents, win_cents, record) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb) "
        "ON CONFLICT (table_id, journal, round) DO UPDATE SET seq = excluded.seq, ts = excluded.ts, "
        "result = excluded.result, shoe_id = excluded.shoe_id, started_seq = excluded.started_seq, "
        "closed_seq = excluded.closed_seq, handle_cents = excluded.handle_cents, "
        "win_cents = excluded.win_cents, record = excluded.record WHERE excluded.seq > rounds.seq"),
    "alarms": (
        "INSERT INTO alarms (table_id, journal, alarm_id, seq, ts, kind, box, round, message, rule, amounts) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb) ON CONFLICT DO NOTHING"),
    "alarm_clears": (
        "INSERT INTO alarm_clears (table_id, journal, alarm_id, seq, ts, cleared_by) "
        "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING"),
    "buy_ins": (
        "INSERT INTO buy_ins (table_id, journal, seq, ts, round, cents, tender, box, player, by_role) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING"),
    "dealer_work": DEALER_WORK_INSERT,  # the dealers' stints (casino_floor/dealer_work.py)
    "seance_steps": SEANCE_STEP_INSERT,  # the séances' steps (casino_floor/seances.py)
    "meters": METERS_INSERT,  # the tables' meters snapshots (casino_floor/meters.py)
}


# The kinds of the rows something derives from (`derived_row`).
_DERIVING: Final = frozenset({"round", "alarm", "alarm_cleared", "event", "status", METERS_KIND})


def _int(value: Any, name: str, *, column: str = "integer") -> int:
    """A whole number of the record for a column (0 for what is none, as before); one past the column `Refused`."""
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return bounds.integer(value, name) if column == "integer" else bounds.whole(value, name)


def _box(value: Any) -> int | None:
    return bounds.integer(value, "box") if isinstance(value, int) and not isinstance(value, bool) else None


def _seq_or_none(value: Any, name: str) -> int | None:
    return bounds.whole(value, name) if isinstance(value, int) and not isinstance(value, bool) else None


def round_row(row: Row, record: dict[str, Any]) -> tuple[Any, ...]:
    """The `rounds` row of a round record; `bounds.Refused` for a value its columns cannot hold."""
    return (row.table_id, row.journal, _int(record.get("round"), "round"), row.seq, row.ts,
            str(record.get("result", "")), str(record.get("shoe_id", "")),
            _seq_or_none(record.get("started_seq"), "started_seq"),
            _seq_or_none(record.get("closed_seq"), "closed_seq"),
            bounds.whole(round_handle_cents(record), "the round's handle_cents"),
            bounds.whole(round_win_cents(record), "the round's win_cents"), row.body)


def buy_in_row(row: Row, body: dict[str, Any]) -> tuple[Any, ...] | None:
    """The `buy_ins` row of a `BuyInRecorded` event (None for a body without an amount: the chain keeps it)."""
    cents = bounds.whole(buy_in_cents(body), "cents")
    if cents <= 0:
        return None
    return (row.table_id, row.journal, row.seq, row.ts, _int(body.get("round"), "round"), cents,
            str(body.get("tender", "cash")), _box(body.get("box")), str(body.get("player") or ""),
            str(body.get("by") or ""))


def alarm_row(row: Row, alarm: dict[str, Any]) -> tuple[Any, ...]:
    return (row.table_id, row.journal, _int(alarm.get("id"), "id", column="bigint") or row.seq, row.seq, row.ts,
            str(alarm.get("kind", "")), _box(alarm.get("box")), _int(alarm.get("round"), "round"),
            str(alarm.get("message", "")), str(alarm.get("rule", "")), json.dumps(alarm.get("amounts") or {}))


def clear_row(row: Row, cleared: dict[str, Any]) -> tuple[Any, ...]:
    return (row.table_id, row.journal, _int(cleared.get("id"), "id", column="bigint"), row.seq, row.ts,
            str(cleared.get("by", "")))


def derived_row(row: Row, body: dict[str, Any]) -> tuple[str, tuple[Any, ...]] | None:
    """The table and the row `row` derives (its `body` decoded), or None; `bounds.Refused` for a value that table
    cannot hold."""
    found: tuple[Any, ...] | None
    if row.kind not in _DERIVING:  # most rows: a dealer's input
        return None
    if row.kind == "round":
        return "rounds", round_row(row, body)
    if row.kind == "alarm":
        return "alarms", alarm_row(row, body)
    if row.kind == "alarm_cleared":
        return "alarm_clears", clear_row(row, body)
    if row.kind == "event" and row.type == BUY_IN_EVENT:
        found, table = buy_in_row(row, body), "buy_ins"
    elif is_dealer_work(row):
        found, table = dealer_work_row(row, body), "dealer_work"
    elif is_seance_step(row):
        found, table = seance_step_row(row, body), "seance_steps"
    elif is_meters(row):
        found, table = meters_row(row, body), "meters"
    else:
        return None
    return None if found is None else (table, found)


async def write_derived(connection: asyncpg.Connection, derived: dict[str, list[tuple[Any, ...]]]) -> None:
    """A batch's derived rows, each table's in one statement; a row delivered twice is stored once (a round
    recorded again, after a void, replaces the older record)."""
    for table, insert in INSERTS.items():
        if rows := derived.get(table):
            await connection.executemany(insert, rows)
