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
                 rule: DebounceRule | None = None, settle_scans: int | None = None) -> None:
        self.registry = registry
        self.casino_id = casino_id
        self.tracker = ZoneTracker(zones, value_of=self.value_of, rule=rule)
        self.settle_scans = self.tracker.rule.vanish_scans if settle_scans is None else settle_scans
        self._scans: dict[str, int] = {}  # zone -> scans read since the start (up to settle_scans)
        self._reported: dict[str, ZoneChanged] = {}  # zone -> the input last reported for it (`zone_report`)
        self._antennas: dict[str, str] = {}  # zone -> last antenna status name that was not OK
        self._lock = threading.Lock()

    @property
    def zones(self) -> tuple[str, ...]:
        return self.tracker.zones

    def value_of(self, tag: Tag) -> int:
        return chip_value(tag, self.registry, self.casino_id)

    def judged(self, zone: str) -> Iterator[ZoneChip]:
        """The stable chips of `zone`, one at a time, each with its value and, if refused, why (a generator: a zone
        of thousands of junk tags is never held as thousands of judged chips, see `zone_report`)."""
        for tag in self.tracker.chips(zone):
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
            return [Alarm(kind=AlarmKind.READER_OFFLINE, rule=RULE_READER,
                          message=f"chip reader {event.reader} offline ({event.reason}); "
                                  f"zones not read: {', '.join(unread)}")]
        if not isinstance(event, ChipsScanned):
            return []
        readings = [reading for reading in event.readings if reading.zone in self.zones]
        out: list[ZoneChanged | Alarm] = []
        for reading in readings:
            out += self._antenna(reading.zone, reading.status.name, reading.detail)
        changed = self.tracker.observe_scan({reading.zone: reading.tags for reading in readings}, event.at,
                                            [reading.zone for reading in readings if not reading.complete])
        touched = {change.zone for change in changed}
        for reading in readings:
            self._scans[reading.zone] = min(self._scans.get(reading.zone, 0) + 1, self.settle_scans)
        out += self._reports(touched | {reading.zone for reading in readings if reading.zone not in self._reported})
        return out

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
