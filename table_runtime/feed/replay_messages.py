"""The replay request and its answers (pure: no I/O, no clock): what the floor asks, how its MAC is made and checked.

The floor publishes on ``{prefix}/tables/{tableId}/replay/request``::

    {"type": "ReplayRequest", "journal": "<32 hex>", "from_seq": 91, "to_seq": 100,
     "request_id": "<the floor's id>", "floor_id": "<floor>", "reply_to": "{prefix}/floor/{floor_id}/replay",
     "mac": "<64 hex>"}

``mac`` is the hex HMAC-SHA256, keyed by the secret the table and the floor share, of the request's canonical
JSON without ``mac``: `canonical_json` (keys sorted, no spaces, non-ASCII as ``\\uXXXX``, so ASCII). MQTT does not
say who published a message, so the MAC is the floor's identity. The table answers a valid request with the rows
``from_seq..to_seq`` as the same payloads as on ``events``, published to ``reply_to``, then `replay_done`; a
request whose MAC is right but which cannot be served gets `replay_refused` (a wrong MAC gets nothing).

The secret is the text of an environment variable (the table's ``feed.replay_secret_env`` names it), as UTF-8.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

REQUEST_TYPE = "ReplayRequest"
DONE_TYPE = "ReplayDone"
REFUSED_TYPE = "ReplayRefused"
MAX_ROWS = 5000  # rows one request may ask for
MIN_SECRET_BYTES = 16
REQUEST_FIELDS = frozenset({"type", "journal", "from_seq", "to_seq", "request_id", "floor_id", "reply_to", "mac"})


class ReplayRequestError(ValueError):
    """A request the table does not serve; `mac_ok`: whether it was the floor's (then it is told `reason`)."""

    def __init__(self, reason: str, *, mac_ok: bool, request_id: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.mac_ok = mac_ok
        self.request_id = request_id


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """A request whose MAC checked."""

    journal: str
    from_seq: int
    to_seq: int
    request_id: str
    floor_id: str
    reply_to: str

    @property
    def rows(self) -> int:
        return self.to_seq - self.from_seq + 1


def request_topic(prefix: str, table_id: str) -> str:
    """Where the floor asks one table for rows."""
    return f"{prefix}/tables/{table_id}/replay/request"


def reply_topic(prefix: str, floor_id: str) -> str:
    """Where a table answers the floor `floor_id` (the only ``reply_to`` it accepts)."""
    return f"{prefix}/floor/{floor_id}/replay"


def canonical_json(request: Mapping[str, Any]) -> bytes:
    """The bytes the MAC covers: the request without ``mac``, keys sorted, no spaces, every character past ASCII
    escaped as ``\\uXXXX`` (lowercase hex; Python's ``json.dumps`` default), so plain ASCII."""
    unsigned = {key: value for key, value in request.items() if key != "mac"}
    return json.dumps(unsigned, sort_keys=True, separators=(",", ":"), allow_nan=False).encode("ascii")


def request_mac(secret: bytes, request: Mapping[str, Any]) -> str:
    """The hex HMAC-SHA256 of `request` (its ``mac`` field, if any, left out) under `secret`."""
    return hmac.new(secret, canonical_json(request), hashlib.sha256).hexdigest()


def build_request(secret: bytes, *, prefix: str, journal: str, from_seq: int, to_seq: int, request_id: str,
                  floor_id: str) -> dict[str, Any]:
    """A signed request, as the floor publishes it on `request_topic`."""
    request: dict[str, Any] = {
        "type": REQUEST_TYPE, "journal": journal, "from_seq": from_seq, "to_seq": to_seq,
        "request_id": request_id, "floor_id": floor_id, "reply_to": reply_topic(prefix, floor_id),
    }  # fmt: skip
    request["mac"] = request_mac(secret, request)
    return request


def check_request(secret: bytes, payload: object, *, prefix: str) -> ReplayRequest:
    """The request in `payload` if its MAC is right and its fields are well formed; else `ReplayRequestError`.

    Checks the MAC first: nothing but the MAC's verdict is said about a message the floor did not sign. The range
    against the journal (its id, its end, `MAX_ROWS`) is the table's to check (`check_range`).
    """
    if not isinstance(payload, Mapping) or payload.get("type") != REQUEST_TYPE:
        raise ReplayRequestError("not a ReplayRequest", mac_ok=False)
    mac = payload.get("mac")
    if not isinstance(mac, str) or not _is_hex(mac, 64):
        raise ReplayRequestError("no mac", mac_ok=False)
    try:
        expected = request_mac(secret, payload)
    except (TypeError, ValueError) as error:
        raise ReplayRequestError(f"not JSON: {error}", mac_ok=False) from error
    if not hmac.compare_digest(expected, mac):
        raise ReplayRequestError("wrong mac", mac_ok=False)
    request_id = payload.get("request_id")
    if not isinstance(request_id, str) or not request_id:
        raise ReplayRequestError("request_id must be a non-empty string", mac_ok=True)
    unknown = sorted(set(payload) - REQUEST_FIELDS)
    if unknown:
        raise ReplayRequestError(f"unknown fields {', '.join(unknown)}", mac_ok=True, request_id=request_id)
    for key in ("journal", "floor_id", "reply_to"):
        if not isinstance(payload.get(key), str) or not payload[key]:
            raise ReplayRequestError(f"{key} must be a non-empty string", mac_ok=True, request_id=request_id)
    for key in ("from_seq", "to_seq"):
        value = payload.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ReplayRequestError(f"{key} must be a seq (a whole number from 1)", mac_ok=True,
                                     request_id=request_id)
    floor_id = payload["floor_id"]
    if any(char in floor_id for char in "+#/\0"):
        raise ReplayRequestError("floor_id is not usable in a topic", mac_ok=True, request_id=request_id)
    if payload["reply_to"] != reply_topic(prefix, floor_id):
        raise ReplayRequestError(f"reply_to must be {reply_topic(prefix, floor_id)}", mac_ok=True,
                                 request_id=request_id)
    return ReplayRequest(payload["journal"], payload["from_seq"], payload["to_seq"], request_id, floor_id,
                         payload["reply_to"])


def check_range(request: ReplayRequest, *, journal: str, last_seq: int, max_rows: int = MAX_ROWS) -> str | None:
    """Why the table cannot serve `request` from its journal (`journal` id, rows 1..`last_seq`), if it cannot."""
    if request.journal != journal:
        return f"journal {request.journal} is not this table's journal ({journal})"
    if request.from_seq > request.to_seq:
        return f"from_seq {request.from_seq} is after to_seq {request.to_seq}"
    if request.rows > max_rows:
        return f"{request.rows} rows asked, at most {max_rows} per request"
    if request.to_seq > last_seq:
        return f"to_seq {request.to_seq} is past the journal's last row {last_seq}"
    return None


def replay_done(request: ReplayRequest) -> dict[str, Any]:
    """The message after the last replayed row."""
    return {"type": DONE_TYPE, "request_id": request.request_id, "journal": request.journal,
            "from_seq": request.from_seq, "to_seq": request.to_seq}


def replay_refused(request_id: str, reason: str) -> dict[str, Any]:
    """The answer to a request with the right MAC that the table does not serve."""
    return {"type": REFUSED_TYPE, "request_id": request_id, "reason": reason}


def _is_hex(text: str, length: int) -> bool:
    return len(text) == length and all(char in "0123456789abcdef" for char in text)
