"""The feed's topic tree and the messages it publishes: pure, no I/O, no clock.

Topics live under ``<prefix>/tables/<table_id>/`` (docs/feed/asyncapi.yaml):

- ``status``  retained: ``online`` after connect, ``offline`` as the MQTT will and on shutdown;
- ``state``   retained: the latest table snapshot;
- ``events``  every journal entry, QoS 1, in journal order;
- ``alarms``  alarms raised and cleared;
- ``rounds``  one record per settled or voided round;
- ``meters``  each snapshot of the lifetime meters (a séance closed, a gaming day ended, a RAM clear);
- ``head``    retained: the journal's id and the seq and hash of the last row the broker acknowledged;
- ``ratings`` the rated sessions: the journal's `rating` rows, made by the one rating fold (feed/ratings.py).
- ``checkpoints`` the journal's sealed checkpoints, sent with the head that covers them (a reader of the rows
  elsewhere starts from one, not from row 1).

Every payload is a JSON object with ``schema_version``, ``table_id``, ``journal``
(the journal's id: a new data directory is a new journal, its seq from 1 again),
``seq`` (the journal seq; for status and state the latest seq known), ``ts``
(seconds since the epoch) and ``type``. Where a journal entry goes besides ``events`` is
the `ROUTES` table, keyed by the entry's kind: add a kind there.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from table_runtime.core.journal_rows import row_from_json
from table_runtime.errors import ConfigError
from table_runtime.feed.heads import signed
from table_runtime.journal import Checkpoint, JournalEntry
from table_runtime.version import installed_version

SCHEMA_VERSION = 1
DEFAULT_PREFIX = "casino"

TopicName = Literal["status", "state", "events", "alarms", "rounds", "head", "ratings", "checkpoints", "meters"]
TOPIC_NAMES: tuple[TopicName, ...] = ("status", "state", "events", "alarms", "rounds", "head", "ratings",
                                      "checkpoints", "meters")
_FORBIDDEN = frozenset("+#/\0")


def _check_segment(key: str, value: str, *, slashes: bool = False) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(key, "must be a non-empty string")
    forbidden = _FORBIDDEN - {"/"} if slashes else _FORBIDDEN
    if any(char in forbidden for char in value) or value.startswith("/") or value.endswith("/") or "//" in value:
        raise ConfigError(key, f"{value!r} is not usable in an MQTT topic (no +, #, empty levels)")
    return value


@dataclass(frozen=True, slots=True)
class Topics:
    """The topic names of one table under one prefix."""

    prefix: str
    table_id: str

    def __post_init__(self) -> None:
        _check_segment("feed.prefix", self.prefix, slashes=True)
        _check_segment("feed.table_id", self.table_id)

    @property
    def base(self) -> str:
        return f"{self.prefix}/tables/{self.table_id}"

    def topic(self, name: TopicName) -> str:
        return f"{self.base}/{name}"

    @property
    def status(self) -> str:
        return self.topic("status")

    @property
    def state(self) -> str:
        return self.topic("state")

    @property
    def events(self) -> str:
        return self.topic("events")

    @property
    def alarms(self) -> str:
        return self.topic("alarms")

    @property
    def rounds(self) -> str:
        return self.topic("rounds")

    @property
    def head(self) -> str:
        return self.topic("head")

    @property
    def ratings(self) -> str:
        return self.topic("ratings")

    @property
    def checkpoints(self) -> str:
        return self.topic("checkpoints")

    @property
    def meters(self) -> str:
        return self.topic("meters")


def topic_filter(prefix: str, table_id: str | None, name: TopicName | Literal["#"]) -> str:
    """A subscription filter: one table, or every table (``+``) under `prefix`."""
    _check_segment("feed.prefix", prefix, slashes=True)
    table = "+" if table_id is None else _check_segment("feed.table_id", table_id)
    return f"{prefix}/tables/{table}/{name}"


@dataclass(frozen=True, slots=True)
class FeedMessage:
    """One MQTT publication: where, what, how."""

    topic: str
    payload: dict[str, Any]
    seq: int
    qos: int = 1
    retain: bool = False

    def encode(self) -> bytes:
        return encode_payload(self.payload)


def encode_payload(payload: Mapping[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def _header(table_id: str, journal: str | None, seq: int, ts: float, type_: str) -> dict[str, Any]:
    """The common fields; `journal` None only for callers that build rows of no particular journal (the
    publisher always names it)."""
    header: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "table_id": table_id, "journal": journal,
                              "seq": seq, "ts": ts, "type": type_}
    if journal is None:
        del header["journal"]
    return header


# The `type` of an entry whose body carries none, by journal kind.
DEFAULT_TYPES: dict[str, str] = {
    "alarm": "AlarmRaised",
    "alarm_cleared": "AlarmCleared",
    "alarm_updated": "AlarmUpdated",
    "round": "RoundRecord",
    "status": "RuntimeStatus",
}


def entry_type(entry: JournalEntry) -> str:
    """The message `type` of a journal entry: the body's own, else one per kind."""
    type_ = entry.body.get("type")
    if isinstance(type_, str) and type_:
        return type_
    return DEFAULT_TYPES.get(entry.kind, entry.kind)


def event_payload(table_id: str, journal: str | None, entry: JournalEntry) -> dict[str, Any]:
    """The ``events`` payload of a journal entry (also what a replay sends)."""
    payload = _header(table_id, journal, entry.seq, entry.ts, entry_type(entry))
    payload.update(kind=entry.kind, body=entry.body, hash=entry.hash, prev_hash=entry.prev_hash)
    return payload


