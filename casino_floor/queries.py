"""The questions a floor manager asks of the store, each a list of flat rows (CSV or JSON by the command).

- `rounds_between`: the rounds of a table closed between two times (surveillance);
- `shift_alarms`: every alarm of a shift, the tables' and the floor's;
- `shift_money`: per table for a shift, the money as finance names it (casino_floor/money.py): handle, drop,
  win, hold (win / drop) and win / handle;
- `round_record`: one round in full, step by step: the table's own recall, run over the rows the floor stores, under
  the terms the journal holds (its `terms` row);
- `verify_chain`: the hash chain of a table's journals recomputed from the stored rows.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import asyncpg

from casino_floor.money import ShiftMoney
from casino_floor.shifts import Shifts
from table_runtime.core.significant_events import KINDS as EVENT_KINDS
from table_runtime.core.significant_events import SignificantEvents
from table_runtime.core.terms import TableTerms
from table_runtime.errors import ConfigError
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import GENESIS_HASH, Checkpoint, Journal, verify_connection
from table_runtime.journal.chain import VerifyResult, row_problem
from table_runtime.journal.checkpoints import problem as checkpoint_problem
from table_runtime.runtime.recall import recall_rounds

PAGE = 5000


async def rounds_between(connection: asyncpg.Connection, table_id: str, start: float, end: float
                         ) -> list[dict[str, Any]]:
    rows = await connection.fetch(
        "SELECT table_id, journal, round, seq, ts, result, shoe_id, started_seq, closed_seq, handle_cents, win_cents "
        "FROM rounds WHERE table_id = $1 AND ts >= $2 AND ts < $3 ORDER BY ts, round", table_id, start, end)
    return [dict(row) for row in rows]


async def significant_events_between(connection: asyncpg.Connection, table_id: str, start: float, end: float
                                     ) -> list[dict[str, Any]]:
    """The table's significant events (docs/events.md) between two times: the table's own projection
    (core/significant_events.py) over the stored rows of each of its journals, from the journal's first row (a power
    loss, a device back, a software change are read against the rows before them), those in the range kept."""
    found: list[dict[str, Any]] = []
    journals = await connection.fetch("SELECT journal FROM journals WHERE table_id = $1 ORDER BY first_seen",
                                      table_id)
    for journal in (row["journal"] for row in journals):
        projection = SignificantEvents()
        rows = await connection.fetch(
            "SELECT seq, ts, kind, body FROM events WHERE table_id = $1 AND journal = $2 AND kind = ANY($3::text[]) "
            "AND ts < $4 ORDER BY seq", table_id, journal, list(EVENT_KINDS), end)
        for row in rows:
            body = json.loads(row["body"])
            for event in projection.take(int(row["seq"]), float(row["ts"]), str(row["kind"]),
                                         body if isinstance(body, dict) else {}):
                if event.ts >= start:
                    found.append({"table_id": table_id, "journal": journal, **event.to_json()})
    return found


async def shift_alarms(connection: asyncpg.Connection, shifts: Shifts, shift: str) -> list[dict[str, Any]]:
    start, end = shifts.bounds(shift)
    tables = await connection.fetch(
        "SELECT 'table' AS source, a.table_id, a.journal, a.alarm_id, a.seq, a.ts, a.kind, a.box, a.round, "
        "a.message, a.rule, a.amounts::text AS amounts, c.ts AS cleared_ts, c.cleared_by "
        "FROM alarms a LEFT JOIN alarm_clears c USING (table_id, journal, alarm_id) "
        "WHERE a.ts >= $1 AND a.ts < $2 ORDER BY a.ts, a.table_id, a.alarm_id", start, end)
    floor = await connection.fetch(
        "SELECT 'floor' AS source, table_id, journal, id AS alarm_id, first_seq AS seq, "
        "extract(epoch FROM raised_at)::float8 AS ts, kind, NULL::int AS box, NULL::int AS round, message, "
        "'' AS rule, json_build_object('first_seq', first_seq, 'last_seq', last_seq)::text AS amounts, "
        "extract(epoch FROM cleared_at)::float8 AS cleared_ts, CASE WHEN cleared_at IS NULL THEN NULL "
        "ELSE 'floor' END AS cleared_by FROM floor_alarms "
        "WHERE raised_at >= to_timestamp($1) AND raised_at < to_timestamp($2) ORDER BY raised_at, id", start, end)
    return sorted((dict(row) for row in [*tables, *floor]), key=lambda row: (row["ts"], row["table_id"]))


# The rows of `r` (rounds, buy-ins) that count: their journal's signed prefix covers them, or the floor holds no key
# for their table (journals.signed_seq NULL: counted as they arrive, as before keys).
COUNTED = ("LEFT JOIN journals j ON j.table_id = r.table_id AND j.journal = r.journal "
           "WHERE (j.signed_seq IS NULL OR r.seq <= j.signed_seq)")


async def shift_money(connection: asyncpg.Connection, shifts: Shifts, shift: str) -> list[dict[str, Any]]:
    """Per table with a round or a buy-in in the shift: rounds, handle, buy-ins, drop, win, hold, win / handle.

    Only what is its table's word counts: with a key for the table, a row a head signed by the table covers
    (`COUNTED`); sums in ``numeric``, so no table's amounts can overflow the query."""
    start, end = shifts.bounds(shift)
    money: dict[str, ShiftMoney] = {}
    for row in await connection.fetch(
            "SELECT r.table_id, count(*) AS rounds, sum(r.handle_cents) AS handle_cents, "
            f"sum(r.win_cents) AS win_cents FROM rounds r {COUNTED} AND r.ts >= $1 AND r.ts < $2 "
            "GROUP BY r.table_id", start, end):
        money[row["table_id"]] = ShiftMoney(rounds=row["rounds"], handle_cents=int(row["handle_cents"]),
                                            win_cents=int(row["win_cents"]))
    for row in await connection.fetch(
            f"SELECT r.table_id, count(*) AS buy_ins, sum(r.cents) AS drop_cents FROM buy_ins r {COUNTED} "
            "AND r.ts >= $1 AND r.ts < $2 GROUP BY r.table_id", start, end):
        figures = money.setdefault(row["table_id"], ShiftMoney())
        figures.buy_ins, figures.drop_cents = row["buy_ins"], int(row["drop_cents"])
    return [{"shift": shift, "table_id": table_id, **money[table_id].to_dict(shift)} for table_id in sorted(money)]


