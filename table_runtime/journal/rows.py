"""One journal row as the table reads it, and the checks a kind, a time and a body pass before they are stored."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from table_runtime.errors import JournalError

PAGE_ROWS = 500  # rows read per query: readers never hold the connection between pages


class JournalBodyError(JournalError, TypeError):
    """A kind or body that cannot be journaled (not JSON, NaN, bad kind)."""


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One row: the table-wide `seq`, when (`ts`, seconds since the epoch), what."""

    seq: int
    ts: float
    kind: str
    body: dict[str, Any]
    prev_hash: str
    hash: str


def encode_body(body: Mapping[str, Any]) -> str:
    """The canonical JSON text of a body: sorted keys, compact, no NaN."""
    if not isinstance(body, Mapping):
        raise JournalBodyError(f"a journal body is a mapping, not {type(body).__name__}")
    try:
        text = json.dumps(dict(body), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")  # a lone surrogate (JSON may carry "\ud800") is no text the chain can hash or store
    except (TypeError, ValueError) as error:  # UnicodeEncodeError is a ValueError
        raise JournalBodyError(f"body is not plain JSON: {error}") from error
    return text


def check_kind(kind: str) -> str:
    """`kind`, if it is one a row may have (like `check_ts`)."""
    if not isinstance(kind, str) or not kind or "\n" in kind or not _is_utf8(kind):
        raise JournalBodyError(f"a journal kind is a non-empty one-line string, not {kind!r}")
    return kind


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_ts(ts: float) -> float:
    if isinstance(ts, bool) or not isinstance(ts, (int, float)) or not math.isfinite(ts):
        raise JournalBodyError(f"ts must be a finite number of seconds, not {ts!r}")
    return float(ts)