def event_message(topics: Topics, entry: JournalEntry, journal: str | None = None) -> FeedMessage:
    """The ``events`` message of any journal entry: the whole row, hash chain included."""
    return FeedMessage(topics.events, event_payload(topics.table_id, journal, entry), entry.seq)


def _alarm(entry: JournalEntry) -> dict[str, Any]:
    """The `alarm` of an alarm row's message: the row read by the journal's one codec (core/journal_rows.py), as
    the table wrote it. A body that does not decode (a journal no runtime would replay) is sent as stored: the feed
    relays the journal, it does not judge it (the `events` message carries the same row)."""
    try:
        return row_from_json(entry.seq, entry.kind, entry.body).to_json()
    except (KeyError, TypeError, ValueError):
        return dict(entry.body)


def alarm_raised_message(topics: Topics, entry: JournalEntry, journal: str | None = None) -> FeedMessage:
    payload = _header(topics.table_id, journal, entry.seq, entry.ts, "AlarmRaised")
    payload["alarm"] = _alarm(entry)
    return FeedMessage(topics.alarms, payload, entry.seq)


def alarm_cleared_message(topics: Topics, entry: JournalEntry, journal: str | None = None) -> FeedMessage:
    payload = _header(topics.table_id, journal, entry.seq, entry.ts, "AlarmCleared")
    payload["alarm"] = _alarm(entry)
    return FeedMessage(topics.alarms, payload, entry.seq)


def alarm_updated_message(topics: Topics, entry: JournalEntry, journal: str | None = None) -> FeedMessage:
    """An open alarm counting one more of its kind on its box: its id, count, last message and amounts."""
    payload = _header(topics.table_id, journal, entry.seq, entry.ts, "AlarmUpdated")
    payload["alarm"] = _alarm(entry)
    return FeedMessage(topics.alarms, payload, entry.seq)


def round_message(topics: Topics, entry: JournalEntry, journal: str | None = None) -> FeedMessage:
    payload = _header(topics.table_id, journal, entry.seq, entry.ts, "RoundRecord")
    payload["round"] = entry.body
    return FeedMessage(topics.rounds, payload, entry.seq)


def meters_message(topics: Topics, entry: JournalEntry, journal: str | None = None) -> FeedMessage:
    """A snapshot of the lifetime meters (a `meters` row, table_runtime/core/meters_snapshots.py), as journaled."""
    payload = _header(topics.table_id, journal, entry.seq, entry.ts, "MetersSnapshot")
    payload["snapshot"] = entry.body
    return FeedMessage(topics.meters, payload, entry.seq)


MessageBuilder = Callable[[Topics, JournalEntry, str | None], FeedMessage]

# Where each kind of journal entry is published besides ``events``.
ROUTES: dict[str, tuple[MessageBuilder, ...]] = {
    "alarm": (alarm_raised_message,),
    "alarm_cleared": (alarm_cleared_message,),
    "alarm_updated": (alarm_updated_message,),
    "round": (round_message,),
    "meters": (meters_message,),
}


def messages_for_entry(topics: Topics, entry: JournalEntry, journal: str | None = None) -> list[FeedMessage]:
    """Every message one journal entry of the journal `journal` makes: ``events`` first, then its routes."""
    return [event_message(topics, entry, journal),
            *(build(topics, entry, journal) for build in ROUTES.get(entry.kind, ()))]


StatusName = Literal["online", "offline"]


def status_message(topics: Topics, status: StatusName, *, journal: str, seq: int, ts: float,
                   reason: str | None) -> FeedMessage:
    """The retained ``status`` message (also the MQTT will, with status offline)."""
    payload = _header(topics.table_id, journal, seq, ts, "FeedStatus")
    payload.update(status=status, reason=reason, version=installed_version())
    return FeedMessage(topics.status, payload, seq, qos=1, retain=True)


def state_message(topics: Topics, snapshot: Mapping[str, Any], *, journal: str, ts: float) -> FeedMessage:
    """The retained ``state`` message wrapping a snapshot (docs/feed/schemas/state.json)."""
    seq = snapshot.get("seq", 0)
    if isinstance(seq, bool) or not isinstance(seq, int):
        seq = 0
    payload = _header(topics.table_id, journal, seq, ts, "TableState")
    payload["snapshot"] = dict(snapshot)
    return FeedMessage(topics.state, payload, seq, qos=1, retain=True)


def head_message(topics: Topics, *, journal: str, seq: int, hash_: str, ts: float,
                 key: bytes | None = None) -> FeedMessage:
    """The retained ``head``: the last row the broker acknowledged (`seq` 0 and 64 zeros before the first), with
    its ``mac`` under the table's head `key` when it has one (feed/heads.py)."""
    payload = _header(topics.table_id, journal, seq, ts, "JournalHead")
    payload["hash"] = hash_
    return FeedMessage(topics.head, signed(payload, key), seq, qos=1, retain=True)


def checkpoint_message(topics: Topics, checkpoint: Checkpoint, *, journal: str, ts: float,
                       key: bytes | None = None) -> FeedMessage:
    """A sealed checkpoint of the journal (the table's whole state after row ``seq``, as journal/checkpoints.py
    seals it), so that a reader of the rows elsewhere (the floor's round record) starts from it, not from row 1;
    signed (``mac``) under the table's head `key` as the heads are."""
    payload = _header(topics.table_id, journal, checkpoint.seq, ts, "JournalCheckpoint")
    payload.update(chain_hash=checkpoint.chain_hash, state=checkpoint.state_text, seal=checkpoint.seal)
    return FeedMessage(topics.checkpoints, signed(payload, key), checkpoint.seq, qos=1, retain=False)
