"""The floor manager's questions over a real journal stored in a real PostgreSQL, through `table-floor query`."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from casino_floor import queries
from casino_floor.ingest import Ingest
from casino_floor.shifts import Shifts
from casino_floor.store import FloorStore
from table_runtime.core.significant_events import significant_events
from table_runtime.feed.messages import Topics, state_message
from table_runtime.game.rules import TableLimits, profile
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds
from tests.floor.journals import feed_messages, play
from tests.floor.support import floor_toml, store_messages

HOUR = 3600.0


async def table_floor(config: Path, *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "casino_floor", args[0], *args[1:],
                                                   "--config", str(config), stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    return process.returncode or 0, out.decode(), err.decode()


@pytest.fixture
async def stored_journal(tmp_path: Path, store: FloorStore) -> dict[str, Any]:
    with play(tmp_path / "t1.db", "T1", 25, error_rate=0.3) as journal:
        controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=time.time)  # (a restart: it journals a status row)
        messages = [(name, payload) for _, name, payload in feed_messages(journal, "casino", "T1")
                    if name == "events"]
        state = state_message(Topics("casino", "T1"), controller.snapshot(), journal=journal.journal_id,
                              ts=time.time()).payload
        entries = list(journal.entries())
        recalled = recall_rounds(journal, last=1000)
    await store_messages(store, Ingest(await store.load_tracks()), [*messages, ("state", state)], now=0.0)
    return {"entries": entries, "recalled": recalled, "journal": journal.journal_id}


async def test_the_significant_events_are_the_tables_own_projection(store: FloorStore,
                                                                   stored_journal: dict[str, Any]) -> None:
    """`query events` over the stored rows equals the table's `table-runtime events` of its journal (the same
    projection, core/significant_events.py), and a range keeps only the events in it, read against the rows before."""
    entries = stored_journal["entries"]
    table = [{"table_id": "T1", "journal": entry_journal(stored_journal), **event.to_json()}
             for event in significant_events((e.seq, e.ts, e.kind, e.body) for e in entries)]
    assert [event["name"] for event in table][-2:] == ["power_loss", "table_started"]
    async with store.pool.acquire() as connection:
        assert await queries.significant_events_between(connection, "T1", 0.0, time.time() + HOUR) == table
        power_loss = next(event for event in table if event["name"] == "power_loss")
        later = await queries.significant_events_between(connection, "T1", power_loss["ts"], time.time() + HOUR)
    assert later == [event for event in table if event["ts"] >= power_loss["ts"]] and later[0] == power_loss


def entry_journal(stored: dict[str, Any]) -> str:
    return str(stored["journal"])


async def test_rounds_money_alarms_and_a_round_in_full(store: FloorStore, stored_journal: dict[str, Any]) -> None:
    entries, recalled = stored_journal["entries"], stored_journal["recalled"]
    records = [entry for entry in entries if entry.kind == "round"]
    settled: dict[int, list[dict[str, int]]] = {}
    for entry in entries:
        if entry.body.get("type") == "RoundSettled":
            settled[entry.body["round"]] = entry.body["payouts"]
    shifts = Shifts((0, 12))
    shift = shifts.name_of(records[0].ts)
    async with store.pool.acquire() as connection:
        rounds = await queries.rounds_between(connection, "T1", records[0].ts, records[-1].ts + 1)
        later = await queries.rounds_between(connection, "T1", records[3].ts + 1e-6, records[-1].ts + 1)
        money = await queries.shift_money(connection, shifts, shift)
        alarms = await queries.shift_alarms(connection, shifts, shift)
        number = recalled[len(recalled) // 2]["round"]
        record = await queries.round_record(connection, "T1", number)
        verified = await queries.verify_chain(connection, "T1")
    assert [row["round"] for row in rounds] == [entry.body["round"] for entry in records]
    assert len(later) == len([entry for entry in records if entry.ts > records[3].ts])
    if all(shifts.name_of(entry.ts) == shift for entry in records):  # the test ran across no shift change
        payouts = [payout for paid in settled.values() for payout in paid]
        handle, win = sum(p["staked_cents"] for p in payouts), -sum(p["net_cents"] for p in payouts)
        assert money == [{"shift": shift, "table_id": "T1", "rounds": len(records), "handle_cents": handle,
                          "buy_ins": 0, "drop_cents": 0, "win_cents": win, "hold_pct": None,  # no buy-in: no hold
                          "win_to_handle_pct": round(100 * win / handle, 2)}]
        raised = [entry for entry in entries if entry.kind == "alarm"]
        assert [row["alarm_id"] for row in alarms if row["source"] == "table"] == [e.body["id"] for e in raised]
        cleared = {entry.body["id"] for entry in entries if entry.kind == "alarm_cleared"}
        assert {row["alarm_id"] for row in alarms if row["cleared_ts"] is not None} == cleared
    table_recall = next(item for item in recalled if item["round"] == number)
    assert {key: value for key, value in record.items() if key != "journal"} == table_recall
    assert verified[0]["ok"] and verified[0]["rows"] == entries[-1].seq


async def test_the_chain_recomputed_at_the_floor_names_a_row_changed_in_the_store(
        store: FloorStore, stored_journal: dict[str, Any]) -> None:
    async with store.pool.acquire() as connection:
        await connection.execute("UPDATE events SET body = replace(body, '\"round\":2', '\"round\":3') "
                                 "WHERE seq = (SELECT min(seq) FROM events WHERE body LIKE '%\"round\":2%')")
        changed = await connection.fetchval("SELECT min(seq) FROM events WHERE body LIKE '%\"round\":3%'")
        verified = await queries.verify_chain(connection, "T1")
    assert not verified[0]["ok"] and verified[0]["first_bad_seq"] <= changed


@pytest.mark.slow
async def test_the_command_answers_in_csv_and_json_and_bad_input_is_one_line(
        tmp_path: Path, store: FloorStore, database: str, stored_journal: dict[str, Any]) -> None:
    config = tmp_path / "floor.toml"
    config.write_text(floor_toml(database, ["mqtt://127.0.0.1:1883"], "casino"), encoding="utf-8")
    records = [entry for entry in stored_journal["entries"] if entry.kind == "round"]
    start = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(records[0].ts - HOUR))
    end = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(records[-1].ts + HOUR))
    code, out, err = await table_floor(config, "query", "rounds", "--table", "T1", "--from", start, "--to", end)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [int(row["round"]) for row in rows] == [entry.body["round"] for entry in records]
    code, out, err = await table_floor(config, "query", "round", "--table", "T1", "--round", "2", "--format", "json")
    assert code == 0, err
    assert json.loads(out)[0]["round"] == 2 and json.loads(out)[0]["steps"]
    code, out, err = await table_floor(config, "query", "round", "--table", "T1", "--round", "999")
    assert (code, out) == (2, "") and err.count("\n") == 1 and "round 999" in err
    code, out, err = await table_floor(config, "query", "events", "--table", "T1", "--from", start, "--to", end,
                                       "--format", "json")
    assert code == 0, err
    assert [event["name"] for event in json.loads(out)] == ["new_journal", "table_started", "power_loss",
                                                            "table_started"]  # the restart with no stop before
    code, out, err = await table_floor(config, "check-config")
    assert code == 0 and "floor floor-test: every table" in out and err == ""
    # A partition over the wildcard works, but each process reads every table's messages: said in one line.
    config.write_text(floor_toml(database, ["mqtt://h"], "casino", partition="1/2"), encoding="utf-8")
    code, out, err = await table_floor(config, "check-config")
    assert code == 0 and err.count("\n") == 1 and "partition 1/2 with no [floor] tables list" in err
    config.write_text(floor_toml(database, ["mqtt://h"], "casino", partition="1/2", tables=["T1", "T2"]),
                      encoding="utf-8")
    code, out, err = await table_floor(config, "check-config")
    assert code == 0 and err == ""
    config.write_text(floor_toml("postgresql://floor:secret@db/floor", ["mqtt://h"], "casino"), encoding="utf-8")
    code, _, err = await table_floor(config, "check-config")
    assert code == 2 and err.count("\n") == 1 and "FLOOR_PG_PASSWORD" in err and "Traceback" not in err


async def test_an_unreachable_database_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "floor.toml"
    config.write_text(floor_toml("postgresql://floor@127.0.0.1:1/floor", ["mqtt://h"], "casino"), encoding="utf-8")
    code, _, err = await table_floor(config, "query", "money", "--shift", "2026-12-01T06")
    assert code == 2 and err.count("\n") == 1 and "database" in err


