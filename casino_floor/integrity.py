"""The floor's integrity check of one table's journal, as its rows and heads arrive (pure: no I/O, no clock read).

Rows arrive at least once and out of order. `JournalTrack` keeps the highest seq up to which every row is held
(`contiguous_seq`) and the hash there; each row's own hash is recomputed on arrival (`table_runtime`'s
`entry_hash` over the canonical body), each row joining the contiguous prefix must name the hash before it as
its ``prev_hash``, and each published head must match the row it names. What does not is a `FloorAlarm`:

- ``gap``: rows known to exist (a later row or a head) are missing, and the prefix has not moved for the grace
  period; the floor asks the table to replay them;
- ``chain_broken``: a row's hash does not match its contents, or its prev_hash the row before;
- ``head_rewritten``: a head names a row the floor holds with another hash;
- ``tail_truncated``: a head is behind rows (or an earlier head) the floor already holds;
- ``new_journal``: the table publishes under a journal id the floor has not seen for it.

A row whose hash is not the hash of its fields, or that is off the chain, is not stored with the journal's rows:
the store sets it aside as evidence (``evidence``) and the floor asks the table for that row again. With a key for
the table (`JournalTrack.signed_seq` not None), only the rows a head signed by the table covers count in the
money: ``signed_seq`` is the highest seq of the prefix whose hash a signed head named.
"""

from __future__ import annotations

import enum
import json
import math
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

from casino_floor import bounds
from table_runtime.journal import GENESIS_HASH, encode_body, entry_hash

RECENT_HASHES = 1024  # hashes of the last rows of the prefix kept to check a head without a query (a head lags less)


class FloorAlarmKind(enum.StrEnum):
    GAP = "gap"
    CHAIN_BROKEN = "chain_broken"
    HEAD_REWRITTEN = "head_rewritten"
    TAIL_TRUNCATED = "tail_truncated"
    NEW_JOURNAL = "new_journal"
    QUARANTINED = "quarantined"  # a message the store cannot hold as it came: set aside, the others go on
    MISROUTED = "misrouted"  # a message naming another table than its topic: evidence, never counted
    BAD_SIGNATURE = "bad_signature"  # a head not signed by the table's key: evidence, never applied
    GAP_TOO_LARGE = "gap_too_large"  # more rows missing than a replay may ask for: not asked


@dataclass(frozen=True, slots=True)
class FloorAlarm:
    """What the check found, naming the table, the journal and the rows (first_seq..last_seq)."""

    table_id: str
    journal: str
    kind: FloorAlarmKind
    first_seq: int
    last_seq: int
    message: str


class PayloadError(ValueError):
    """An ``events`` payload that is not a journal row."""


class Row(NamedTuple):
    """One journal row off the ``events`` topic; `body` is the canonical JSON text the chain hashes. A tuple: the
    floor makes one for every row it takes, in half the time of a frozen dataclass."""

    table_id: str
    journal: str
    seq: int
    ts: float
    kind: str
    type: str
    body: str
    prev_hash: str
    hash: str

    @classmethod
    def from_payload(cls, payload: dict[str, Any], *, body_at: int | None = None) -> Row:
        """The row of an ``events`` payload; `body_at`: the depth of its body in its message, when the message's
        bounds left the body's to the row (`bounds.plain_but_bodies`)."""
        try:
            table_id, seq, ts, kind = payload["table_id"], payload["seq"], payload["ts"], payload["kind"]
            body, prev_hash, hash_ = payload["body"], payload["prev_hash"], payload["hash"]
        except KeyError as error:
            raise PayloadError(f"an events payload without {error.args[0]!r}") from error
        journal = payload.get("journal", "")
        if not (isinstance(table_id, str) and table_id and isinstance(journal, str) and isinstance(kind, str)
                and isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1
                and isinstance(ts, (int, float)) and not isinstance(ts, bool) and isinstance(body, dict)
                and isinstance(prev_hash, str) and isinstance(hash_, str)):
            raise PayloadError(f"an events payload with a field of the wrong type (seq {seq!r})")
        if seq > bounds.BIGINT_MAX:  # (1 and up checked above)
            bounds.seq(seq)  # its reason
        if type(ts) is not float or not math.isfinite(ts):  # an int, or a float past a double: checked, its reason
            ts = bounds.finite(ts, "ts")
        type_ = payload.get("type")
        if not isinstance(type_, str):
            type_ = kind
        text = _as_sent(body, body_at)
        if entry_hash(prev_hash, seq, ts, kind, text) == hash_:
            return cls(table_id, journal, seq, ts, kind, type_, text, prev_hash, hash_)
        # keys not in the canonical order after all: the journal's own encoding
        text = encode_body(body)
        return cls(table_id, journal, seq, ts, kind, type_, text, prev_hash, hash_,
                   entry_hash(prev_hash, seq, ts, kind, text) == hash_)

    hash_ok: bool = True  # the row's hash matches its contents (`from_payload` checks it)


