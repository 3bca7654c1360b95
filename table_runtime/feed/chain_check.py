"""What a consumer checks off the table (pure): the hash chain of the rows it receives, against the retained
``head``, and the journal each message names.

The table's own check (`journal verify`) cannot see rows cut from the end together with the head, nor a journal
file put back from an older copy: the chain that is left is whole. What the feed published can: a consumer
remembers the hash of every row it received, so

- a row it receives again (the publisher resends after a restart) with another hash, or a ``head`` naming
  another hash for a row it has, means the journal was **rewritten** from that row (`rewritten`);
- a ``head`` below the last row received, whose hash matches, means rows published were cut from the end of the
  journal (`truncated`);
- a message naming another journal than before means the table started a **new journal** (a new data
  directory: seq starts again at 1), `new_journal`;
- a row whose hash is not the hash of its own fields, or whose ``prev_hash`` is not the hash of the row before it
  as received, is **broken** (`broken`: changed on the way, or forged).

Each is reported once, then the check follows the journal as it now is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from table_runtime.journal import GENESIS_HASH, JournalBodyError, encode_body, entry_hash

FindingKind = Literal["broken", "rewritten", "truncated", "new_journal"]
KEEP_HASHES = 200_000  # rows per table whose hash is remembered (about 25 MB)


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the chain check found, with the one line that says it."""

    kind: FindingKind
    table_id: str
    journal: str
    text: str
    first: int | None = None  # the rows concerned, inclusive
    last: int | None = None
    previous_journal: str | None = None

    def as_json(self) -> dict[str, Any]:
        names = {"broken": "ChainBroken", "rewritten": "JournalRewritten", "truncated": "JournalTruncated",
                 "new_journal": "NewJournal"}
        out: dict[str, Any] = {"type": names[self.kind], "table_id": self.table_id, "journal": self.journal,
                               "first": self.first, "last": self.last, "text": self.text}
        if self.previous_journal is not None:
            out["previous_journal"] = self.previous_journal
        return out


@dataclass(slots=True)
class _Chain:
    journal: str
    hashes: dict[int, str] = field(default_factory=dict)  # seq -> hash, as received (events, or a head)
    last: int | None = None  # the highest seq in `hashes`

    def forget_from(self, seq: int) -> None:
        for known in [known for known in self.hashes if known >= seq]:
            del self.hashes[known]
        self.last = max(self.hashes) if self.hashes else None

    def remember(self, seq: int, hash_: str, keep: int) -> None:
        self.hashes[seq] = hash_
        self.last = seq if self.last is None else max(self.last, seq)
        if len(self.hashes) > keep + keep // 10:
            for old in sorted(self.hashes)[: len(self.hashes) - keep]:
                del self.hashes[old]