async def _journal_of_round(connection: asyncpg.Connection, table_id: str, number: int) -> str:
    journal = await connection.fetchval(
        "SELECT journal FROM rounds WHERE table_id = $1 AND round = $2 ORDER BY ts DESC LIMIT 1", table_id, number)
    if journal is None:  # a round still in play has no record yet: the journal that started it
        journal = await connection.fetchval(
            "SELECT journal FROM events WHERE table_id = $1 AND kind = 'event' AND type = 'RoundStarted' "
            "AND body::jsonb ->> 'round' = $2 ORDER BY ts DESC LIMIT 1", table_id, str(number))
    if journal is None:
        raise ConfigError("round", f"table {table_id} has no round {number} at the floor")
    return str(journal)


async def _copy_rows(connection: asyncpg.Connection, table_id: str, journal_id: str, target: Journal, *,
                     stop_at_hole: bool, after: int = 0, until: int | None = None) -> None:
    """The stored rows of one journal, as they are, into a scratch journal file, the last one as its head
    (`stop_at_hole`: only the contiguous run, for a recall; else every row, so that the check names holes); rows
    `after`+1 .. `until` (None: to the last)."""
    db, seq, last = target._db(), after, (0, GENESIS_HASH)
    db.execute("PRAGMA synchronous=OFF")  # a scratch file
    db.execute("BEGIN")
    try:
        while True:
            rows = await connection.fetch(
                "SELECT seq, ts, kind, body, prev_hash, hash FROM events WHERE table_id = $1 AND journal = $2 "
                "AND seq > $3 AND seq <= $4 ORDER BY seq LIMIT $5", table_id, journal_id, seq,
                until if until is not None else 2 ** 62, PAGE)
            values = [tuple(row.values()) for row in rows]
            if stop_at_hole:
                values = [value for index, value in enumerate(values) if value[0] == seq + index + 1]
            db.executemany("INSERT INTO entries (seq, ts, kind, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)",
                           values)
            if values:
                seq, last = values[-1][0], (values[-1][0], values[-1][5])
            if len(rows) < PAGE or len(values) < len(rows):
                break
        db.execute("UPDATE head SET seq = ?, hash = ? WHERE id = 1", last)
    finally:
        db.execute("COMMIT")


