"""Messages of the ratings contract as a table publishes them, written out by hand for the floor's tests.

`session_messages` plays one rated session: ``session_started``, one ``session_updated`` per round with that
round's line, and ``session_closed``; the totals are summed here, so a test knows what the store must hold.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Played:
    """One round of the session: its id, the stake, the player's net, theo and skill theo, its seconds."""

    round_id: str
    stake_cents: int
    win_cents: int
    theo_cents: int
    theo_skill_cents: int
    seconds: int = 60


def iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def session_messages(table: str, first_seq: int, player: str | None, box: int, started: dt.datetime,
                     rounds: list[Played], *, buy_in_cents: int = 0, close: bool = True) -> list[dict[str, Any]]:
    """The messages of one session, in the order the table publishes them (seq rising from `first_seq`)."""
    totals = {"seconds_played": 0, "rounds": 0, "hands": 0, "handle_cents": 0, "win_cents": 0, "theo_cents": 0,
              "theo_skill_cents": 0}
    seq = first_seq

    def message(type_: str, line: dict[str, Any] | None, ended: dt.datetime | None) -> dict[str, Any]:
        return {"type": type_, "table": table, "session": f"{table}-{first_seq}", "player": player, "box": box,
                "started_at": iso(started), "ended_at": iso(ended) if ended else None, **totals,
                "average_bet_cents": totals["handle_cents"] // totals["hands"] if totals["hands"] else 0,
                "buy_in_cents": buy_in_cents, "edge_pct": 0.515, "skill_edge_pct": 1.18, "seq": seq, "round": line}

    out = [message("session_started", None, None)]
    for played in rounds:
        seq += 7
        for key, value in (("seconds_played", played.seconds), ("rounds", 1), ("hands", 1),
                           ("handle_cents", played.stake_cents), ("win_cents", played.win_cents),
                           ("theo_cents", played.theo_cents), ("theo_skill_cents", played.theo_skill_cents)):
            totals[key] += value
        out.append(message("session_updated", {"round_id": played.round_id, "stake_cents": played.stake_cents,
                                               "win_cents": played.win_cents, "theo_cents": played.theo_cents,
                                               "theo_skill_cents": played.theo_skill_cents}, None))
    if close:
        seq += 3
        out.append(message("session_closed", None, started + dt.timedelta(seconds=totals["seconds_played"] + 30)))
    return out
