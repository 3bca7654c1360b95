"""`table-floor query ratings`: the rated sessions that started between two times, summed by player, table or shift.

Per group: how many sessions, the seconds played, rounds, hands, the handle, the average bet (handle / hands,
rounded down, as the tables compute it), the buy-ins, the players' win (+ = the players won: the contract's
sign, not the house's of `query money`), theo and skill theo, and the pace:

- ``rounds_per_hour``: by player, his rounds per hour played (seconds_played, pauses excluded); by table or
  shift, the table's rounds per hour while a rated player sat at it: the distinct rounds the sessions' lines
  name over the hours covered by at least one session (from its start to its end; an open session to its
  start plus its seconds played), summed over the tables of the group;
- ``rounds_per_hour_per_seat`` (by table or shift): the rated rounds per hour played of one seat, the sessions'
  rounds over their seconds played.

A session counts whole in the group of its start: the shift its `started_at` falls in, the range its start is
in. Anonymous sessions (rated by box, no pseudonym) are one group by player, named by an empty player.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import asyncpg

from casino_floor.shifts import Shifts

GROUPINGS: Final = ("player", "table", "shift")
Grouping = Literal["player", "table", "shift"]
_SUMMED: Final = ("seconds_played", "rounds", "hands", "handle_cents", "buy_in_cents", "win_cents", "theo_cents",
                  "theo_skill_cents")


def _per_hour(count: int, seconds: float) -> float | None:
    return round(count * 3600 / seconds, 1) if seconds > 0 else None


def covered_seconds(spans: Iterable[tuple[float, float]]) -> float:
    """The seconds covered by at least one of the [start, end) `spans` (overlaps counted once)."""
    total, reach = 0.0, float("-inf")
    for start, end in sorted(spans):
        if end <= reach:
            continue
        total += end - max(start, reach)
        reach = end
    return total


@dataclass(slots=True)
class RatingGroup:
    """The sums of one group's sessions, and per table the rounds named and the time covered."""

    sessions: int = 0
    sums: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_SUMMED, 0))
    rounds_by_table: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    spans_by_table: dict[str, list[tuple[float, float]]] = field(default_factory=lambda: defaultdict(list))

    def figures(self, by: Grouping) -> dict[str, Any]:
        sums = self.sums
        out: dict[str, Any] = {"sessions": self.sessions, "seconds_played": sums["seconds_played"],
                               "rounds": sums["rounds"], "hands": sums["hands"], "handle_cents": sums["handle_cents"],
                               "average_bet_cents": sums["handle_cents"] // sums["hands"] if sums["hands"] else 0,
                               "buy_in_cents": sums["buy_in_cents"], "player_win_cents": sums["win_cents"],
                               "theo_cents": sums["theo_cents"], "theo_skill_cents": sums["theo_skill_cents"]}
        per_seat = _per_hour(sums["rounds"], sums["seconds_played"])
        if by == "player":
            out["rounds_per_hour"] = per_seat
        else:
            table_rounds = sum(len(rounds) for rounds in self.rounds_by_table.values())
            covered = sum(covered_seconds(spans) for spans in self.spans_by_table.values())
            out["rounds_per_hour"] = _per_hour(table_rounds, covered)
            out["rounds_per_hour_per_seat"] = per_seat
        return out


async def ratings(connection: asyncpg.Connection, shifts: Shifts, by: Grouping, start: float, end: float
                  ) -> list[dict[str, Any]]:
    """One row per player, table or shift with the rated sessions that started in [start, end)."""
    if by not in GROUPINGS:
        raise ValueError(f"by must be one of {', '.join(GROUPINGS)}")
    low, high = dt.datetime.fromtimestamp(start, dt.UTC), dt.datetime.fromtimestamp(end, dt.UTC)
    sessions = await connection.fetch(
        "SELECT * FROM rated_sessions WHERE started_at >= $1 AND started_at < $2", low, high)
    lines = await connection.fetch(
        "SELECT table_id, session, started_at, round_id FROM rated_rounds WHERE started_at >= $1 AND started_at < $2",
        low, high)
    named: dict[tuple[str, str, dt.datetime], list[str]] = defaultdict(list)
    for line in lines:
        named[(line["table_id"], line["session"], line["started_at"])].append(line["round_id"])
    groups: dict[str, RatingGroup] = defaultdict(RatingGroup)
    for session in sessions:
        began = session["started_at"].timestamp()
        key = (session["player"] or "" if by == "player" else session["table_id"] if by == "table"
               else shifts.name_of(began))
        group = groups[key]
        group.sessions += 1
        for name in _SUMMED:
            group.sums[name] += session[name]
        table = session["table_id"]
        group.rounds_by_table[table].update(named[(table, session["session"], session["started_at"])])
        ended = session["ended_at"].timestamp() if session["ended_at"] else began + session["seconds_played"]
        group.spans_by_table[table].append((began, max(ended, began)))
    column = "table_id" if by == "table" else by
    return [{column: key or None, **groups[key].figures(by)} for key in sorted(groups)]
