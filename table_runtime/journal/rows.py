"""One journal row as the table reads it, and the checks a kind, a time and a body pass before they are stored."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Iterator, Mapping
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


def paged_entries(fetch: Callable[[str, tuple[Any, ...]], list[Any]], after_seq: int, limit: int | None,
                  kinds: Collection[str] | None, exclude: Collection[str]) -> Iterator[JournalEntry]:
    """Rows with seq > `after_seq` in seq order, at most `limit`, only of `kinds` if given, none of `exclude`, read
    `PAGE_ROWS` at a time through `fetch(query, parameters)` (the journal's connection under its lock, or the
    audit's read-only one): appends may go on between two pages."""
    kind_list = sorted(kinds) if kinds is not None else []
    excluded = sorted(exclude)
    where = "seq > ?" + (f" AND kind IN ({', '.join('?' * len(kind_list))})" if kinds is not None else "")
    where += f" AND kind NOT IN ({', '.join('?' * len(excluded))})" if excluded else ""
    query = f"SELECT seq, ts, kind, body, prev_hash, hash FROM entries WHERE {where} ORDER BY seq LIMIT ?"
    remaining = limit
    while remaining is None or remaining > 0:
        page = PAGE_ROWS if remaining is None else min(PAGE_ROWS, remaining)
        rows = fetch(query, (after_seq, *kind_list, *excluded, page))
        for seq, ts, kind, body_text, prev_hash, digest in rows:
            yield JournalEntry(seq, ts, kind, json.loads(body_text), prev_hash, digest)
        if len(rows) < page:
            return
        after_seq = rows[-1][0]
        if remaining is not None:
            remaining -= len(rows)
