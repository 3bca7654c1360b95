"""Many journal rows in one ``events`` message (schema version 2, type ``JournalRows``): pure, no I/O.

Each MQTT message costs its receiver a packet read, a message object and an acknowledgement, whatever it holds;
at a floor following a hundred tables that cost was 40 % of the floor's time (bench/README.md, "The floor").
With `FeedSettings.rows_per_message` above 1 the publisher sends the rows it has pending (a table step's rows,
or a backlog) as one message of up to that many rows and `MAX_ROWS_BYTES`, on the same ``events`` topic, in seq
order: the broker's ACLs and the consumers' subscriptions stay as they are (docs/feed/asyncapi.yaml,
``JournalRows``; docs/feed/schemas/journal_rows.json).

A row in the message is a version 1 ``events`` payload without the fields the message holds once
(``schema_version``, ``table_id``, ``journal``): `event_rows` gives back exactly the version 1 payloads, so a
consumer folds both shapes with the same code. The default (1 row a message) sends version 1 messages only: a
consumer older than version 2 keeps working until its table is switched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from table_runtime.feed.messages import (
    ROUTES,
    FeedMessage,
    Topics,
    encode_payload,
    event_payload,
    messages_for_entry,
)
from table_runtime.journal import JournalEntry

ROWS_VERSION = 2
ROWS_TYPE = "JournalRows"
MAX_ROWS_BYTES = 256 * 1024  # a message's rows at most (a row alone past it goes alone); a floor takes 1 MiB
HEADER_FIELDS = ("schema_version", "table_id", "journal")  # in the message once, in each version 1 payload


class RowsMessageError(ValueError):
    """A ``JournalRows`` message whose rows cannot be read (not a list, a row not an object)."""


def is_rows_message(payload: dict[str, Any]) -> bool:
    """The ``events`` payload is a version 2 ``JournalRows`` message (else a version 1 row)."""
    return payload.get("type") == ROWS_TYPE and payload.get("schema_version") == ROWS_VERSION


def _row(entry: JournalEntry) -> dict[str, Any]:
    payload = event_payload("", None, entry)
    for name in HEADER_FIELDS:
        payload.pop(name, None)
    return payload


def rows_message(topics: Topics, entries: Sequence[JournalEntry], journal: str) -> FeedMessage:
    """One ``events`` message of `entries` (consecutive rows, oldest first); its ``seq`` and ``ts`` are the last
    row's, as a version 1 message's are its row's."""
    if not entries:
        raise ValueError("a JournalRows message holds at least one row")
    last = entries[-1]
    payload: dict[str, Any] = {"schema_version": ROWS_VERSION, "table_id": topics.table_id, "journal": journal,
                               "seq": last.seq, "ts": last.ts, "type": ROWS_TYPE,
                               "rows": [_row(entry) for entry in entries]}
    return FeedMessage(topics.events, payload, last.seq)


def event_rows(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The version 1 ``events`` payloads an ``events`` message holds: itself (version 1), or each of its rows
    with the message's header (version 2). `RowsMessageError` for rows that are not a list of objects."""
    if not is_rows_message(payload):
        return [payload]
    rows = payload.get("rows")
    if not isinstance(rows, list) or not rows:
        raise RowsMessageError("a JournalRows message without its rows")
    header = {"schema_version": 1, "table_id": payload.get("table_id")}
    if "journal" in payload:
        header["journal"] = payload["journal"]
    out = []
    for row in rows:
        if not isinstance(row, dict):
            raise RowsMessageError("a JournalRows message with a row that is not an object")
        out.append({**header, **row})
    return out


Extra = Callable[[JournalEntry], Iterable[FeedMessage]]  # messages an entry makes besides its own (ratings)


def chunks(entries: Sequence[JournalEntry], rows_per_message: int,
           max_bytes: int = MAX_ROWS_BYTES) -> list[list[JournalEntry]]:
    """`entries` cut into runs of at most `rows_per_message` rows and `max_bytes` of bodies (a larger row alone)."""
    out: list[list[JournalEntry]] = []
    run: list[JournalEntry] = []
    size = 0
    for entry in entries:
        weight = len(encode_payload(entry.body)) + 256  # the row's other fields, about
        if run and (len(run) >= rows_per_message or size + weight > max_bytes):
            out.append(run)
            run, size = [], 0
        run.append(entry)
        size += weight
    if run:
        out.append(run)
    return out


def messages_for_entries(topics: Topics, entries: Sequence[JournalEntry], journal: str, *, rows_per_message: int,
                         extra: Extra = lambda entry: ()) -> list[tuple[list[FeedMessage], int]]:
    """What the publisher sends for `entries`, in groups: each group's messages, and the seq its last message's
    acknowledgement completes (every message of the group and before it acknowledged: the cursor moves there).

    One row a message (version 1): a group per entry, its ``events`` message then its routes. More: a group per
    chunk, its ``JournalRows`` message, then each entry's routes (``alarms``, ``rounds``) and `extra`, in seq
    order; each topic keeps the journal's order."""
    if rows_per_message <= 1:
        return [([*messages_for_entry(topics, entry, journal), *extra(entry)], entry.seq) for entry in entries]
    groups = []
    for run in chunks(entries, rows_per_message):
        routed = [build(topics, entry, journal) for entry in run for build in ROUTES.get(entry.kind, ())]
        groups.append(([rows_message(topics, run, journal), *routed,
                        *(message for entry in run for message in extra(entry))], run[-1].seq))
    return groups
