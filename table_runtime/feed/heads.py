"""The retained ``head``: when the publisher sends it (at connection, once a burst is sent past the last head, and at
least every `head_interval` seconds), and the table's signature on it.

A head names the journal's last row (seq and hash); the chain's hashes have no secret, so anyone who can publish on
the broker can make a row with a right hash. The head's ``mac`` is what only the table can make: the hex
HMAC-SHA256, keyed by the table's own head key, of the head's canonical JSON without ``mac`` (`canonical_json`:
keys sorted, no spaces, ASCII). The floor holds each table's key and counts a row in the money only once a signed
head covers it (docs/floor.md, "Only a table speaks for itself").

HMAC-SHA256 rather than a signature scheme with a public key: the standard library has it (no new dependency on
the Pi), the replay requests already use it, and the one party that checks the heads, the floor, is the one that
keeps the tables' keys. The cost: whoever reads the floor's keys could sign a table's heads, so they are kept as
secrets (environment), like the database password.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from typing import Any

from table_runtime.feed.replay_messages import MIN_SECRET_BYTES, canonical_json

MAC_FIELD = "mac"
MIN_KEY_BYTES = MIN_SECRET_BYTES


class HeadSchedule:
    """When the next head is due; times are the caller's monotonic clock."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._sent: tuple[int, float] | None = None  # seq of the last head published, and when

    def due(self, position: int, *, idle: bool, now: float) -> bool:
        """Due `interval` after the last one, and once a burst read up to `position` is sent (`idle`) past it."""
        if self._sent is None:
            return True
        seq, when = self._sent
        return (idle and position > seq) or now - when >= self.interval

    def sent(self, seq: int, now: float) -> None:
        self._sent = (seq, now)


def head_mac(key: bytes, head: Mapping[str, Any]) -> str:
    """The hex HMAC-SHA256 of `head` (its ``mac`` left out) under the table's head key."""
    return hmac.new(key, canonical_json(head), hashlib.sha256).hexdigest()


def signed(head: Mapping[str, Any], key: bytes | None) -> dict[str, Any]:
    """`head` with its ``mac`` under `key` (unchanged, without one, when the table has no head key)."""
    unsigned = {name: value for name, value in head.items() if name != MAC_FIELD}
    if key is not None:
        unsigned[MAC_FIELD] = head_mac(key, unsigned)
    return unsigned


def signed_by(head: Mapping[str, Any], keys: Iterable[bytes]) -> bool:
    """Whether `head` carries a ``mac`` made by one of `keys` (more than one while a key is being rotated)."""
    mac = head.get(MAC_FIELD)
    if not isinstance(mac, str):
        return False
    try:
        expected = [head_mac(key, head) for key in keys]
    except (TypeError, ValueError):  # a head the canonical encoding refuses (NaN) is no signed head
        return False
    return any(hmac.compare_digest(mac, made) for made in expected)
