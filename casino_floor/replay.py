"""The floor's replay request: ask a table to publish again the journal rows the floor is missing.

The message, its MAC and its topics are the tables' own (`table_runtime.feed.replay_messages`): the request
goes to ``{prefix}/tables/{tableId}/replay/request``, signed with the hex HMAC-SHA256 of its canonical JSON
under the secret the floor shares with the tables; the table answers on ``reply_to`` with the rows as ordinary
``events`` payloads, then ``ReplayDone`` (or ``ReplayRefused``). A table serves `MAX_ROWS` rows at most per
request: a longer gap is asked for in pieces.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from table_runtime.feed.replay_messages import MAX_ROWS, build_request, reply_topic, request_topic

__all__ = ["MAX_ROWS", "pieces", "replay_request", "reply_topic", "request_topic"]


def replay_request(*, prefix: str, floor_id: str, journal: str, from_seq: int, to_seq: int, secret: str,
                   new_id: Callable[[], str] = lambda: uuid.uuid4().hex) -> dict[str, Any]:
    """A signed request for rows `from_seq`..`to_seq` (at most `MAX_ROWS`) of `journal`."""
    if not 1 <= from_seq <= to_seq or to_seq - from_seq >= MAX_ROWS:
        raise ValueError(f"a replay asks for 1 to {MAX_ROWS} rows from seq 1 on, not {from_seq}..{to_seq}")
    return build_request(secret.encode("utf-8"), prefix=prefix, journal=journal, from_seq=from_seq, to_seq=to_seq,
                         request_id=new_id(), floor_id=floor_id)


def pieces(first: int, last: int) -> list[tuple[int, int]]:
    """`first`..`last` cut into requests of at most `MAX_ROWS` rows."""
    return [(start, min(last, start + MAX_ROWS - 1)) for start in range(first, last + 1, MAX_ROWS)]
