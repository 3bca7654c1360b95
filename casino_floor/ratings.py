"""Rated sessions at the floor: the tables' ``ratings`` messages checked, stored idempotently, kept for a time.

A table publishes each rated session on ``{prefix}/tables/{tableId}/ratings`` (QoS 1, not retained): a message
when it starts, one per settled round it had a stake in (with that round's line) and when a pause, a resume or a
move changes it, and one when it closes (docs/floor.md, "Player ratings"). Counts are totals so far, so the store
upserts the session by (table, session id, start), replacing it only with a message of a journal seq as high as the one
it holds: a duplicate (QoS 1), a replay or a late message never takes a session back. (The start is in the key:
a session id is the journal seq of its first row, and a table whose journal starts again numbers from 1 again.) A
round's line is stored once by (table, session, start, round id).

`parse_rating` turns one decoded payload into a `RatingMessage` or raises `RatingError` naming what is wrong (the
service logs it in one line and counts it). `write_ratings` stores a batch's messages in the batch's transaction.
`forget_player` erases a player's sessions on his request; the retention drops whole months of sessions
(casino_floor/partitions.py), and `Retention` says when its daily run is due, from the clock the service is given.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import asyncpg

RATINGS_TOPIC: Final = "ratings"
MESSAGE_TYPES: Final = frozenset({"session_started", "session_updated", "session_closed"})
DEFAULT_RETENTION_DAYS: Final = 365
PURGE_EVERY_S: Final = 86_400.0
_BIGINT = 2**63


class RatingError(ValueError):
    """A ``ratings`` message that is not one the contract allows; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class RoundLine:
    """One settled round of a rated session: the stake, the player's net, the theoretical wins."""

    round_id: str
    stake_cents: int
    win_cents: int
    theo_cents: int
    theo_skill_cents: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RatingMessage:
    """One ``ratings`` message as the contract gives it (money in integer cents, times in UTC)."""

    type: str
    table_id: str
    session: str
    player: str | None
    box: int
    started_at: dt.datetime
    ended_at: dt.datetime | None
    seconds_played: int
    rounds: int
    hands: int
    handle_cents: int
    average_bet_cents: int
    buy_in_cents: int
    win_cents: int
    theo_cents: int
    theo_skill_cents: int
    edge_pct: float | None
    skill_edge_pct: float | None
    seq: int
    round: RoundLine | None

    def session_row(self) -> tuple[Any, ...]:
        return (self.table_id, self.session, self.player, self.box, self.started_at, self.ended_at,
                self.seconds_played, self.rounds, self.hands, self.handle_cents, self.average_bet_cents,
                self.buy_in_cents, self.win_cents, self.theo_cents, self.theo_skill_cents, self.edge_pct,
                self.skill_edge_pct, self.seq)


def _whole(payload: Mapping[str, Any], key: str, *, minimum: int | None = 0) -> int:
    value = payload.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RatingError(f"{key} must be a whole number, not {value!r}")
    if not -_BIGINT <= value < _BIGINT or (minimum is not None and value < minimum):
        raise RatingError(f"{key} {value} is out of range")
    return value


def _text(payload: Mapping[str, Any], key: str) -> str:
    value = payload.get(key)
    if not isinstance(value, str) or not value or len(value) > 200:
        raise RatingError(f"{key} must be a non-empty text, not {value!r}")
    return value


def _time(payload: Mapping[str, Any], key: str) -> dt.datetime:
    value = payload.get(key)
    try:
        moment = dt.datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise RatingError(f"{key} must be an ISO-8601 time in UTC like 2026-12-01T21:04:05.123Z, not {value!r}")
    return moment.astimezone(dt.UTC)


def _percent(payload: Mapping[str, Any], key: str) -> float | None:
    value = payload.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise RatingError(f"{key} must be a number, not {value!r}")
    return float(value)


def _round(value: Any) -> RoundLine | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise RatingError(f"round must be an object or null, not {value!r}")
    round_id = value.get("round_id")
    if isinstance(round_id, int) and not isinstance(round_id, bool):
        round_id = str(round_id)
    if not isinstance(round_id, str) or not round_id or len(round_id) > 200:
        raise RatingError(f"round.round_id must be a non-empty text, not {round_id!r}")
    return RoundLine(round_id, _whole(value, "stake_cents"), _whole(value, "win_cents", minimum=None),
                     _whole(value, "theo_cents", minimum=None), _whole(value, "theo_skill_cents", minimum=None))


