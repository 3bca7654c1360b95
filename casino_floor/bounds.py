"""What PostgreSQL can hold, checked before it sees a message (pure): one bad message must stop nothing.

A value the store cannot take fails the whole batch's transaction, so the floor checks every field it writes at
ingest: a seq or an amount within PostgreSQL's ``bigint``, a round or a box within ``integer``, a time a finite
number, no U+0000 in any text (``text`` and ``jsonb`` refuse it), a message of at most `MAX_MESSAGE_BYTES`. A
message that fails is `Refused`, with the reason that names the field; the service sets it aside (the
``quarantine`` table, a floor alarm naming the table, one log line) and goes on with the others.
"""

from __future__ import annotations

import math
from typing import Any, Final

BIGINT_MIN: Final = -(2**63)
BIGINT_MAX: Final = 2**63 - 1
INTEGER_MIN: Final = -(2**31)
INTEGER_MAX: Final = 2**31 - 1
MAX_MESSAGE_BYTES: Final = 1 << 20  # a state snapshot is a few KB, a row less: a MiB is far past any table's message
MAX_DEPTH: Final = 64  # nesting of a payload; a table's deepest (a round record's payouts) is under 10
_NUL_ESCAPE: Final = b"\\u0000"


class Refused(ValueError):
    """A message the floor cannot store as it came; `reason` says which field and why, in one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def whole(value: Any, name: str, *, low: int = BIGINT_MIN, high: int = BIGINT_MAX) -> int:
    """`value` as a whole number within `low`..`high` (a ``bigint`` unless said), else `Refused`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused(f"{name} must be a whole number, not {_shown(value)}")
    if not low <= value <= high:
        raise Refused(f"{name} {_shown(value)} is out of range ({low}..{high})")
    return value


def seq(value: Any, name: str = "seq", *, low: int = 1) -> int:
    """A journal seq: `low` (1 for a row, 0 for a head) up to ``bigint``'s largest."""
    return whole(value, name, low=low)


def integer(value: Any, name: str) -> int:
    """A whole number within PostgreSQL's ``integer`` (a round number, a box)."""
    return whole(value, name, low=INTEGER_MIN, high=INTEGER_MAX)


def optional_integer(value: Any, name: str) -> int | None:
    return None if value is None else integer(value, name)


def optional_bigint(value: Any, name: str) -> int | None:
    return None if value is None else whole(value, name)


def finite(value: Any, name: str) -> float:
    """A time or a number the store keeps as ``double precision``: finite."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Refused(f"{name} must be a number, not {_shown(value)}")
    try:
        number = float(value)
    except OverflowError:  # a whole number of hundreds of digits (JSON allows it): no double holds it
        raise Refused(f"{name} {_shown(value)} is past a double's range") from None
    if not math.isfinite(number):
        raise Refused(f"{name} {_shown(value)} is not a finite number")
    return number


def message_size(raw: bytes | str) -> None:
    """`Refused` for a message past `MAX_MESSAGE_BYTES`."""
    size = len(raw)
    if size > MAX_MESSAGE_BYTES:
        raise Refused(f"a message of {size} bytes (at most {MAX_MESSAGE_BYTES})")


def plain(payload: Any, raw: bytes | str | None = None) -> None:
    """`Refused` for a payload nested past `MAX_DEPTH` or holding U+0000 or a lone surrogate in a key or a text.

    The raw message (when given) is looked at first: JSON holds either only as an escape (``\\u0000``,
    ``\\ud800``), so the texts are searched only when such an escape is in the message (or when there is no raw
    message to look at)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    escapes = _escapes(data)
    if not escapes and data is not None:
        if data.count(b"[") + data.count(b"{") > MAX_DEPTH:  # else too few brackets to be nested deep
            within_depth(payload, 1)  # no text to look at (no escape): only the containers walked
        return
    nul = escapes
    stack: list[tuple[Any, int]] = [(payload, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            if depth > MAX_DEPTH:
                raise Refused(f"a payload nested more than {MAX_DEPTH} deep")
            for key, item in value.items():
                if nul:
                    _storable(key, "a key")
                stack.append((item, depth + 1))
        elif isinstance(value, list):
            if depth > MAX_DEPTH:
                raise Refused(f"a payload nested more than {MAX_DEPTH} deep")
            stack.extend((item, depth + 1) for item in value)
        elif nul and isinstance(value, str):
            _storable(value, "a text")


def _escapes(data: bytes | None) -> bool:
    """The raw message may hold U+0000 or a lone surrogate (as an escape), or there is none to look at."""
    return data is None or (b"\\u" in data and (_NUL_ESCAPE in data or b"\\ud" in data or b"\\uD" in data))


def plain_but_bodies(payload: dict[str, Any], raw: bytes | str | None = None) -> None:
    """`plain` for a ``JournalRows`` message but its rows' bodies, each checked with its row (`body_within`, from
    `Row.from_payload`): a
    message of many rows has more brackets than `plain`'s fast test allows, and walking every value of its bodies
    was a tenth of the floor's time. With an escape in the message (a text to look at), the whole walk of `plain`."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if _escapes(data) or data is None:
        plain(payload, raw)
        return
    if data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
        return
    for key, value in payload.items():  # the message at depth 1, its rows' list at 2, each row at 3
        kind = type(value)
        if key == "rows" and kind is list:
            for row in value:
                if type(row) is dict:
                    for name, item in row.items():
                        if name != "body" and (type(item) is dict or type(item) is list):
                            within_depth(item, 4)
                elif type(row) is list:
                    within_depth(row, 3)
        elif kind is dict or kind is list:
            within_depth(value, 2)


def body_within(text: str, body: Any, depth: int) -> None:
    """`Refused` for a row's body nested past `MAX_DEPTH`, the body at `depth` in its message and `text` its JSON:
    its brackets counted (those in its texts too: more, never fewer), its containers walked only when there are
    more brackets than the levels left."""
    if text.count("{") + text.count("[") > MAX_DEPTH - depth:
        within_depth(body, depth)


def within_depth(value: Any, depth: int) -> None:
    """`Refused` for containers nested past `MAX_DEPTH` under `value` (at `depth`); the scalars only looked at.
    A message of many rows (a ``JournalRows``) has more brackets than the fast test above allows, and walking
    its every value with `plain`'s stack was a fifth of the floor's time."""
    if depth > MAX_DEPTH:
        raise Refused(f"a payload nested more than {MAX_DEPTH} deep")
    kind = type(value)
    if kind is dict:
        items = value.values()
    elif kind is list:
        items = value
    else:
        return
    deeper = depth + 1
    for item in items:
        if type(item) is dict or type(item) is list:
            within_depth(item, deeper)


def _storable(text: str, what: str) -> None:
    """`Refused` for a text PostgreSQL cannot hold: U+0000, or a lone surrogate (no UTF-8 for it)."""
    if "\0" in text:
        raise Refused(f"{what} with U+0000: {_shown(text)}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused(f"{what} with a lone surrogate (not UTF-8): {_shown(text)}") from None


def as_text(raw: bytes | str, limit: int = MAX_MESSAGE_BYTES) -> str:
    """A message as the store keeps what it sets aside: text, invalid UTF-8 as ``\\x..``, U+0000 as ``\\u0000``,
    cut at `limit` characters."""
    text = raw if isinstance(raw, str) else raw.decode("utf-8", "backslashreplace")
    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "backslashreplace")
    return text[:limit].replace("\0", "\\u0000")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."
