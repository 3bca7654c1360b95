"""The floor's replay request: ask a table to publish again the journal rows the floor is missing (pure).

The request goes to ``{prefix}/tables/{tableId}/replay/request``; the table answers on `reply_to` with the rows
as ordinary ``events`` payloads, then ``ReplayDone`` (or ``ReplayRefused``). MQTT does not say who published,
so the request carries a MAC: hex HMAC-SHA256, keyed by the secret the floor shares with the tables, over the
canonical JSON (sorted keys, no spaces) of the request without ``mac``. A table answers 5,000 rows at most per
request: a longer gap is asked for in pieces.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from collections.abc import Callable
from typing import Any

MAX_ROWS = 5000


def request_topic(prefix: str, table_id: str) -> str:
    return f"{prefix}/tables/{table_id}/replay/request"


def reply_topic(prefix: str, floor_id: str) -> str:
    return f"{prefix}/floor/{floor_id}/replay"


def canonical(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, sort_keys=True, separators=(",", ":")).encode("utf-8")


def mac_of(request: dict[str, Any], secret: str) -> str:
    unsigned = {key: value for key, value in request.items() if key != "mac"}
    return hmac.new(secret.encode("utf-8"), canonical(unsigned), hashlib.sha256).hexdigest()


def replay_request(*, prefix: str, floor_id: str, journal: str, from_seq: int, to_seq: int, secret: str,
                   new_id: Callable[[], str] = lambda: uuid.uuid4().hex) -> dict[str, Any]:
    """A signed request for rows `from_seq`..`to_seq` (at most `MAX_ROWS`) of `journal`."""
    if not 1 <= from_seq <= to_seq or to_seq - from_seq >= MAX_ROWS:
        raise ValueError(f"a replay asks for 1 to {MAX_ROWS} rows from seq 1 on, not {from_seq}..{to_seq}")
    request: dict[str, Any] = {"type": "ReplayRequest", "journal": journal, "from_seq": from_seq,
                               "to_seq": to_seq, "request_id": new_id(), "floor_id": floor_id,
                               "reply_to": reply_topic(prefix, floor_id)}
    request["mac"] = mac_of(request, secret)
    return request


def verify(request: dict[str, Any], secret: str) -> bool:
    mac = request.get("mac")
    return isinstance(mac, str) and hmac.compare_digest(mac, mac_of(request, secret))


def pieces(first: int, last: int) -> list[tuple[int, int]]:
    """`first`..`last` cut into requests of at most `MAX_ROWS` rows."""
    return [(start, min(last, start + MAX_ROWS - 1)) for start in range(first, last + 1, MAX_ROWS)]
