"""From feed messages to store batches: which rows are new, what the tracks and the integrity check make of them.

`Ingest` owns every followed journal's `JournalTrack` and the floor alarms already open. `take` folds one
decoded message into the `Batch` being filled; `finish` moves the tracks and adds the alarms; once the store
has committed the batch, `committed` makes it the floor's memory (nothing is remembered of a batch that failed:
the service then starts over from the store).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from casino_floor import bounds
from casino_floor.bounds import Refused
from casino_floor.derived import derived_row
from casino_floor.integrity import FloorAlarm, FloorAlarmKind, JournalTrack, PayloadError, Row, new_journal_alarm
from casino_floor.ratings import RATINGS_TOPIC, RatingError, parse_rating
from casino_floor.set_aside import (
    Demoted,
    EvidenceKind,
    SetAside,
    bad_signature_alarm,
    misrouted_alarm,
    quarantine_alarm,
    quarantined,
)
from casino_floor.store import Batch, StoredCheckpoint
from table_runtime.feed.heads import signed_by
from table_runtime.feed.row_batches import RowsMessageError, event_rows, is_rows_message
from table_runtime.journal.checkpoints import seal_of

logger = logging.getLogger("casino_floor.ingest")

AlarmKey = tuple[str, str, str, int]


def alarm_key(alarm: FloorAlarm) -> AlarmKey:
    return alarm.table_id, alarm.journal, str(alarm.kind), alarm.first_seq


ROWS_BODY_DEPTH = 4  # a row's body in a JournalRows message: the message, its rows, the row, the body
MAX_STATE_AHEAD = 100_000  # a state's seq past the journal's last known row (rows, heads) by more: set aside
SET_ASIDE_CAP = 1000  # messages kept in quarantine or as evidence per table and session; the others are counted
DEFAULT_REPLAY_MAX_GAP = 100_000  # rows missing in one range past which the floor raises an alarm instead of asking


@dataclass
class Ingest:
    tracks: dict[tuple[str, str], JournalTrack] = field(default_factory=dict)
    open_alarms: set[AlarmKey] = field(default_factory=set)
    gap_grace: float = 5.0
    # The tables' head keys (any one may sign a table's heads: more than one while a key is rotated). A table with
    # keys counts in the money only the rows a signed head covers; a table without keeps the old behaviour.
    head_keys: Mapping[str, tuple[bytes, ...]] = field(default_factory=dict)
    replay_max_gap: int = DEFAULT_REPLAY_MAX_GAP
    rejected: int = 0  # payloads that were no journal row
    ratings_rejected: int = 0  # ``ratings`` messages the contract does not allow (each one log line)
    set_aside: int = 0  # messages quarantined or kept as evidence
    set_aside_dropped: int = 0  # of those, past `SET_ASIDE_CAP` for their table: counted, not kept
    # Heads to check against the store: (track, seq, hash, ts).
    lookups: list[tuple[JournalTrack, int, str, float | None]] = field(default_factory=list)
    _touched: dict[tuple[str, str], JournalTrack] = field(default_factory=dict)
    _seen_in_batch: set[tuple[str, str, int]] = field(default_factory=set)
    _kept: dict[str, int] = field(default_factory=dict)  # messages set aside per table in this session

    def track(self, table_id: str, journal: str, batch: Batch) -> JournalTrack:
        key = (table_id, journal)
        track = self.tracks.get(key)
        if track is None:
            previous = {ident: known.max_seq for (table, ident), known in self.tracks.items() if table == table_id}
            track = self.tracks[key] = JournalTrack(table_id, journal)
            track.changed = True
            if previous:
                batch.alarms.append(new_journal_alarm(table_id, journal, previous))
        keyed = table_id in self.head_keys
        if track.signed_seq is None and keyed:
            track.signed_seq, track.changed = 0, True  # a key now: rows count from a signed head on
        elif track.signed_seq is not None and not keyed:
            track.signed_seq, track.signed_hash, track.changed = None, None, True  # its key removed: as before keys
        self._touched[key] = track
        return track

    def take(self, name: str, payload: dict[str, Any], batch: Batch, *, topic: str | None = None,
             raw: bytes | str | None = None) -> bool:
        """Fold one message off ``events``, ``state``, ``status``, ``head``, ``checkpoints`` or ``ratings`` into
        `batch`.

        `topic`, when given, is the message's topic: a message naming another table than the topic's is kept as
        evidence (`raw`: the bytes received, kept with it). A message the store cannot hold is quarantined. True
        when the message was taken as its table's (not set aside)."""
        if name == RATINGS_TOPIC:
            return self.take_rating(payload, batch)
        routed = self._routed(name, payload, batch, topic, raw)
        if routed is None:
            return False
        table_id, topic = routed
        try:
            bounds.plain(payload, raw)
            journal = payload.get("journal", "")
            journal = journal if isinstance(journal, str) else ""
            if len(journal) > 64:
                raise Refused(f"a journal id of {len(journal)} characters")
            ts = payload.get("ts")
            if isinstance(ts, (int, float)) and not isinstance(ts, bool):  # read as a time by the store and the pit
                bounds.finite(ts, "ts")
            if name == "events":
                return self._row(payload, batch, topic, raw)
            if name == "state":
                self._state(table_id, journal, payload, batch)
            elif name == "status":
                batch.statuses[table_id] = payload
            elif name == "head":
                return self._head(table_id, journal, payload, batch, topic, raw)
            elif name == "checkpoints":
                return self._checkpoint(table_id, journal, payload, batch, topic, raw)
            return True
        except (Refused, PayloadError) as error:
            self.quarantine(batch, quarantined(table_id, topic, str(error), payload, raw))
            return False

    def _routed(self, name: str, payload: dict[str, Any], batch: Batch, topic: str | None,
                raw: bytes | str | None) -> tuple[str, str] | None:
        """The message's table and topic when it names the table of its topic; else None, the message rejected
        (no table) or kept as evidence (another table)."""
        table_id = payload.get("table_id")
        if not isinstance(table_id, str) or not table_id:
            self.rejected += 1
            levels = (topic or "").split("/")
            if len(levels) >= 3 and levels[-3] == "tables":  # on a table's topic: kept, with its alarm
                self.quarantine(batch, quarantined(levels[-2], topic or "", "no table_id", payload, raw))
            return None
        topic = topic if topic is not None else f"tables/{table_id}/{name}"
        levels = topic.split("/")
        topic_table = levels[-2] if len(levels) >= 3 and levels[-3] == "tables" else table_id
        if table_id != topic_table:
            aside = quarantined(topic_table, topic, f"it names table {table_id[:40]!r}", payload, raw)
            aside = dataclasses.replace(aside, evidence=EvidenceKind.MISROUTED)
            self._aside(batch, aside, misrouted_alarm(aside, table_id))
            return None
        return table_id, topic

    def take_rows(self, payload: dict[str, Any], batch: Batch, *, topic: str | None = None,
                  raw: bytes | str | None = None) -> list[dict[str, Any]]:
        """Fold an ``events`` message of either shape into `batch` (version 2 ``JournalRows``: its rows,
        feed/row_batches.py): the table, the topic and the bounds checked once for the message, then each row as a
        version 1 row. A row that cannot be stored is set aside alone; the others are taken. The version 1
        payloads of the rows taken as the table's (for the observers)."""
        if not is_rows_message(payload):
            return [payload] if self.take("events", payload, batch, topic=topic, raw=raw) else []
        routed = self._routed("events", payload, batch, topic, raw)
        if routed is None:
            return []
        table_id, topic = routed
        try:
            bounds.plain_but_bodies(payload, raw)  # each body with its row (`_row`)
            journal = payload.get("journal", "")
            if not isinstance(journal, str) or len(journal) > 64:
                raise Refused("a journal id that is not a text of at most 64 characters")
            rows = event_rows(payload)
        except (Refused, RowsMessageError) as error:
            reason = error.reason if isinstance(error, Refused) else str(error)
            self.quarantine(batch, quarantined(table_id, topic, reason, payload, raw))
            return []
        taken = []
        for row in rows:
            try:
                if self._row(row, batch, topic, None, body_at=ROWS_BODY_DEPTH):
                    taken.append(row)
            except (Refused, PayloadError) as error:
                self.quarantine(batch, quarantined(table_id, topic, str(error), row, None))
        return taken

    def quarantine(self, batch: Batch, aside: SetAside) -> None:
        """Set a message the store cannot hold aside, with its floor alarm and one log line."""
        self._aside(batch, aside, quarantine_alarm(aside))

    def _keep(self, batch: Batch, aside: SetAside) -> None:
        """`aside` into the batch, up to `SET_ASIDE_CAP` per table in a session: a table (or whoever speaks on its
        topic) sending garbage for ever does not fill the disk; past the cap the messages are counted only."""
        self.set_aside += 1
        kept = self._kept.get(aside.table_id, 0)
        if kept >= SET_ASIDE_CAP:
            self.set_aside_dropped += 1
            if kept == SET_ASIDE_CAP:
                logger.warning("table %s: %d messages set aside in this session: the next ones are counted, not kept",
                               aside.table_id, SET_ASIDE_CAP)
                self._kept[aside.table_id] = kept + 1
            return
        self._kept[aside.table_id] = kept + 1
        batch.set_aside.append(aside)

    def _aside(self, batch: Batch, aside: SetAside, alarm: FloorAlarm) -> None:
        self._keep(batch, aside)
        batch.alarms.append(alarm)
        logger.warning("table %s: a message on %s%s set aside (%s): %s", aside.table_id, aside.topic,
                       f" (journal {aside.journal or '-'}, seq {aside.seq})" if aside.seq else "",
                       aside.evidence or "quarantine", aside.reason)

    def _row(self, payload: dict[str, Any], batch: Batch, topic: str, raw: bytes | str | None, *,
             body_at: int | None = None) -> bool:
        """Take one row; `body_at`: the depth of its body in its message, when the message's bounds left it to the
        row (`bounds.plain_but_bodies`)."""
        try:
            row = Row.from_payload(payload, body_at=body_at)
        except (TypeError, ValueError) as error:
            if isinstance(error, (Refused, PayloadError)):
                raise
            raise PayloadError(str(error)) from error
        derived = derived_row(row, payload["body"])
        track = self.track(row.table_id, row.journal, batch)
        key = (row.table_id, row.journal, row.seq)
        if not row.hash_ok:  # altered or forged: evidence, and the row asked for again (its seq is still missing)
            aside = dataclasses.replace(quarantined(row.table_id, topic, "its hash is not the hash of its fields",
                                                    payload, raw), evidence=EvidenceKind.HASH_MISMATCH)
            self._keep(batch, aside)
            batch.alarms.append(track.hash_mismatch(row))
            logger.warning("table %s: row %d set aside (evidence): its hash is not the hash of its fields",
                           row.table_id, row.seq)
            return False
        if track.is_new(row.seq) and key not in self._seen_in_batch:
            self._seen_in_batch.add(key)
            batch.rows.append(row)
            if derived is not None:
                batch.derived.setdefault(derived[0], []).append(derived[1])
            batch.alarms.extend(track.add(row))
        return True

    def _state(self, table_id: str, journal: str, payload: dict[str, Any], batch: Batch) -> None:
        seq = payload.get("seq")
        seq = bounds.seq(seq, "the state's seq", low=0) if seq is not None else 0
        track = self.tracks.get((table_id, journal))
        known = 0 if track is None else max(track.max_seq, track.head_seq or 0, track.contiguous_seq)
        if seq > known + MAX_STATE_AHEAD:  # a retained state this far ahead would hide every later one
            raise Refused(f"the state's seq {seq} is past the journal's last known row {known} by more than "
                          f"{MAX_STATE_AHEAD}")
        batch.states[table_id] = (journal, seq, payload)

    def _head(self, table_id: str, journal: str, payload: dict[str, Any], batch: Batch, topic: str,
              raw: bytes | str | None) -> bool:
        seq, hash_, ts = payload.get("seq"), payload.get("hash"), payload.get("ts")
        if not (isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 and isinstance(hash_, str)):
            return True  # not a head the check reads (as before)
        bounds.seq(seq, "the head's seq", low=0)
        if len(hash_) > 128:
            raise Refused(f"a head's hash of {len(hash_)} characters")
        keys = self.head_keys.get(table_id)
        signed = keys is not None and signed_by(payload, keys)
        if keys is not None and not signed:
            reason = "no signature" if "mac" not in payload else "a signature the table's key did not make"
            aside = dataclasses.replace(quarantined(table_id, topic, reason, payload, raw),
                                        evidence=EvidenceKind.BAD_SIGNATURE)
            self._aside(batch, aside, bad_signature_alarm(aside))
            return False
        track = self.track(table_id, journal, batch)
        when = float(ts) if isinstance(ts, (int, float)) and not isinstance(ts, bool) else None
        if when is not None and not math.isfinite(when):
            when = None
        if 0 < seq <= track.contiguous_seq and track.held_hash(seq) is None:
            if signed:
                track.signed_lookups[seq] = hash_
            self.lookups.append((track, seq, hash_, when))
        else:
            batch.alarms.extend(track.head(seq, hash_, ts=when, signed=signed))
        return True

    def _checkpoint(self, table_id: str, journal: str, payload: dict[str, Any], batch: Batch, topic: str,
                    raw: bytes | str | None) -> bool:
        """A sealed checkpoint of the table's journal, kept for the round record to start from. Its seal must be
        the seal of its fields (else quarantined); with the table's head key, its signature too (else evidence, as
        a head's). Its chain hash is checked against the stored row when it is read (queries.py)."""
        seq, chain_hash, state, seal = (payload.get(name) for name in ("seq", "chain_hash", "state", "seal"))
        if not (isinstance(seq, int) and not isinstance(seq, bool) and isinstance(chain_hash, str)
                and isinstance(state, str) and isinstance(seal, str) and journal):
            raise Refused("a checkpoint without its journal, seq, chain_hash, state and seal")
        bounds.seq(seq, "the checkpoint's seq", low=1)
        if len(chain_hash) > 128 or len(seal) > 128:
            raise Refused("a checkpoint's hash or seal past 128 characters")
        if seal_of(seq, chain_hash, state) != seal:
            raise Refused(f"checkpoint at row {seq}: its seal is not the seal of its fields")
        keys = self.head_keys.get(table_id)
        if keys is not None and not signed_by(payload, keys):
            reason = "no signature" if "mac" not in payload else "a signature the table's key did not make"
            aside = dataclasses.replace(quarantined(table_id, topic, reason, payload, raw),
                                        evidence=EvidenceKind.BAD_SIGNATURE)
            self._aside(batch, aside, bad_signature_alarm(aside))
            return False
        batch.checkpoints.append(StoredCheckpoint(table_id, journal, seq, chain_hash, state, seal))
        return True

    def take_rating(self, payload: dict[str, Any], batch: Batch) -> bool:
        """A rated session's message into `batch`; one the contract does not allow is one log line, counted
        (False)."""
        try:
            bounds.plain(payload)
            batch.ratings.append(parse_rating(payload))
        except (RatingError, Refused) as error:
            self.ratings_rejected += 1
            logger.warning("table %r: dropped a ratings message (session %r): %s", payload.get("table"),
                           payload.get("session"), error)
            return False
        return True

    def finish(self, batch: Batch, now: float) -> None:
        """Advance the journals the batch touched, add their alarms and tracks; alarms already open are dropped."""
        for track in self.tracks.values():
            if (track.table_id, track.journal) in self._touched or track.stalled_since is not None:
                batch.alarms.extend(track.advance(now))
                self._off_chain(track, batch)
                for alarm in track.gap_alarms(now, self.gap_grace):
                    too_large = alarm.last_seq - alarm.first_seq + 1 > self.replay_max_gap
                    batch.alarms.append(self._too_large(alarm) if too_large else alarm)
        batch.tracks = [track for track in self._touched.values() if track.changed]
        seen: set[AlarmKey] = set()
        fresh = []
        for alarm in batch.alarms:
            key = alarm_key(alarm)
            if key not in self.open_alarms and key not in seen:
                seen.add(key)
                fresh.append(alarm)
        batch.alarms = fresh

    def _off_chain(self, track: JournalTrack, batch: Batch) -> None:
        """The rows `advance` refused: out of the batch into evidence, and (stored earlier) demoted by the store."""
        for first, last in track.off_chain:
            reason = (f"row {last}: its prev_hash is not the hash of row {last - 1}" if first == last else
                      f"rows {first}..{last - 1} not covered by a signed head, before row {last} off the chain")
            kept = []
            for row in batch.rows:
                if (row.table_id, row.journal) == (track.table_id, track.journal) and first <= row.seq <= last:
                    self._keep(batch, SetAside(
                        table_id=row.table_id, topic=f"tables/{row.table_id}/events", reason=reason,
                        payload=bounds.as_text(json.dumps(row_payload(row))), evidence=EvidenceKind.OFF_CHAIN,
                        journal=row.journal, seq=row.seq))
                else:
                    kept.append(row)
            batch.rows = kept
            batch.demoted.append(Demoted(table_id=track.table_id, journal=track.journal, first_seq=first,
                                         last_seq=last, reason=reason))
        track.off_chain.clear()

    def _too_large(self, gap: FloorAlarm) -> FloorAlarm:
        rows = gap.last_seq - gap.first_seq + 1
        return dataclasses.replace(gap, kind=FloorAlarmKind.GAP_TOO_LARGE, message=(
            f"table {gap.table_id}: rows {gap.first_seq}..{gap.last_seq} missing at the floor ({rows} rows, more "
            f"than the {self.replay_max_gap} a replay may ask for): not asked"))

    def committed(self, batch: Batch) -> None:
        for alarm in batch.alarms:
            self.open_alarms.add(alarm_key(alarm))
            logger.warning("floor alarm %s: %s", alarm.kind, alarm.message)
        for track in batch.tracks:
            track.changed = False
            self.open_alarms = {key for key in self.open_alarms
                                if not (key[:3] == (track.table_id, track.journal, "gap")
                                        and key[3] <= track.contiguous_seq)}
        self._touched.clear()
        self._seen_in_batch.clear()

    def missing(self) -> list[tuple[JournalTrack, int, int]]:
        """Every range the floor has been missing for longer than the grace period: what to ask a replay for."""
        return [(track, first, last) for track in self.tracks.values()
                if track.stalled_since is not None for first, last in track.missing()
                if last - first + 1 <= self.replay_max_gap]


def row_payload(row: Row) -> dict[str, Any]:
    """A stored row as its ``events`` payload again (what evidence keeps of a row refused after its batch)."""
    return {"table_id": row.table_id, "journal": row.journal, "seq": row.seq, "ts": row.ts, "kind": row.kind,
            "type": row.type, "body": json.loads(row.body), "prev_hash": row.prev_hash, "hash": row.hash}
