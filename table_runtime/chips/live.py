"""Reader events into the bet watcher: the glue the runtime calls for each event.

`apply_reader_event(watcher, event)` turns one event of a `ChipReader`
(drivers/ports.py) into the watcher's zone changes and alarms: a scan is
fed with its faulty or truncated zones marked incomplete (they count no
misses) and an `antenna_fault` alarm when a zone's antenna turns faulty; a
reader gone offline is a `reader_offline` alarm. Pure: no I/O.
"""

from __future__ import annotations

from drivers.ports import ChipsScanned, ReaderEvent, ReaderOffline
from table_runtime.chips.watch import ChipAlarm, ChipWatcher
from table_runtime.chips.zones import ZoneChanged


def apply_reader_event(watcher: ChipWatcher, event: ReaderEvent) -> list[ZoneChanged | ChipAlarm]:
    if isinstance(event, ChipsScanned):
        readings = {reading.zone: reading.tags for reading in event.readings if reading.zone in watcher.zones}
        incomplete = [reading.zone for reading in event.readings if not reading.complete]
        statuses = {reading.zone: reading.status.name for reading in event.readings if reading.zone in watcher.zones}
        faults: list[ZoneChanged | ChipAlarm] = list(watcher.antenna_statuses(statuses))
        return faults + watcher.scan(readings, event.at, incomplete)
    if isinstance(event, ReaderOffline):
        return [watcher.reader_offline(event.reader, event.zones, event.reason)]
    return []