async def _round_span(connection: asyncpg.Connection, table_id: str, journal_id: str,
                      number: int) -> tuple[int, int | None] | None:
    """The seq of the round's `RoundStarted` event and of the next round's (None: none yet), as stored; None when
    the round's start is not stored."""
    started = await connection.fetchval(
        "SELECT seq FROM events WHERE table_id = $1 AND journal = $2 AND kind = 'event' AND type = 'RoundStarted' "
        "AND body::jsonb ->> 'round' = $3 ORDER BY seq LIMIT 1", table_id, journal_id, str(number))
    if started is None:
        return None
    following = await connection.fetchval(
        "SELECT min(seq) FROM events WHERE table_id = $1 AND journal = $2 AND kind = 'event' "
        "AND type = 'RoundStarted' AND seq > $3", table_id, journal_id, started)
    return int(started), None if following is None else int(following)


async def start_checkpoint(connection: asyncpg.Connection, table_id: str, journal_id: str,
                           before: int) -> Checkpoint | None:
    """The newest checkpoint the table sent at a row before `before` that checks at the floor: its seal, and its
    chain hash the hash of the stored row (a checkpoint that does not is passed over for an older one)."""
    rows = await connection.fetch(
        "SELECT c.seq, c.chain_hash, c.state, c.seal, e.hash FROM checkpoints c LEFT JOIN events e ON "
        "e.table_id = c.table_id AND e.journal = c.journal AND e.seq = c.seq WHERE c.table_id = $1 "
        "AND c.journal = $2 AND c.seq < $3 ORDER BY c.seq DESC LIMIT 8", table_id, journal_id, before)
    for row in rows:
        checkpoint = Checkpoint(int(row["seq"]), row["chain_hash"], row["state"], row["seal"])
        if checkpoint_problem(checkpoint, row["hash"]) is None:
            return checkpoint
    return None


async def _scratch_from(connection: asyncpg.Connection, table_id: str, journal_id: str, path: Path,
                        checkpoint: Checkpoint, until: int | None) -> None:
    """A scratch journal at `path` holding what a recall from `checkpoint` reads: the journal's terms rows before
    it, the checkpoint, and the stored rows from its row on (to `until`)."""
    with Journal.open(path) as journal:
        db = journal._db()
        terms = await connection.fetch(
            "SELECT seq, ts, kind, body, prev_hash, hash FROM events WHERE table_id = $1 AND journal = $2 "
            "AND kind = 'terms' AND seq < $3 ORDER BY seq", table_id, journal_id, checkpoint.seq)
        db.executemany("INSERT INTO entries (seq, ts, kind, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)",
                       [tuple(row.values()) for row in terms])
        await _copy_rows(connection, table_id, journal_id, journal, stop_at_hole=True, after=checkpoint.seq - 1,
                         until=until)
        db.execute("INSERT INTO checkpoints (seq, chain_hash, state, seal) VALUES (?, ?, ?, ?)",
                   (checkpoint.seq, checkpoint.chain_hash, checkpoint.state_text, checkpoint.seal))


async def round_record(connection: asyncpg.Connection, table_id: str, number: int) -> dict[str, Any]:
    """The round as `table-runtime recall` shows it, rebuilt from the stored rows of its journal under the terms
    the journal itself holds (its `terms` row: the table id, every rule option, the limits and the zones).

    It starts, as the table's recall does, from the newest checkpoint before the round that the table sent on its
    feed (``checkpoints``) and that checks at the floor: its terms rows, that checkpoint and the rows from it to the
    next round's start are all it reads. With none (a table that sent none yet, a journal older than its
    checkpoints), the fold starts at the journal's first row. A journal written before terms rows, by a table not
    yet started on this version, holds none: it is read under the profile its table started under (its
    ``Started`` row) and the limits of its last state, as before.
    """
    journal_id = await _journal_of_round(connection, table_id, number)
    span = await _round_span(connection, table_id, journal_id, number)
    checkpoint = None if span is None else await start_checkpoint(connection, table_id, journal_id, span[0])
    with tempfile.TemporaryDirectory(prefix="floor-recall-") as scratch:
        path = Path(scratch) / "journal.db"
        if checkpoint is not None and span is not None:
            await _scratch_from(connection, table_id, journal_id, path, checkpoint,
                                None if span[1] is None else span[1] - 1)
        with Journal.open(path) as journal:
            if checkpoint is None:
                await _copy_rows(connection, table_id, journal_id, journal, stop_at_hole=True)
            default = None if journal.terms_entries() else await _terms_before_rows(connection, table_id, journal_id)
            starts = [round_number for _, round_number in journal.round_starts()]
            last = len(starts) - starts.index(number) if number in starts else 0
            rounds = recall_rounds(journal, last=last, default_terms=default) if last else []
    for recalled in rounds:
        if recalled["round"] == number:
            return {"journal": journal_id, **recalled}
    raise ConfigError("round", f"table {table_id}: round {number} is not complete at the floor (rows missing)")


