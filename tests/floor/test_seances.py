"""The séances at the floor, through its PostgreSQL (casino_floor/seances.py): two tables' journals off their feed
stored twice over (at-least-once), `table-floor query seances --day D` equals each table's own `accounts --json`
for the same séances, and `table-floor registre --day D` prints the figures of both, with each table's journal head
(a row of that table's journal, which verifies)."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from casino_floor.cli import main as floor_main
from casino_floor.ingest import Ingest
from casino_floor.migrate import migrate, migrations
from casino_floor.seances import seances_of_day
from casino_floor.store import FloorStore
from table_runtime.cli import main as table_main
from table_runtime.journal import Journal, journal_path
from table_runtime.registers.lines import REGISTER_KEYS, amount, day_of
from tests.floor.journals import feed_messages
from tests.floor.support import connected, floor_toml, store_messages
from tests.table_runtime.registers.pdf_reading import is_a4, pages, words

TABLES = {"T1": 5, "T2": 6}  # table id: the demo's seed (each séance of both takes a fill)


def accounts_of(data: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert table_main(["accounts", "--data-dir", str(data), "--json"]) == 0
    found: dict[str, Any] = json.loads(capsys.readouterr().out)
    return found


@pytest.fixture
def tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, tuple[Path, dict[str, Any]]]:
    """Each table's data directory and its accounts: 24 rounds of the fast demo in 2 séances."""
    made = {}
    for table_id, seed in TABLES.items():
        data = tmp_path / table_id
        assert table_main(["demo", "--fast", "--rounds", "24", "--seance-rounds", "12", "--seed", str(seed),
                           "--table-id", table_id, "--data-dir", str(data)]) == 0
        made[table_id] = (data, accounts_of(data, capsys))
    return made


async def stored(store: FloorStore, tables: dict[str, tuple[Path, dict[str, Any]]], *, times: int) -> None:
    for _ in range(times):  # a second delivery of every message, by a floor that restarted: stored once
        for table_id, (data, _) in tables.items():
            with Journal.open(journal_path(data)) as journal:
                messages = [(name, payload) for _, name, payload in feed_messages(journal, "casino", table_id)]
            await store_messages(store, Ingest(await store.load_tracks()), messages, now=1_800_000_000.0)


