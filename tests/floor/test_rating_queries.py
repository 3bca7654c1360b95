"""`table-floor query ratings` and `table-floor ratings forget` over rated sessions stored in a real PostgreSQL."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from pathlib import Path

from casino_floor.ingest import Ingest
from casino_floor.rating_queries import covered_seconds
from casino_floor.store import FloorStore
from tests.floor.rating_messages import Played, session_messages
from tests.floor.support import connected, floor_toml, store_messages
from tests.floor.test_queries import table_floor

DAY = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
ROUNDS = [Played("r41", 5000, -5000, 26, 31), Played("r42", 10000, 10000, 52, 118),
          Played("r43", 5000, 7500, 26, 40, seconds=95)]


async def store_sessions(store: FloorStore) -> None:
    """On T01 in the 06:00 shift p-aa (box 3, rounds 41-43) and an anonymous box 5 (41-42) two minutes later; on T02
    in the 14:00 shift p-aa again (one round of 20.00); the next day, a session outside the range asked."""
    sent = [*session_messages("T01", 100, "p-aa", 3, DAY.replace(hour=7), ROUNDS, buy_in_cents=100_000),
            *session_messages("T01", 130, None, 5, DAY.replace(hour=7, minute=2), ROUNDS[:2]),
            *session_messages("T02", 40, "p-aa", 1, DAY.replace(hour=15), [Played("r7", 2000, -2000, 10, 12, 120)]),
            *session_messages("T01", 900, "p-aa", 3, DAY + dt.timedelta(days=1, hours=7), ROUNDS)]
    await store_messages(store, Ingest(), [("ratings", message) for message in sent], now=0.0)


def config(tmp_path: Path, database: str) -> Path:
    path = tmp_path / "floor.toml"
    path.write_text(floor_toml(database, ["mqtt://127.0.0.1:1883"], "casino"), encoding="utf-8")
    return path


async def ask(path: Path, by: str, form: str = "json") -> str:
    code, out, err = await table_floor(path, "query", "ratings", "--by", by, "--from", "2026-12-01T00:00",
                                       "--to", "2026-12-02T00:00", "--format", form)
    assert code == 0, err
    return out


async def test_by_player_table_and_shift_with_the_pace(tmp_path: Path, store: FloorStore, database: str) -> None:
    await store_sessions(store)
    path = config(tmp_path, database)
    by_player = json.loads(await ask(path, "player"))
    assert by_player == [
        {"player": None, "sessions": 1, "seconds_played": 120, "rounds": 2, "hands": 2, "handle_cents": 15_000,
         "average_bet_cents": 7500, "buy_in_cents": 0, "player_win_cents": 5000, "theo_cents": 78,
         "theo_skill_cents": 149, "rounds_per_hour": 60.0},
        {"player": "p-aa", "sessions": 2, "seconds_played": 335, "rounds": 4, "hands": 4, "handle_cents": 22_000,
         "average_bet_cents": 5500, "buy_in_cents": 100_000, "player_win_cents": 10_500, "theo_cents": 114,
         "theo_skill_cents": 201, "rounds_per_hour": 43.0},  # 4 rounds in 335 s
    ]
    by_table = {row["table_id"]: row for row in json.loads(await ask(path, "table"))}
    t01 = by_table["T01"]
    assert (t01["sessions"], t01["rounds"], t01["seconds_played"], t01["handle_cents"]) == (2, 5, 335, 35_000)
    # The table's pace: rounds 41-43 while someone rated sat, 07:00:00 to 07:04:30 (box 5's 150 s from 07:02).
    assert t01["rounds_per_hour"] == 40.0
    assert t01["rounds_per_hour_per_seat"] == 53.7  # 5 rounds in 335 seat-seconds
    assert by_table["T02"]["rounds_per_hour"] == 24.0  # one round over its 150 s session (120 s played + 30)
    by_shift = {row["shift"]: row for row in json.loads(await ask(path, "shift"))}
    assert set(by_shift) == {"2026-12-01T06", "2026-12-01T14"}
    assert by_shift["2026-12-01T06"]["sessions"] == 2 and by_shift["2026-12-01T06"]["rounds_per_hour"] == 40.0
    assert by_shift["2026-12-01T14"]["theo_cents"] == 10
    rows = list(csv.DictReader(io.StringIO(await ask(path, "table", "csv"))))
    assert [(row["table_id"], row["theo_skill_cents"], row["rounds_per_hour"]) for row in rows] == [
        ("T01", "338", "40.0"), ("T02", "12", "24.0")]


async def test_forget_erases_a_players_sessions_lines_and_buy_in_ids(tmp_path: Path, store: FloorStore,
                                                                    database: str) -> None:
    await store_sessions(store)
    async with connected(database) as connection:
        await connection.execute("INSERT INTO buy_ins (table_id, journal, seq, ts, round, cents, tender, box, player, "
                                 "by_role) VALUES ('T01', 'j', 5, 0, 0, 100000, 'cash', 3, 'p-aa', 'dealer')")
    path = config(tmp_path, database)
    code, out, err = await table_floor(path, "ratings", "forget", "p-aa")
    assert code == 0, err
    assert "3 rated session(s) erased" in out and "1 buy-in(s)" in out
    async with connected(database) as connection:
        assert await connection.fetchval("SELECT count(*) FROM rated_sessions WHERE player = 'p-aa'") == 0
        assert await connection.fetchval("SELECT count(*) FROM rated_rounds WHERE session <> 'T01-130'") == 0
        assert await connection.fetchval("SELECT count(*) FROM rated_sessions") == 1  # the anonymous box stays
        assert await connection.fetchval("SELECT player FROM buy_ins") == ""
    rows = json.loads(await ask(path, "player"))
    assert [row["player"] for row in rows] == [None]


async def test_bad_input_is_one_line_and_check_config_says_the_retention(tmp_path: Path, database: str) -> None:
    path = config(tmp_path, database)
    code, out, _ = await table_floor(path, "check-config")
    assert code == 0 and "rated sessions kept 365 days" in out
    path.write_text(path.read_text(encoding="utf-8") + "[ratings]\nretention_days = 0\n", encoding="utf-8")
    code, _, err = await table_floor(path, "check-config")
    assert code == 2 and err.count("\n") == 1 and "ratings.retention_days" in err and "Traceback" not in err
    path = config(tmp_path, database)
    code, _, err = await table_floor(path, "query", "ratings", "--by", "seat", "--from", "2026-12-01T00:00",
                                       "--to", "2026-12-02T00:00")
    assert code == 2 and "--by" in err and "Traceback" not in err
    code, _, err = await table_floor(path, "query", "ratings", "--from", "yesterday", "--to", "2026-12-02")
    assert code == 2 and "yesterday" in err and "Traceback" not in err


def test_covered_seconds_counts_an_overlap_once() -> None:
    assert covered_seconds([(0, 10), (5, 20), (30, 40), (31, 35)]) == 30
    assert covered_seconds([]) == 0