def parse_rating(payload: Mapping[str, Any]) -> RatingMessage:
    """The message in `payload`, checked against the contract; `RatingError` names the first thing wrong."""
    type_ = payload.get("type")
    if type_ not in MESSAGE_TYPES:
        raise RatingError(f"type {type_!r} is not one of {', '.join(sorted(MESSAGE_TYPES))}")
    table_id = _text(payload, "table") if "table" in payload else _text(payload, "table_id")
    player = payload.get("player")
    if player is not None and (not isinstance(player, str) or not player or len(player) > 200):
        raise RatingError(f"player must be a pseudonym or null, not {player!r}")
    box = _whole(payload, "box", minimum=1)
    if box > 99:
        raise RatingError(f"box {box} is out of range")
    ended_at = None if payload.get("ended_at") is None else _time(payload, "ended_at")
    if type_ == "session_closed" and ended_at is None:
        raise RatingError("a session_closed message must say ended_at")
    return RatingMessage(
        type=str(type_), table_id=table_id, session=_text(payload, "session"), player=player, box=box,
        started_at=_time(payload, "started_at"), ended_at=ended_at,
        seconds_played=_whole(payload, "seconds_played"), rounds=_whole(payload, "rounds"),
        hands=_whole(payload, "hands"), handle_cents=_whole(payload, "handle_cents"),
        average_bet_cents=_whole(payload, "average_bet_cents"), buy_in_cents=_whole(payload, "buy_in_cents"),
        win_cents=_whole(payload, "win_cents", minimum=None), theo_cents=_whole(payload, "theo_cents", minimum=None),
        theo_skill_cents=_whole(payload, "theo_skill_cents", minimum=None),
        edge_pct=_percent(payload, "edge_pct"), skill_edge_pct=_percent(payload, "skill_edge_pct"),
        seq=_whole(payload, "seq"), round=_round(payload.get("round")))


_UPSERT_SESSION = (
    "INSERT INTO rated_sessions (table_id, session, player, box, started_at, ended_at, seconds_played, rounds, hands, "
    "handle_cents, average_bet_cents, buy_in_cents, win_cents, theo_cents, theo_skill_cents, edge_pct, "
    "skill_edge_pct, last_seq) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, "
    "$18) ON CONFLICT (table_id, session, started_at) DO UPDATE SET player = excluded.player, box = excluded.box, "
    "ended_at = excluded.ended_at, seconds_played = excluded.seconds_played, "
    "rounds = excluded.rounds, hands = excluded.hands, handle_cents = excluded.handle_cents, "
    "average_bet_cents = excluded.average_bet_cents, buy_in_cents = excluded.buy_in_cents, "
    "win_cents = excluded.win_cents, theo_cents = excluded.theo_cents, theo_skill_cents = excluded.theo_skill_cents, "
    "edge_pct = excluded.edge_pct, skill_edge_pct = excluded.skill_edge_pct, last_seq = excluded.last_seq, "
    "updated_at = now() WHERE excluded.last_seq > rated_sessions.last_seq "
    # the same seq again changes nothing, but the close wins over an update of the same row
    "OR (excluded.last_seq = rated_sessions.last_seq AND excluded.ended_at IS NOT NULL "
    "AND rated_sessions.ended_at IS NULL)")
_UPSERT_ROUND = (
    "INSERT INTO rated_rounds (table_id, session, started_at, round_id, seq, stake_cents, win_cents, theo_cents, "
    "theo_skill_cents) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
    "ON CONFLICT (table_id, session, started_at, round_id) DO UPDATE "
    "SET seq = excluded.seq, stake_cents = excluded.stake_cents, win_cents = excluded.win_cents, "
    "theo_cents = excluded.theo_cents, theo_skill_cents = excluded.theo_skill_cents "
    "WHERE excluded.seq > rated_rounds.seq")


async def write_ratings(connection: asyncpg.Connection, messages: Sequence[RatingMessage]) -> None:
    """Store `messages` in the caller's transaction: each session upserted by seq, then the round lines."""
    if not messages:
        return
    await connection.executemany(_UPSERT_SESSION, [message.session_row() for message in messages])
    lines = [(m.table_id, m.session, m.started_at, m.round.round_id, m.seq, m.round.stake_cents, m.round.win_cents,
              m.round.theo_cents, m.round.theo_skill_cents) for m in messages if m.round is not None]
    if lines:
        await connection.executemany(_UPSERT_ROUND, lines)


