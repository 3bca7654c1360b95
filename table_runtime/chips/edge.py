"""The chip readers' edge: flickering scans in, judged zone contents out (like decoding a frame).

`ZoneReporter` debounces the scans of every zone (`ZoneTracker`) and judges each
stable chip against the registry snapshot of the moment (value, and why it is
refused): the result is a `ZoneChanged` input for the table core, which decides
every chip alarm. What only the readers know stays here: a reader gone offline
and a faulty antenna are device alarms.

A zone is first reported once it has been scanned `settle_scans` times (default:
the debounce's `vanish_scans`): by then every chip really there has joined, so
after a restart a zone read as the journal left it is reported as such, never
half-read. A new registry re-judges the chips on the table (`use_registry`).

Pure: the caller passes each reader event with its time; no I/O. The runtime
calls `reader_event` in a worker thread (a scan of thousands of junk tags costs
tens of milliseconds of Python, too long for the event loop), so the two
entries that change the zones hold a lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping

from drivers.ports import ChipsScanned, ReaderEvent, ReaderOffline
from firmware_bridge.rfid import Tag
from table_runtime.chips.integrity import check_chip, chip_value
from table_runtime.chips.registry import RegisteredChip
from table_runtime.chips.zones import DebounceRule, ZoneTracker
from table_runtime.core.inputs import REFUSED_LISTED, ZoneChanged, ZoneChip
from table_runtime.core.tray import TRAY_SCANS, TrayReadJudge, is_tray_zone, tray_scan
from table_runtime.core.zones_due import zone_box
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm

RULE_READER = citations.DEVICE_DISCONNECTED
RULE_ANTENNA = citations.ANTENNA
ANTENNA_TROUBLE = {
    "OPEN": "antenna open (cable cut?)",
    "SHORT": "antenna short-circuited",
    "TOO_MANY_TAGS": "more chips than the reader reports: the zone is not fully read",
    "RF_NOISE": "radio noise: the zone is not read",
}


class ZoneReporter:
    """The zones of one table as the readers see them, judged by the registry."""

    def __init__(self, zones: Iterable[str], *, registry: Mapping[str, RegisteredChip], casino_id: int,
                 rule: DebounceRule | None = None, settle_scans: int | None = None,
                 tray_scans: int = TRAY_SCANS) -> None:
        self.registry = registry
        self.casino_id = casino_id
        zones = tuple(zones)
        # The chip tray's rows (core/tray.py) are reported by whole reads only, never debounced chip by chip.
        rows = tuple(zone for zone in zones if is_tray_zone(zone))
        self.tray = TrayReadJudge(rows, scans=tray_scans) if rows else None
        self._tray_tags: dict[str, dict[str, Tag]] = {}  # tray row -> its chips in the last whole read
        self._pending_tray: dict[str, dict[str, Tag]] = {}  # tray row -> its chips in its last scan
        self._tray_wanted = False  # report the next whole read of the tray even if unchanged (`want_tray_read`)
        self.tracker = ZoneTracker((zone for zone in zones if not is_tray_zone(zone)), value_of=self.value_of,
                                   rule=rule)
        self.settle_scans = self.tracker.rule.vanish_scans if settle_scans is None else settle_scans
        self._scans: dict[str, int] = {}  # zone -> scans read since the start (up to settle_scans)
        self._reported: dict[str, ZoneChanged] = {}  # zone -> the input last reported for it (`zone_report`)
        self._antennas: dict[str, str] = {}  # zone -> last antenna status name that was not OK
        self._lock = threading.Lock()

    @property
    def zones(self) -> tuple[str, ...]:
        return self.tracker.zones + (self.tray.rows if self.tray is not None else ())

    def value_of(self, tag: Tag) -> int:
        return chip_value(tag, self.registry, self.casino_id)

    def judged(self, zone: str) -> Iterator[ZoneChip]:
        """The stable chips of `zone`, one at a time, each with its value and, if refused, why (a generator: a zone
        of thousands of junk tags is never held as thousands of judged chips, see `zone_report`)."""
        tags = (tuple(self._tray_tags.get(zone, {})[uid] for uid in sorted(self._tray_tags.get(zone, {})))
                if is_tray_zone(zone) else self.tracker.chips(zone))
        for tag in tags:
            problem = check_chip(tag, self.registry, self.casino_id)
            if problem is None:
                yield ZoneChip(uid=tag.uid, cents=self.value_of(tag))
            else:
                yield ZoneChip(uid=tag.uid, cents=0, refused=problem.kind, detail=problem.detail,
                               registry_cents=problem.expected_cents, tag_cents=problem.seen_cents)

    def reader_event(self, event: ReaderEvent) -> list[ZoneChanged | Alarm]:
        """One reader event: the zones it changed (or read enough to report first) and the device alarms."""
        with self._lock:
            return self._reader_event(event)

    def _reader_event(self, event: ReaderEvent) -> list[ZoneChanged | Alarm]:
        if isinstance(event, ReaderOffline):
            unread = tuple(event.zones)
            self.tracker.unread(unread)
            if self.tray is not None and any(is_tray_zone(zone) for zone in unread):
                self.tray.unread()
            return [Alarm(kind=AlarmKind.READER_OFFLINE, rule=RULE_READER,
                          message=f"chip reader {event.reader} offline ({event.reason}); "
                                  f"zones not read: {', '.join(unread)}")]
        if not isinstance(event, ChipsScanned):
            return []
        zones = set(self.zones)
        out: list[ZoneChanged | Alarm] = []
        for reading in event.readings:
            if reading.zone in zones:
                out += self._antenna(reading.zone, reading.status.name, reading.detail)
        if self.tray is not None:
            out += self._tray_scan(event)
        readings = [reading for reading in event.readings
                    if reading.zone in zones and not is_tray_zone(reading.zone)]
        changed = self.tracker.observe_scan({reading.zone: reading.tags for reading in readings}, event.at,
                                            [reading.zone for reading in readings if not reading.complete])
        touched = {change.zone for change in changed}
        for reading in readings:
            self._scans[reading.zone] = min(self._scans.get(reading.zone, 0) + 1, self.settle_scans)
        out += self._reports(touched | {reading.zone for reading in readings if reading.zone not in self._reported})
        return out

    def _tray_scan(self, event: ChipsScanned) -> list[ZoneChanged]:
        """The tray's rows of one scan: once a read of the whole tray is whole (core/tray.py), the rows it changed."""
        assert self.tray is not None
        scan = tray_scan(event.at, ((reading.zone, (tag.uid for tag in reading.tags), reading.complete)
                                    for reading in event.readings))
        if not scan.rows and not scan.incomplete:
            return []
        tags = {reading.zone: reading.tags for reading in event.readings if is_tray_zone(reading.zone)}
        for row, row_tags in tags.items():  # the newest tag of each chip: its data block once read
            known = self._tray_tags.get(row, {})
            self._pending_tray[row] = {tag.uid: tag if tag.denomination_cents is not None or tag.uid not in known
                                       else known[tag.uid] for tag in row_tags}
        read = self.tray.observe(scan)
        if read is None:
            return []
        self._tray_tags = {row: self._pending_tray.get(row, {}) for row in self.tray.rows}
        for row in self.tray.rows:
            self._scans[row] = self.settle_scans
        if self._tray_wanted:  # the core asked: its first row again, so the core knows the tray was read whole
            self._tray_wanted = False
            self._reported.pop(self.tray.rows[0], None)
        return self._reports(set(self.tray.rows))

    def want_tray_read(self) -> None:
        """The core wants to know the tray was read whole (a round closed, core/tray_reconciliation.py): its next
        whole read is reported, its first row even if unchanged."""
        with self._lock:
            self._tray_wanted = self.tray is not None

    def use_registry(self, registry: Mapping[str, RegisteredChip]) -> list[ZoneChanged]:
        """A new registry snapshot (a chip marked stolen mid-shift): the zones whose chips it judges otherwise."""
        with self._lock:
            self.registry = registry
            self.tracker.revalue()
            return self._reports(set(self._reported))

    def reported(self) -> list[ZoneChanged]:
        """Every zone's last report, the very input sent then (after a journal outage the core may not have taken
        the last reports; the core drops those it has, `ChipWatch.differs`). Called on the event loop: it takes a
        copy of the dict (one call, whole under the GIL) rather than the lock a scan in the worker may hold."""
        reported = dict(self._reported)
        return [reported[zone] for zone in sorted(reported)]

    def _reports(self, zones: set[str]) -> list[ZoneChanged]:
        out = []
        for zone in sorted(zones):
            if self._scans.get(zone, 0) < self.settle_scans:
                continue  # not read enough since the start to say what is there
            report = zone_report(zone, self.judged(zone))
            if self._reported.get(zone) != report:
                self._reported[zone] = report
                out.append(report)
        return out

    def _antenna(self, zone: str, status: str, detail: str = "") -> list[Alarm]:
        """An alarm each time a zone's antenna turns faulty or changes fault (docs/protocols/rfid.md 3.6); the
        driver's `detail` (which antenna or output, why the zone could not be read) in place of the status's text."""
        if status == "OK":
            self._antennas.pop(zone, None)
            return []
        if self._antennas.get(zone) == status:
            return []
        self._antennas[zone] = status
        return [Alarm(kind=AlarmKind.ANTENNA_FAULT, box=zone_box(zone), rule=RULE_ANTENNA,
                      message=f"{zone}: {detail or ANTENNA_TROUBLE.get(status, status)}; "
                              f"its chips keep their last known state")]


def zone_report(zone: str, chips: Iterable[ZoneChip]) -> ZoneChanged:
    """The one way a zone's judged chips become its input: every good chip and the first REFUSED_LISTED refused
    ones, the others counted by kind (a zone of thousands of junk tags stays a small row). Taken one at a time:
    the chips not listed are dropped as they come, so a storm leaves no thousands of objects behind (each kept
    one is garbage the collector must later walk, holding the GIL the event loop needs; bench/README.md)."""
    listed: list[ZoneChip] = []
    refused = 0
    unlisted: dict[str, int] = {}
    for chip in chips:
        if not chip.refused:
            listed.append(chip)
        elif refused < REFUSED_LISTED:
            refused += 1
            listed.append(chip)
        else:
            unlisted[chip.refused] = unlisted.get(chip.refused, 0) + 1
    return ZoneChanged(zone=zone, chips=tuple(listed), unlisted=tuple(sorted(unlisted.items())))
