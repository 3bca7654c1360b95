"""`table-floor ratings forget PLAYER` leaves no trace of the pseudonym in any table of the floor's database: its
rated sessions and lines, the buy-ins, the last state's seats, the alarms' messages, the journal rows, quarantine.
Searched afterwards in every column of every table; another player's traces stay, and the stored chain still
verifies (the rewritten rows named)."""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path
from typing import Any

from casino_floor.ingest import Ingest
from casino_floor.store import Batch, FloorStore
from table_runtime.feed.messages import Topics, messages_for_entry
from tests.floor.journals import play
from tests.floor.rating_messages import Played, session_messages
from tests.floor.support import commit, connected, floor_toml, store_messages
from tests.floor.test_queries import table_floor

PLAYER, OTHER = "p-3f9a0c1b2d4e", "p-77aa00bb11cc"
ROUNDS = [Played("r1", 5000, -5000, 26, 31), Played("r2", 10000, 10000, 52, 118)]


async def _everywhere(dsn: str, text: str) -> dict[str, int]:
    """Per table of the floor's database: its rows whose text (every column, as PostgreSQL writes the row) holds
    `text`."""
    found = {}
    async with connected(dsn) as connection:
        for table in [row["table_name"] for row in await connection.fetch(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                "AND table_type = 'BASE TABLE'")]:
            count = await connection.fetchval(f'SELECT count(*) FROM "{table}" t WHERE strpos(t::text, $1) > 0', text)
            if count:
                found[table] = count
    return found


async def test_forget_leaves_no_trace_of_the_pseudonym_in_any_table(tmp_path: Path, store: FloorStore,
                                                                     database: str) -> None:
    with play(tmp_path / "t1.db", "T1", 2) as journal:
        now = time.time()
        for player, box in ((PLAYER, 2), (OTHER, 3)):
            journal.append("event", {"type": "PlayerSeated", "box": box, "player": player, "round": 2}, ts=now)
            journal.append("event", {"type": "BuyInRecorded", "round": 2, "cents": 20_000, "tender": "cash",
                                     "box": box, "player": player, "by": "dealer"}, ts=now)
            journal.append("alarm", {"id": journal.last_seq + 1, "kind": "advantage_play", "box": box, "round": 2,
                                     "message": f"box {box}: {player} bets with the count (+4.1)", "rule": "rating",
                                     "amounts": {"bet_cents": 50_000}}, ts=now)
        topics = Topics("casino", "T1")
        messages: list[tuple[str, dict[str, Any]]] = [
            (m.topic.rsplit("/", 1)[1], dict(m.payload)) for entry in journal.entries()
            for m in messages_for_entry(topics, entry, journal.journal_id)]
        state = {"schema_version": 1, "table_id": "T1", "journal": journal.journal_id, "seq": journal.last_seq,
                 "ts": now, "type": "TableState", "snapshot": {"seq": journal.last_seq, "seats": [
                     {"box": 2, "player": PLAYER}, {"box": 3, "player": OTHER}]}}
        day = dt.datetime.now(dt.UTC).replace(microsecond=0)
        ratings = [("ratings", m) for player, seq in ((PLAYER, 500), (OTHER, 600))
                   for m in session_messages("T1", seq, player, 2, day, ROUNDS, buy_in_cents=20_000)]
        ingest = Ingest(await store.load_tracks())
        await store_messages(store, ingest, [*messages, ("state", state), *ratings], now=0.0)
        poisoned = {**messages[0][1], "seq": 2**64, "note": f"{PLAYER}\u0000"}  # quarantined, the player named
        batch = Batch()
        ingest.take("events", poisoned, batch, raw=json.dumps(poisoned))
        await commit(store, ingest, batch, 1.0)
        last = journal.last_seq
    before = await _everywhere(database, PLAYER)
    assert {"events", "buy_ins", "alarms", "table_state", "rated_sessions", "quarantine"} <= set(before), before

    path = tmp_path / "floor.toml"
    path.write_text(floor_toml(database, ["mqtt://127.0.0.1:1883"], "casino"), encoding="utf-8")
    code, out, err = await table_floor(path, "ratings", "forget", PLAYER)
    assert code == 0, err
    assert "1 rated session(s) erased" in out and "1 buy-in(s)" in out

    assert await _everywhere(database, PLAYER) == {}
    kept = await _everywhere(database, OTHER)
    assert {"events", "buy_ins", "alarms", "table_state", "rated_sessions"} <= set(kept), kept
    code, out, err = await table_floor(path, "query", "verify", "--table", "T1", "--format", "json")
    assert code == 0, err
    [verified] = json.loads(out)
    assert verified["ok"] is True and verified["rows"] == last and "ratings forget" in verified["reason"]
    code, _, err = await table_floor(path, "ratings", "forget", "p-%")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
