"""What the floor keeps apart from a table's rows: a message the store cannot hold (``quarantine``) and a row that is
not its table's word (``evidence``), each with its reason and a floor alarm naming the table (migration 0004).

A quarantined message is one the store would refuse as it came (a seq or an amount past ``bigint``, text with
U+0000, too large, not JSON): kept so that nothing is lost, while the session goes on with the other messages.
Evidence is a row the floor will not count: it names another table than its topic (``misrouted``), its hash is not
the hash of its fields (``hash_mismatch``), it is off the chain (``off_chain``), or it is a head the table's key
did not sign (``bad_signature``). Neither is ever in ``events`` or in the money.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Any

from casino_floor.bounds import BIGINT_MAX, as_text
from casino_floor.integrity import FloorAlarm, FloorAlarmKind


class EvidenceKind(enum.StrEnum):
    MISROUTED = "misrouted"
    HASH_MISMATCH = "hash_mismatch"
    OFF_CHAIN = "off_chain"
    BAD_SIGNATURE = "bad_signature"


@dataclass(frozen=True, slots=True, kw_only=True)
class SetAside:
    """One message kept apart: `evidence` names its kind (None: quarantined); `table_id` is the topic's table."""

    table_id: str
    topic: str
    reason: str
    payload: str
    evidence: EvidenceKind | None = None
    journal: str = ""
    seq: int | None = None

    def quarantine_row(self) -> tuple[Any, ...]:
        return self.table_id, self.topic, self.reason, self.payload

    def evidence_row(self) -> tuple[Any, ...]:
        return self.table_id, self.journal, self.seq, str(self.evidence), self.reason, self.payload


@dataclass(frozen=True, slots=True, kw_only=True)
class Demoted:
    """Rows stored among the journal's rows found off the chain once the prefix reached them (held above a gap), or
    unsigned before such a row: the store moves them to ``evidence`` and takes what derived from them (rounds,
    buy-ins, alarms) back out; the floor asks the table for them again."""

    table_id: str
    journal: str
    first_seq: int
    last_seq: int
    reason: str


def payload_text(payload: Any, raw: bytes | str | None) -> str:
    """The message as the store keeps it apart: the bytes received when known, else the decoded payload again."""
    if raw is not None:
        return as_text(raw)
    return as_text(json.dumps(payload, ensure_ascii=False, default=repr))


def seq_of(payload: Any) -> int:
    """The message's seq when it is one the store can hold, else 0 (for the alarm's row)."""
    value = payload.get("seq") if isinstance(payload, dict) else None
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= BIGINT_MAX
    return value if ok else 0  # type: ignore[return-value]


def journal_of(payload: Any) -> str:
    value = payload.get("journal", "") if isinstance(payload, dict) else ""
    return value if isinstance(value, str) and len(value) <= 64 and "\0" not in value else ""


def quarantined(table_id: str, topic: str, reason: str, payload: Any, raw: bytes | str | None) -> SetAside:
    return SetAside(table_id=table_id, topic=topic, reason=reason, payload=payload_text(payload, raw),
                    journal=journal_of(payload), seq=seq_of(payload))


def quarantine_alarm(aside: SetAside) -> FloorAlarm:
    seq = aside.seq or 0
    return FloorAlarm(aside.table_id, aside.journal, FloorAlarmKind.QUARANTINED, seq, seq,
                      f"table {aside.table_id}: a message on {aside.topic.rsplit('/', 1)[-1]} set aside in quarantine "
                      f"({aside.reason}); the other messages are stored")


def misrouted_alarm(aside: SetAside, named: str) -> FloorAlarm:
    seq = aside.seq or 0
    return FloorAlarm(aside.table_id, aside.journal, FloorAlarmKind.MISROUTED, seq, seq,
                      f"table {aside.table_id}: a message on its {aside.topic.rsplit('/', 1)[-1]} topic names table "
                      f"{named[:40]!r}: kept as evidence, never counted")


def bad_signature_alarm(aside: SetAside) -> FloorAlarm:
    seq = aside.seq or 0
    return FloorAlarm(aside.table_id, aside.journal, FloorAlarmKind.BAD_SIGNATURE, seq, seq,
                      f"table {aside.table_id}: a head for row {seq} not signed by the table's key ({aside.reason}): "
                      "kept as evidence, never applied")