# An integer orjson would read as a float (past 64 bits) is a number of 19 digits or more: in JSON a number
# follows ":", "[", "," or white space, and may start with "-". Found by mapping every digit to "0", those bytes
# to "|", "-" to itself and every other byte to " ", then looking for "|" and nineteen "0" (or "|-" and them): a
# tenth of the time of a regular expression on a table's messages (bench/README.md, "The floor"). A run of digits
# inside a hash (hex: after a letter or a quote) is no number: a message of many rows holds enough hashes that
# one in five of 40 rows had such a run and went to the standard decoder when any run of 19 digits did.
_NUMBER_STARTS = frozenset(b":[, \t\n\r")
_DIGITS_AS_ZEROS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x7C if byte in _NUMBER_STARTS else
                         byte if byte == 0x2D else 0x20 for byte in range(256))
_LONG_NUMBER = b"|" + b"0" * 19
_LONG_NEGATIVE = b"|-" + b"0" * 19
_LONG_AT_START = (b"0" * 19, b"-" + b"0" * 19)  # a document that is a number (no table sends one)


def decode_payload(raw: bytes | str) -> Any:
    """A feed message's JSON, as the standard decoder reads it (ValueError if it is none): orjson's decoding,
    faster, except for a message with a number of 19 digits or more (orjson reads an integer past 64 bits as a
    float) or what orjson refuses (NaN)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    shape = data.translate(_DIGITS_AS_ZEROS)
    if _LONG_NUMBER not in shape and _LONG_NEGATIVE not in shape and not shape.startswith(_LONG_AT_START):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(raw, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError as error:  # nested past the interpreter's stack: no table sends that
        raise ValueError("a payload nested too deep") from error


def _finite(text: str) -> float:
    """A JSON number as a float, refused when it is past a double's range (1e400: no table sends it)."""
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is past a double's range")
    return number


def _no_constant(name: str) -> Any:
    """NaN and Infinity are not JSON (a table never sends them: its encoder refuses them)."""
    raise ValueError(f"{name} is not a JSON value")


def _as_sent(body: dict[str, Any], depth: int | None = None) -> str:
    """The body's JSON in the order it came: a table sends the canonical text decoded, so its keys are sorted
    already and this is the text the chain hashed (without the cost of sorting again).

    orjson writes the same text as the journal's encoder for what tables send, faster; where it cannot (an
    integer past 64 bits) the standard encoder does, and a float it writes otherwise fails the hash check and is
    encoded again the journal's way (`Row.from_payload`).

    With `depth` (the body's in its message, its bounds not yet checked), `bounds.Refused` for a body nested too
    deep: checked on the text, or before the standard encoder would recurse into it."""
    try:
        text = orjson.dumps(body).decode("utf-8")
    except orjson.JSONEncodeError:
        if depth is not None:
            bounds.within_depth(body, depth)
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    if depth is not None:
        bounds.body_within(text, body, depth)
    return text


def _rows(first: int, last: int) -> str:
    return f"row {first}" if first == last else f"rows {first}..{last}"


