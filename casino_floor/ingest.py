"""From feed messages to store batches: which rows are new, what the tracks and the integrity check make of them.

`Ingest` owns every followed journal's `JournalTrack` and the floor alarms already open. `take` folds one
decoded message into the `Batch` being filled; `finish` moves the tracks and adds the alarms; once the store
has committed the batch, `committed` makes it the floor's memory (nothing is remembered of a batch that failed:
the service then starts over from the store).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from casino_floor.integrity import FloorAlarm, JournalTrack, PayloadError, Row, new_journal_alarm
from casino_floor.ratings import RATINGS_TOPIC, RatingError, parse_rating
from casino_floor.store import Batch

logger = logging.getLogger("casino_floor.ingest")

AlarmKey = tuple[str, str, str, int]


def alarm_key(alarm: FloorAlarm) -> AlarmKey:
    return alarm.table_id, alarm.journal, str(alarm.kind), alarm.first_seq


@dataclass
class Ingest:
    tracks: dict[tuple[str, str], JournalTrack] = field(default_factory=dict)
    open_alarms: set[AlarmKey] = field(default_factory=set)
    gap_grace: float = 5.0
    rejected: int = 0  # payloads that were no journal row
    ratings_rejected: int = 0  # ``ratings`` messages the contract does not allow (each one log line)
    # Heads to check against the store: (track, seq, hash, ts).
    lookups: list[tuple[JournalTrack, int, str, float | None]] = field(default_factory=list)
    _touched: dict[tuple[str, str], JournalTrack] = field(default_factory=dict)
    _seen_in_batch: set[tuple[str, str, int]] = field(default_factory=set)

    def track(self, table_id: str, journal: str, batch: Batch) -> JournalTrack:
        key = (table_id, journal)
        track = self.tracks.get(key)
        if track is None:
            previous = {ident: known.max_seq for (table, ident), known in self.tracks.items() if table == table_id}
            track = self.tracks[key] = JournalTrack(table_id, journal)
            track.changed = True
            if previous:
                batch.alarms.append(new_journal_alarm(table_id, journal, previous))
        self._touched[key] = track
        return track

    def take(self, name: str, payload: dict[str, Any], batch: Batch) -> None:
        """Fold one message off ``events``, ``state``, ``status``, ``head`` or ``ratings`` into `batch`."""
        if name == RATINGS_TOPIC:
            self.take_rating(payload, batch)
            return
        table_id = payload.get("table_id")
        if not isinstance(table_id, str) or not table_id:
            self.rejected += 1
            return
        journal = payload.get("journal", "")
        journal = journal if isinstance(journal, str) else ""
        if name == "events":
            try:
                row = Row.from_payload(payload)
            except (PayloadError, TypeError, ValueError) as error:
                self.rejected += 1
                logger.warning("table %s: dropped an events message: %s", table_id, error)
                return
            track = self.track(table_id, journal, batch)
            key = (table_id, journal, row.seq)
            if track.is_new(row.seq) and key not in self._seen_in_batch:
                self._seen_in_batch.add(key)
                batch.rows.append(row)
                batch.alarms.extend(track.add(row))
        elif name == "state":
            seq = payload.get("seq")
            batch.states[table_id] = (journal, seq if isinstance(seq, int) else 0, payload)
        elif name == "status":
            batch.statuses[table_id] = payload
        elif name == "head":
            seq, hash_, ts = payload.get("seq"), payload.get("hash"), payload.get("ts")
            if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 and isinstance(hash_, str):
                track = self.track(table_id, journal, batch)
                when = float(ts) if isinstance(ts, (int, float)) and not isinstance(ts, bool) else None
                if 0 < seq <= track.contiguous_seq and track.held_hash(seq) is None:
                    self.lookups.append((track, seq, hash_, when))
                else:
                    batch.alarms.extend(track.head(seq, hash_, ts=when))

    def take_rating(self, payload: dict[str, Any], batch: Batch) -> bool:
        """A rated session's message into `batch`; one the contract does not allow is one log line, counted
        (False)."""
        try:
            batch.ratings.append(parse_rating(payload))
        except RatingError as error:
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
                batch.alarms.extend(track.gap_alarms(now, self.gap_grace))
        batch.tracks = [track for track in self._touched.values() if track.changed]
        seen: set[AlarmKey] = set()
        fresh = []
        for alarm in batch.alarms:
            key = alarm_key(alarm)
            if key not in self.open_alarms and key not in seen:
                seen.add(key)
                fresh.append(alarm)
        batch.alarms = fresh

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
                if track.stalled_since is not None for first, last in track.missing()]