def table_seances(tables: dict[str, tuple[Path, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Every séance as the tables' accounts say, in the floor's key: register figures, times and head."""
    return [{"table_id": table_id, "journal": found["journal_id"], **{key: seance[key] for key in REGISTER_KEYS},
             "opened_at": seance["opened_at"], "closed_at": seance["closed_at"], "head_seq": seance["head"]["seq"],
             "head_hash": seance["head"]["hash"]}
            for table_id, (_, found) in tables.items() for seance in found["seances"]]


def floor_seance(seance: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in seance.items() if key != "chain_verified"}


async def test_the_floors_seances_are_the_tables_accounts(store: FloorStore, database: str,
                                                          tables: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    await stored(store, tables, times=2)
    expected = table_seances(tables)
    assert len(expected) == 4 and all(seance["fills"] == 1 for seance in expected)
    day = day_of(expected[0]["opened_at"])
    connection = await asyncpg.connect(database)
    try:
        found = await seances_of_day(connection, day)
        steps = await connection.fetchval("SELECT count(*) FROM seance_steps")
        events = await connection.fetchval("SELECT count(*) FROM events WHERE type = 'SeanceUpdated'")
        other_day = await seances_of_day(connection, day.replace(year=day.year - 1))
    finally:
        await connection.close()
    assert steps == events > 8  # every step once, though delivered twice
    assert [floor_seance(seance) for seance in found] == [s for s in expected if day_of(s["opened_at"]) == day]
    assert all(seance["chain_verified"] for seance in found)
    assert other_day == []


async def test_the_registre_prints_the_figures_of_the_floor_and_of_the_tables(
        store: FloorStore, database: str, tables: dict[str, tuple[Path, dict[str, Any]]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    await stored(store, tables, times=1)
    config = tmp_path / "floor.toml"
    config.write_text(floor_toml(database, ["mqtt://127.0.0.1:1883"], "casino"), encoding="utf-8")
    day = day_of(table_seances(tables)[0]["opened_at"]).isoformat()
    capsys.readouterr()
    assert await asyncio.to_thread(floor_main, ["query", "seances", "--config", str(config), "--day", day,
                                                "--format", "json"]) == 0
    queried = json.loads(capsys.readouterr().out)
    expected = [s for s in table_seances(tables) if day_of(s["opened_at"]).isoformat() == day]
    assert [floor_seance(seance) for seance in queried] == expected

    assert await asyncio.to_thread(floor_main, ["query", "seances", "--config", str(config), "--day", day,
                                                "--format", "csv"]) == 0
    rows = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert [(row["table_id"], int(row["seance"]), int(row["win_cents"])) for row in rows] == [
        (s["table_id"], s["seance"], s["win_cents"]) for s in expected]

    pdf, text = tmp_path / "registre.pdf", tmp_path / "registre.csv"
    assert await asyncio.to_thread(floor_main, ["registre", "--config", str(config), "--day", day, "--pdf", str(pdf),
                                                "--csv", str(text)]) == 0
    assert "2 table(s)" in capsys.readouterr().out
    registre_rows = {row["table_id"]: row for row in csv.DictReader(text.open(encoding="utf-8"))}
    [page] = pages(pdf.read_bytes())
    assert is_a4(page, landscape=True) and page.inked > 0.01
    printed = words(page.text)
    for table_id, (data, found) in tables.items():
        of_day = [s for s in found["seances"] if day_of(s["opened_at"]).isoformat() == day]
        row = registre_rows[table_id]
        sums = {key: sum(s[key] for s in of_day) for key in ("opener_cents", "fills_cents", "closer_cents",
                                                              "credits_cents", "drop_cents", "win_cents")}
        takings = sums["closer_cents"] + sums["credits_cents"] + sums["drop_cents"]
        assert {key: int(row[key]) for key in sums} == sums and int(row["takings_cents"]) == takings
        # The printed row of the table: its séances, advances, takings, tray, produit brut, tips, head.
        assert (f"{table_id} {len(of_day)} {amount(sums['opener_cents'])} {amount(sums['fills_cents'])} "
                f"{amount(takings)} {amount(sums['closer_cents'])} {amount(sums['win_cents'])}") in printed
        # The head the floor printed is the table's own: its newest séance's row, in a journal that verifies.
        assert (int(row["head_seq"]), row["head_hash"]) == (of_day[-1]["head"]["seq"], of_day[-1]["head"]["hash"])
        assert f"{table_id} journal {found['journal_id']} ligne {row['head_seq']} {row['head_hash']}" in printed
        with Journal.open(journal_path(data)) as journal:
            [head] = journal.entries(int(row["head_seq"]) - 1, limit=1)
            assert journal.verify().ok
        assert head.hash == row["head_hash"] and head.body["type"] == "SeanceUpdated"
        # The table's own registre of the day says the same.
        mine = tmp_path / f"{table_id}.csv"
        assert table_main(["accounts", "--data-dir", str(data), "--registre", day, "--csv", str(mine)]) == 0
        own = next(csv.DictReader(mine.open(encoding="utf-8")))
        assert own == row
    total = registre_rows["Total"]
    assert int(total["win_cents"]) == sum(int(registre_rows[t]["win_cents"]) for t in TABLES)
    assert f"Total {int(total['seances'])} {amount(int(total['opener_cents']))}" in printed


async def test_a_store_of_the_earlier_release_derives_the_seances_it_holds(
        database: str, tables: dict[str, tuple[Path, dict[str, Any]]]) -> None:
    data, found = tables["T1"]
    with Journal.open(journal_path(data)) as journal:
        rows = [payload for _, name, payload in feed_messages(journal, "casino", "T1") if name == "events"]
    async with connected(database) as connection:  # the floor as released before the séances: 0001 to 0008
        await connection.execute("CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, "
                                 "applied_at timestamptz NOT NULL DEFAULT now())")
        for migration in migrations()[:8]:
            await connection.execute(migration.sql)
            await connection.execute("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                                     migration.version, migration.name)
        await connection.executemany(
            "INSERT INTO events (table_id, journal, seq, ts, kind, type, body, prev_hash, hash) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            [("T1", p["journal"], p["seq"], p["ts"], p["kind"], p["type"], json.dumps(p["body"]), p["prev_hash"],
              p["hash"]) for p in rows])
        assert 9 in await migrate(connection)
        day = day_of(found["seances"][0]["opened_at"])
        derived = await seances_of_day(connection, day)
    expected = [s for s in table_seances({"T1": tables["T1"]}) if day_of(s["opened_at"]) == day]
    assert [floor_seance(seance) for seance in derived] == expected
    assert not any(seance["chain_verified"] for seance in derived)  # no journal track yet: the ingest makes it


def test_a_bad_day_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "floor.toml"
    config.write_text(floor_toml("postgresql://floor@127.0.0.1:1/floor", ["mqtt://h"], "casino"), encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        floor_main(["registre", "--config", str(config), "--day", "2026-02-30", "--pdf", str(tmp_path / "r.pdf")])
    assert exit_.value.code == 2 and "a day is written YYYY-MM-DD" in capsys.readouterr().err
    assert not (tmp_path / "r.pdf").exists()