@dataclass
class JournalTrack:
    """What the floor holds of one (table, journal) and what it has checked; see the module docstring."""

    table_id: str
    journal: str
    contiguous_seq: int = 0
    contiguous_hash: str = GENESIS_HASH
    max_seq: int = 0
    head_seq: int | None = None
    head_hash: str | None = None
    head_ts: float | None = None
    max_ts: float | None = None  # when the row `max_seq` was journaled
    stalled_since: float | None = None  # when the prefix last stopped short of rows known to exist
    pending: dict[int, tuple[str, str]] = field(default_factory=dict)  # seq -> (prev_hash, hash), above the prefix
    heads_waiting: dict[int, str] = field(default_factory=dict)  # heads beyond the prefix: seq -> hash
    recent: OrderedDict[int, str] = field(default_factory=OrderedDict)
    changed: bool = False  # since the store last wrote this track
    # With a key for the table: the highest seq of the prefix a head signed by the table covers, and its hash
    # (None: no key, every row counts as it arrives); `signed_waiting`: signed heads beyond the prefix.
    signed_seq: int | None = None
    signed_hash: str | None = None
    signed_waiting: dict[int, str] = field(default_factory=dict)
    # Rows refused by `advance`, to set aside as evidence: (first, last) seqs. With a key, the unsigned rows before
    # a row off the chain are no surer than it (a forged row chained on takes a seq first): they go too.
    off_chain: list[tuple[int, int]] = field(default_factory=list)
    signed_lookups: dict[int, str] = field(default_factory=dict)  # signed heads waiting for the store's hash

    def _alarm(self, kind: FloorAlarmKind, first: int, last: int, message: str) -> FloorAlarm:
        return FloorAlarm(self.table_id, self.journal, kind, first, last, f"table {self.table_id}: {message}")

    def is_new(self, seq: int) -> bool:
        return seq > self.contiguous_seq and seq not in self.pending

    def hash_mismatch(self, row: Row) -> FloorAlarm:
        """The alarm of a row whose hash does not match its contents (kept apart as evidence, not added)."""
        return self._alarm(FloorAlarmKind.CHAIN_BROKEN, row.seq, row.seq,
                           f"row {row.seq}: hash does not match its contents (altered or forged): set aside as "
                           "evidence")

    def add(self, row: Row) -> list[FloorAlarm]:
        """Take a row the store is writing (call `is_new` first, and keep a row whose hash does not match its
        contents apart: `hash_mismatch`); the alarms it raises."""
        alarms: list[FloorAlarm] = []
        if not row.hash_ok:
            alarms.append(self.hash_mismatch(row))
        self.pending[row.seq] = (row.prev_hash, row.hash)
        if row.seq > self.max_seq:
            self.max_seq, self.max_ts = row.seq, row.ts
        self.changed = True
        return alarms

    def advance(self, now: float) -> list[FloorAlarm]:
        """Move the contiguous prefix over the rows now held; chain and head alarms on the way."""
        alarms: list[FloorAlarm] = []
        start, recent = self.contiguous_seq, self.recent
        while self.contiguous_seq + 1 in self.pending:
            seq = self.contiguous_seq + 1
            prev_hash, hash_ = self.pending.pop(seq)
            if prev_hash != self.contiguous_hash:  # off the chain: evidence, and the row asked for again
                first = seq
                if self.signed_seq is not None and self.contiguous_seq > self.signed_seq:
                    first = self.signed_seq + 1
                    self._back_to_signed()
                unsigned = f" with the unsigned rows {first}..{seq - 1} before it" if first < seq else ""
                alarms.append(self._alarm(FloorAlarmKind.CHAIN_BROKEN, seq, seq,
                                          f"row {seq}: prev_hash does not match the hash of row {seq - 1} "
                                          f"(row replaced, reordered or forged): set aside as evidence{unsigned}, "
                                          "asked for again"))
                self.off_chain.append((first, seq))
                self.changed = True
                break
            self.contiguous_seq, self.contiguous_hash = seq, hash_
            recent[seq] = hash_  # the last RECENT_HASHES of the prefix
            if len(recent) > RECENT_HASHES:
                recent.popitem(last=False)
            waiting = self.heads_waiting.pop(seq, None)
            if waiting is not None and waiting != hash_:
                alarms.append(self._head_rewritten(seq, waiting, hash_))
            signed = self.signed_waiting.pop(seq, None)
            if signed is not None and signed == hash_:
                self._signed(seq, hash_)
        if self.contiguous_seq != start:
            self.changed = True
            self.stalled_since = None
        if self.missing():
            if self.stalled_since is None:
                self.stalled_since = now
        else:
            self.stalled_since = None
        return alarms

    def _head_rewritten(self, seq: int, head_hash: str, held: str) -> FloorAlarm:
        return self._alarm(FloorAlarmKind.HEAD_REWRITTEN, seq, seq,
                           f"the head names row {seq} with hash {head_hash[:12]}, the floor holds {held[:12]} "
                           "(journal rewritten on the table)")

    def _back_to_signed(self) -> None:
        """The prefix back to the last row a signed head covers (the rows after it are set aside and asked again)."""
        assert self.signed_seq is not None
        self.contiguous_seq = self.signed_seq
        self.contiguous_hash = self.signed_hash if self.signed_seq and self.signed_hash else GENESIS_HASH
        for seq in [seq for seq in self.recent if seq > self.signed_seq]:
            del self.recent[seq]

    def _signed(self, seq: int, hash_: str) -> None:
        if self.signed_seq is not None and seq > self.signed_seq:
            self.signed_seq, self.signed_hash, self.changed = seq, hash_, True

    def head(self, seq: int, hash_: str, held_hash: str | None = None, *, ts: float | None = None,
             signed: bool = False) -> list[FloorAlarm]:
        """Take a published head (`ts`: when the table published it); `held_hash` is the stored hash of row `seq`
        when the caller looked it up; `signed`: the head carries the table's valid signature (the rows up to it
        count in the money once the prefix holds them with that hash).

        A head is retained, so an old copy may come after newer rows: it says the tail was cut only when it was
        published after the rows past it were journaled (or after a later head)."""
        alarms: list[FloorAlarm] = []
        signed = signed or (held_hash is not None and self.signed_lookups.pop(seq, None) == hash_)
        after_rows = seq < self.max_seq and ts is not None and self.max_ts is not None and ts > self.max_ts
        after_head = (self.head_seq is not None and seq < self.head_seq and ts is not None
                      and self.head_ts is not None and ts > self.head_ts)
        if after_rows or after_head:
            behind = max(self.max_seq, self.head_seq or 0)
            alarms.append(self._alarm(FloorAlarmKind.TAIL_TRUNCATED, seq + 1, behind,
                                      f"the head is row {seq} but the floor holds {_rows(seq + 1, behind)} "
                                      "(rows cut from the end of the table's journal)"))
        if self.head_seq is None or seq >= self.head_seq or after_head:
            self.head_seq, self.head_hash, self.head_ts, self.changed = seq, hash_, ts, True
        if seq > self.contiguous_seq:
            self.heads_waiting[seq] = hash_
            if signed:
                self.signed_waiting[seq] = hash_
            return alarms
        held = held_hash if held_hash is not None else self.held_hash(seq)
        if held is not None and held != hash_:
            alarms.append(self._head_rewritten(seq, hash_, held))
        elif held is not None and signed:
            self._signed(seq, hash_)
        return alarms

    def held_hash(self, seq: int) -> str | None:
        """The hash of row `seq` of the prefix if kept in memory (else the store has it)."""
        if seq == self.contiguous_seq:
            return self.contiguous_hash
        if seq == 0:
            return GENESIS_HASH
        return self.recent.get(seq)

    def missing(self) -> list[tuple[int, int]]:
        """The ranges of seqs known to exist (a later row, a head) and not held, in order."""
        known_end = max(self.max_seq, self.head_seq or 0)
        ranges: list[tuple[int, int]] = []
        cursor = self.contiguous_seq + 1
        for seq in sorted(self.pending):
            if seq > cursor:
                ranges.append((cursor, seq - 1))
            cursor = seq + 1
        if known_end >= cursor:
            ranges.append((cursor, known_end))
        return ranges

    def gap_alarms(self, now: float, grace: float) -> list[FloorAlarm]:
        """A ``gap`` alarm per missing range once the prefix has been stalled for `grace` seconds."""
        if self.stalled_since is None or now - self.stalled_since < grace:
            return []
        return [self._alarm(FloorAlarmKind.GAP, first, last,
                            f"{_rows(first, last)} missing at the floor (journal {self.journal or '-'}); replay asked")
                for first, last in self.missing()]


def new_journal_alarm(table_id: str, journal: str, previous: dict[str, int]) -> FloorAlarm:
    """A table publishing under a journal id not seen before, while others are known (`previous`: id -> max seq)."""
    before = ", ".join(f"{ident or '-'} (last row {seq})" for ident, seq in sorted(previous.items()))
    return FloorAlarm(table_id, journal, FloorAlarmKind.NEW_JOURNAL, 1, 0,
                      f"table {table_id}: a new journal {journal or '-'} after {before} "
                      "(journal replaced or reset on the table)")