class ChainCheck:
    """Follows the journal of every table it hears; `event` and `head` return what they found.

    With `hashes` False only the journal id is followed (a new journal is still found).
    """

    def __init__(self, *, hashes: bool = True, keep: int = KEEP_HASHES) -> None:
        self._hashes = hashes
        self._keep = keep
        self._chains: dict[str, _Chain] = {}
        self.findings = 0
        self.kinds: set[FindingKind] = set()

    def journal_of(self, table_id: str) -> str | None:
        chain = self._chains.get(table_id)
        return None if chain is None else chain.journal

    def event(self, message: Mapping[str, Any]) -> list[Finding]:
        """An ``events`` message (or a replayed row)."""
        table_id, journal = str(message.get("table_id", "")), str(message.get("journal", ""))
        found, chain = self._chain(table_id, journal, message.get("seq"))
        if not self._hashes:
            return self._count(found)
        seq, hash_, prev = message.get("seq"), message.get("hash"), message.get("prev_hash")
        broken = _row_problem(message)
        if broken is not None:
            found.append(Finding("broken", table_id, journal, f"BROKEN {table_id} journal {journal}: {broken}",
                                 seq if isinstance(seq, int) else None, seq if isinstance(seq, int) else None))
            return self._count(found)
        assert isinstance(seq, int) and isinstance(hash_, str) and isinstance(prev, str)
        known = chain.hashes.get(seq)
        if known is not None and known != hash_:
            found.append(self._rewritten(chain, table_id, seq, known, hash_, "sent again"))
        elif known is None:
            before = GENESIS_HASH if seq == 1 else chain.hashes.get(seq - 1)
            if before is not None and before != prev:
                found.append(Finding("broken", table_id, journal,
                                     f"BROKEN {table_id} journal {journal}: row {seq}: prev_hash is not the hash of "
                                     f"row {seq - 1} as published (row {seq - 1} or {seq} altered)", seq - 1, seq))
        chain.remember(seq, hash_, self._keep)
        return self._count(found)

    def head(self, message: Mapping[str, Any]) -> list[Finding]:
        """A ``head`` message: the journal's last row as the table has it now."""
        table_id, journal = str(message.get("table_id", "")), str(message.get("journal", ""))
        seq, hash_ = message.get("seq"), message.get("hash")
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0 or not isinstance(hash_, str):
            return []
        found, chain = self._chain(table_id, journal, None)
        if not self._hashes:
            return self._count(found)
        last, known = chain.last, chain.hashes.get(seq, GENESIS_HASH if seq == 0 else None)
        if known is not None and known != hash_:
            found.append(self._rewritten(chain, table_id, seq, known, hash_, "in the head"))
            chain.remember(seq, hash_, self._keep)
        elif last is not None and seq < last:
            gone = f"row {last}" if last == seq + 1 else f"rows {seq + 1}..{last} ({last - seq})"
            found.append(Finding("truncated", table_id, journal,
                                 f"TRUNCATED {table_id} journal {journal}: the journal's head is back at row {seq}: "
                                 f"{gone} published before are gone from it", seq + 1, last))
            chain.forget_from(seq + 1)
        elif known is None:
            chain.remember(seq, hash_, self._keep)  # checked when that row comes
        return self._count(found)

    def _chain(self, table_id: str, journal: str, seq: object) -> tuple[list[Finding], _Chain]:
        chain = self._chains.get(table_id)
        if chain is not None and chain.journal == journal:
            return [], chain
        found: list[Finding] = []
        if chain is not None:
            last = chain.last
            up_to = f"published up to row {last}" if last is not None else "no row received"
            starts = f" from row {seq}" if isinstance(seq, int) else ""
            found.append(Finding("new_journal", table_id, journal,
                                 f"NEW JOURNAL {table_id}: journal {journal or '(none named)'}{starts} replaces "
                                 f"journal {chain.journal or '(none named)'} ({up_to}); seq starts again",
                                 1, seq if isinstance(seq, int) else None, chain.journal))
        chain = self._chains[table_id] = _Chain(journal)
        return found, chain

    def _rewritten(self, chain: _Chain, table_id: str, seq: int, known: str, now: str, source: str) -> Finding:
        last = chain.last or seq
        rows = f"row {seq}" if last == seq else f"rows {seq}..{last} ({last - seq + 1})"
        chain.forget_from(seq)
        return Finding("rewritten", table_id, chain.journal,
                       f"REWRITTEN {table_id} journal {chain.journal}: row {seq} {source} has hash {now[:12]}, "
                       f"published before as {known[:12]}: {rows} published before are not in the journal any more",
                       seq, last)

    def _count(self, found: list[Finding]) -> list[Finding]:
        self.findings += len(found)
        self.kinds.update(finding.kind for finding in found)
        return found


def _row_problem(message: Mapping[str, Any]) -> str | None:
    """Why an ``events`` message is not a chain row whose hash is the hash of its fields, if it is not."""
    seq, ts, kind, body = message.get("seq"), message.get("ts"), message.get("kind"), message.get("body")
    hash_, prev = message.get("hash"), message.get("prev_hash")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        return f"a row without a seq: {json.dumps(seq)}"
    if (isinstance(ts, bool) or not isinstance(ts, (int, float)) or not isinstance(kind, str)
            or not isinstance(body, dict) or not isinstance(hash_, str) or not isinstance(prev, str)):
        return f"row {seq}: not a journal row (ts, kind, body, hash, prev_hash)"
    try:
        computed = entry_hash(prev, seq, float(ts), kind, encode_body(body))
    except JournalBodyError as error:
        return f"row {seq}: its body cannot be hashed: {error}"
    if computed != hash_:
        return f"row {seq}: hash {hash_[:12]} is not the hash of its fields ({computed[:12]}): altered or forged"
    return None