async def _terms_before_rows(connection: asyncpg.Connection, table_id: str, journal_id: str) -> TableTerms:
    """What the floor knows of the terms of a journal that holds no terms row: its ``Started`` profile, the limits
    of the table's last state (no rule override, no zones)."""
    started = await connection.fetchval(
        "SELECT body FROM events WHERE table_id = $1 AND journal = $2 AND kind = 'status' AND type = 'Started' "
        "ORDER BY seq LIMIT 1", table_id, journal_id)
    rules = profile(json.loads(started).get("profile", "fr-casino") if started else "fr-casino")
    state = await connection.fetchval("SELECT state FROM table_state WHERE table_id = $1", table_id)
    limits = TableLimits()
    snapshot_limits = (json.loads(state).get("snapshot") or {}).get("limits") if state else None
    if isinstance(snapshot_limits, dict):
        limits = TableLimits(min_bet_cents=int(snapshot_limits["min_cents"]),
                             max_bet_cents=int(snapshot_limits["max_cents"]))
    return TableTerms.of(table_id, rules, limits)


async def verify_chain(connection: asyncpg.Connection, table_id: str) -> list[dict[str, Any]]:
    """Per journal of the table: the stored rows' chain recomputed (table_runtime's own check)."""
    results = []
    for journal_id in [row["journal"] for row in await connection.fetch(
            "SELECT journal FROM journals WHERE table_id = $1 ORDER BY first_seen", table_id)]:
        forgotten = {row["seq"] for row in await connection.fetch(
            "SELECT seq FROM forgotten_rows WHERE table_id = $1 AND journal = $2", table_id, journal_id)}
        if forgotten:
            result = await _verify_forgotten(connection, table_id, journal_id, forgotten)
        else:
            with tempfile.TemporaryDirectory(prefix="floor-verify-") as scratch, \
                    Journal.open(Path(scratch) / "journal.db") as journal:
                await _copy_rows(connection, table_id, journal_id, journal, stop_at_hole=False)
                result = verify_connection(journal._db())
        head = await connection.fetchrow("SELECT head_seq, head_hash, max_seq FROM journals WHERE table_id = $1 "
                                         "AND journal = $2", table_id, journal_id)
        results.append({"table_id": table_id, "journal": journal_id, "ok": result.ok, "rows": result.rows,
                        "first_bad_seq": result.first_bad_seq, "reason": result.reason,
                        "head_seq": head["head_seq"], "max_seq": head["max_seq"]})
    return results


async def _verify_forgotten(connection: asyncpg.Connection, table_id: str, journal_id: str,
                            forgotten: set[int]) -> VerifyResult:
    """The chain of a journal some rows of which `ratings forget` rewrote: every row's link to the one before is
    checked, and every row's hash but theirs (their bodies were changed on purpose); the reason names them."""
    seq, prev, count = 0, GENESIS_HASH, 0
    while True:
        rows = await connection.fetch(
            "SELECT seq, ts, kind, body, prev_hash, hash FROM events WHERE table_id = $1 AND journal = $2 "
            "AND seq > $3 ORDER BY seq LIMIT $4", table_id, journal_id, seq, PAGE)
        for row in rows:
            values = tuple(row.values())
            problem = row_problem(values, seq + 1, prev)
            if problem is not None and not (problem[0] == row["seq"] in forgotten and "hash does not match"
                                            in problem[1]):
                return VerifyResult(False, count, problem[0], problem[1])
            seq, prev, count = row["seq"], row["hash"], count + 1
        if len(rows) < PAGE:
            break
    shown = ", ".join(str(number) for number in sorted(forgotten)[:10]) + (", ..." if len(forgotten) > 10 else "")
    return VerifyResult(True, count, None, f"row(s) {shown} rewritten by ratings forget: their links checked, "
                                           "not their hashes")
