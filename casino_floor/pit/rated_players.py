"""The rated players seated at each table, as the pit page shows them: folded from the ``ratings`` messages (pure).

A session is shown from its first message until its ``session_closed``: the player's pseudonym (or the box of an
anonymous player), his box now, the time played, the average bet, theo and skill theo (the pit may see skill).
Messages arrive at least once and out of order: a session's message replaces the one shown only with a seq as
high, and a closed session stays closed (the last `CLOSED_KEPT` are remembered). A message off the contract
is ignored here (the service logs and counts it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from casino_floor.ratings import RatingError, RatingMessage, parse_rating

CLOSED_KEPT = 4096
SHOWN = ("session", "player", "box", "seconds_played", "average_bet_cents", "theo_cents", "theo_skill_cents")


class RatedPlayers:
    """Every table's open rated sessions, by table and session id."""

    def __init__(self) -> None:
        self._open: dict[str, dict[str, RatingMessage]] = {}
        self._closed: dict[tuple[str, str], None] = {}

    def apply(self, payload: Mapping[str, Any]) -> str | None:
        """Fold one ``ratings`` message; the table it changed, or None."""
        try:
            message = parse_rating(payload)
        except RatingError:
            return None
        key = (message.table_id, message.session)
        if key in self._closed:
            return None
        table = self._open.setdefault(message.table_id, {})
        shown = table.get(message.session)
        if shown is not None and message.seq < shown.seq:
            return None
        if message.type == "session_closed":
            table.pop(message.session, None)
            self._closed[key] = None
            if len(self._closed) > CLOSED_KEPT:
                del self._closed[next(iter(self._closed))]
        else:
            table[message.session] = message
        return message.table_id

    def players(self, table_id: str) -> list[dict[str, Any]]:
        """The table's rated players by box, each as the page shows him."""
        sessions = sorted(self._open.get(table_id, {}).values(), key=lambda message: (message.box, message.session))
        return [{name: getattr(message, name) for name in SHOWN} for message in sessions]

    def overview(self) -> list[dict[str, Any]]:
        """Every table with a rated player seated, by table id."""
        return [{"table_id": table_id, "players": self.players(table_id)}
                for table_id in sorted(self._open) if self._open[table_id]]