FORGOTTEN: Final = "p-000000000000"  # what stands where an erased pseudonym was (the shape of one, no player's)
_PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{3,64}")
_BIG_TABLES: Final = frozenset({"events", "rounds"})  # searched only at the tables the player was rated or bought in at


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What `forget_player` erased: sessions (with their round lines), buy-ins blanked, other rows rewritten."""

    sessions: int
    buy_ins: int
    rows: int


async def forget_player(connection: asyncpg.Connection, player: str) -> Forgotten:
    """Erase every trace of a pseudonym in the floor's database, in one transaction (GDPR art. 17).

    His rated sessions and their round lines are deleted and his id blanked on the stored buy-ins; then every text,
    json and jsonb column of every table is searched for it (a whole word: ``p-3f9a`` is not in ``p-3f9ab``) and it
    is replaced by `FORGOTTEN`: the tables' last states (the seats), the alarms' messages, the round records, the
    journal rows, quarantine and evidence. A journal row rewritten so is listed in ``forgotten_rows``: its hash no
    longer matches its body, and `query verify` says why."""
    if not _PLAYER_ID.fullmatch(player):
        raise ValueError(f"{player[:70]!r} is not a player's pseudonym (letters, digits, - and _)")
    pattern = f"(?<![A-Za-z0-9_-]){player}(?![A-Za-z0-9_-])"
    async with connection.transaction():
        tables = [row["table_id"] for row in await connection.fetch(
            "SELECT table_id FROM rated_sessions WHERE player = $1 UNION SELECT table_id FROM buy_ins "
            "WHERE player = $1", player)]
        sessions = await connection.execute("DELETE FROM rated_sessions WHERE player = $1", player)
        buy_ins = await connection.execute("UPDATE buy_ins SET player = '' WHERE player = $1", player)
        await connection.execute(
            "INSERT INTO forgotten_rows (table_id, journal, seq) SELECT table_id, journal, seq FROM events "
            "WHERE table_id = ANY($2::text[]) AND body ~ $1 ON CONFLICT DO NOTHING", pattern, tables)
        rows = 0
        for column in await connection.fetch(
                "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = "
                "current_schema() AND data_type IN ('text', 'json', 'jsonb', 'character varying') "
                "AND table_name::text NOT IN (SELECT relname FROM pg_class WHERE relispartition) "  # via its parent
                "ORDER BY table_name, column_name"):
            table, name, kind = column["table_name"], column["column_name"], column["data_type"]
            cast = {"json": "::json", "jsonb": "::jsonb"}.get(kind, "")
            scope = " AND table_id = ANY($3::text[])" if table in _BIG_TABLES else ""
            done = await connection.execute(
                f'UPDATE "{table}" SET "{name}" = regexp_replace("{name}"::text, $1, $2, \'g\'){cast} '
                f'WHERE "{name}"::text ~ $1{scope}', pattern, FORGOTTEN, *([tables] if scope else []))
            rows += int(done.split()[-1])
    return Forgotten(int(sessions.split()[-1]), int(buy_ins.split()[-1]), rows)


async def open_sessions(connection: asyncpg.Connection, since: float) -> list[dict[str, Any]]:
    """The sessions still open that the store heard of at or after `since` (seconds since the epoch), each as the
    contract's message of its last seq (a page starting again shows who sits now; one both stored and heard
    counts once, by seq)."""
    rows = await connection.fetch(
        "SELECT * FROM rated_sessions WHERE ended_at IS NULL AND updated_at >= to_timestamp($1) "
        "ORDER BY table_id, session", since)
    return [{"type": "session_updated", "table": row["table_id"], "session": row["session"], "player": row["player"],
             "box": row["box"], "started_at": row["started_at"].isoformat(), "ended_at": None,
             **{name: row[name] for name in ("seconds_played", "rounds", "hands", "handle_cents",
                                             "average_bet_cents", "buy_in_cents", "win_cents", "theo_cents",
                                             "theo_skill_cents", "edge_pct", "skill_edge_pct")},
             "seq": row["last_seq"], "round": None} for row in rows]


@dataclass(slots=True)
class Retention:
    """When the retention's run is due: at the first look, then every `every` seconds of the clock given."""

    days: int = DEFAULT_RETENTION_DAYS
    every: float = PURGE_EVERY_S
    last: float | None = None

    def due(self, now: float) -> bool:
        return self.last is None or now - self.last >= self.every

    def done(self, now: float) -> None:
        self.last = now
