"""The dealers' work at the floor, through its PostgreSQL: each table's DealerWork rows stored, and summed over a
shift's dealers they are the table's own rounds and errors for that shift (issue 34)."""

from __future__ import annotations

import itertools
from pathlib import Path

import asyncpg

from casino_floor.dealer_work import dealers
from casino_floor.ingest import Ingest
from casino_floor.shifts import Shifts
from casino_floor.store import FloorStore
from simulators.fast_table import FastTable
from table_runtime.journal import Journal, journal_path
from table_runtime.staff.dealer_work import ERROR_KINDS
from tests.floor.journals import feed_messages
from tests.floor.support import store_messages
from tests.table_runtime.staff.staff_table import staff_controller, staff_desk, staff_registry

ERROR_ALARMS = ("command_refused", "wrong_payout", "bank_must_stand", "bank_must_draw")


async def test_a_shifts_dealers_sum_to_the_tables_own_rounds_and_errors(tmp_path: Path, store: FloorStore,
                                                                        database: str) -> None:
    registry = staff_registry(tmp_path)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry)
        for seed, dealer in zip(itertools.count(20), ("D1", "D2", "D1"), strict=False):
            desk.take_table(dealer, "pin")
            FastTable(controller, seed=seed, error_rate=0.3).run(7)
        desk.leave_table()
        entries = list(journal.entries())
        messages = [(name, payload) for _, name, payload in feed_messages(journal, "casino", "T1")]
    await store_messages(store, Ingest(await store.load_tracks()), messages, now=1_800_000_000.0)

    first = next(entry.seq for entry in entries if entry.body.get("type") == "EmployeeLoggedIn")
    after = [entry for entry in entries if entry.seq >= first]
    table_rounds = sum(1 for entry in after if entry.kind == "round")
    table_errors = (sum(1 for entry in after if entry.kind in ("alarm", "alarm_updated")
                        and entry.body["kind"] in ERROR_ALARMS)
                    + sum(1 for entry in after if entry.kind == "input" and entry.body["type"] == "Undo"))
    connection = await asyncpg.connect(database)
    try:
        stored_rounds = await connection.fetchval("SELECT count(*) FROM rounds WHERE table_id = 'T1' AND seq >= $1",
                                                  first)
        shifts = Shifts()
        by_shift = await dealers(connection, shifts, "shift", 0.0, 4e9)
        by_dealer = {row["dealer"]: row for row in await dealers(connection, shifts, "dealer", 0.0, 4e9)}
        by_table = await dealers(connection, shifts, "table", 0.0, 4e9)
        names = await connection.fetchval("SELECT count(*) FROM events WHERE body LIKE '%Marie Dupont%'")
    finally:
        await connection.close()
    assert stored_rounds == table_rounds == 21
    assert sum(row["rounds"] for row in by_shift) == table_rounds
    assert sum(row["error_count"] for row in by_shift) == table_errors > 0
    assert set(by_dealer) == {"D1", "D2"} and by_dealer["D1"]["stints"] == 2 and by_dealer["D1"]["rounds"] == 14
    assert [row["table"] for row in by_table] == ["T1"] and by_table[0]["rounds"] == table_rounds
    d1 = by_dealer["D1"]
    assert d1["rounds_per_hour"] == round(d1["rounds"] * 3600 / d1["seconds"], 2)
    assert d1["errors_per_100_rounds"] == round(100 * d1["error_count"] / d1["rounds"], 2)
    assert set(d1["errors"]) <= set(ERROR_KINDS)
    assert names == 0, "the floor holds employee ids, never names"


async def test_the_floor_gives_the_stints_shuffle_apart_from_its_idle_time(tmp_path: Path, store: FloorStore,
                                                                          database: str) -> None:
    registry = staff_registry(tmp_path)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry)
        desk.take_table("D1", "pin")
        FastTable(controller, seed=4).run(70)
        desk.leave_table()
        (note,) = [entry.body for entry in journal.entries() if entry.body.get("type") == "DealerWork"]
        messages = [(name, payload) for _, name, payload in feed_messages(journal, "casino", "T1")]
    await store_messages(store, Ingest(await store.load_tracks()), messages, now=1_800_000_000.0)
    connection = await asyncpg.connect(database)
    try:
        (row,) = await dealers(connection, Shifts(), "dealer", 0.0, 4e9)
    finally:
        await connection.close()
    assert row["shuffle_seconds"] == note["shuffle_seconds"] > 0
    assert row["seconds_in_rounds"] == note["seconds_in_rounds"]
    assert row["idle_seconds"] == note["idle_seconds"] == round(row["seconds"] - row["seconds_in_rounds"]
                                                                - row["shuffle_seconds"], 3)
