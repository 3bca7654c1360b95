"""Review of the zone tracker: a chip read by two antennas at once (RF crosstalk at a zone's edge)."""

from __future__ import annotations

from drivers.ports import ChipsScanned, ReaderOffline, ZoneReading
from firmware_bridge.rfid import Tag
from table_runtime.chips.live import apply_reader_event
from table_runtime.chips.registry import RegisteredChip
from table_runtime.chips.watch import ChipWatcher
from table_runtime.chips.zones import DebounceRule, ZoneTracker

FIVE = Tag(uid="E004000000000005", denomination_cents=500, casino_id=1)


def test_a_chip_its_zone_still_reads_does_not_flip_to_a_neighbour_that_also_reads_it() -> None:
    """A chip on the edge of box1 is also read by box2's antenna: it stays on box1 (it was never moved), so a
    locked box1 does not flicker between 5.00 € and 0 (each flicker past-posting) scan after scan."""
    zones = ZoneTracker(["box1", "box2"], rule=DebounceRule(appear_scans=2, vanish_scans=5))
    zones.observe_scan({"box1": [FIVE], "box2": []}, at=0.0)
    zones.observe_scan({"box1": [FIVE], "box2": []}, at=0.1)
    assert zones.zone_of(FIVE.uid) == "box1"
    events = []
    for scan in range(10):
        events += zones.observe_scan({"box1": [FIVE], "box2": [FIVE]}, at=0.2 + scan / 10)
        events += zones.observe_scan({"box2": [FIVE], "box1": [FIVE]}, at=0.25 + scan / 10)
    assert events == []
    assert zones.zone_of(FIVE.uid) == "box1" and zones.total_cents("box1") == 500


def test_a_chip_really_moved_still_joins_its_new_zone_after_two_reads() -> None:
    zones = ZoneTracker(["box1", "box2"], rule=DebounceRule(appear_scans=2, vanish_scans=5))
    for scan in range(2):
        zones.observe_scan({"box1": [FIVE], "box2": []}, at=scan / 10)
    assert zones.observe_scan({"box1": [], "box2": [FIVE]}, at=0.2) == []
    moved = zones.observe_scan({"box1": [], "box2": [FIVE]}, at=0.3)
    assert [(event.zone, event.total_cents) for event in moved] == [("box1", 0), ("box2", 500)]
    assert zones.zone_of(FIVE.uid) == "box2"


def test_a_chip_moved_off_a_faulty_antenna_still_joins_its_new_zone() -> None:
    """box1's antenna is faulty (its scans are incomplete, its misses do not count): the chip read on box2 moves."""
    zones = ZoneTracker(["box1", "box2"], rule=DebounceRule(appear_scans=2, vanish_scans=5))
    for scan in range(2):
        zones.observe_scan({"box1": [FIVE], "box2": []}, at=scan / 10)
    for scan in range(2):
        zones.observe_scan({"box1": [], "box2": [FIVE]}, at=0.2 + scan / 10, incomplete=["box1"])
    assert zones.zone_of(FIVE.uid) == "box2"


def test_a_chip_moved_off_the_zones_of_a_reader_gone_offline_joins_its_new_zone() -> None:
    """The reader under box1 went offline while box1 still read the chip: its last scan is no proof the chip
    is still there, so the chip read twice on box2 (another reader) moves."""
    watcher = ChipWatcher(["box1", "box2"], registry={FIVE.uid: RegisteredChip(
        uid=FIVE.uid, denomination_cents=500, casino_id=1, status="active")}, casino_id=1)
    left = ChipsScanned(reader="left", at=0.0, readings=(ZoneReading(zone="box1", tags=(FIVE,)),))
    for _ in range(2):
        apply_reader_event(watcher, left)
    assert watcher.tracker.zone_of(FIVE.uid) == "box1"
    apply_reader_event(watcher, ReaderOffline(reader="left", at=0.2, zones=("box1",), reason="unplugged"))
    right = ChipsScanned(reader="right", at=0.3, readings=(ZoneReading(zone="box2", tags=(FIVE,)),))
    for _ in range(2):
        apply_reader_event(watcher, right)
    assert watcher.tracker.zone_of(FIVE.uid) == "box2"
    assert (watcher.total_cents("box1"), watcher.total_cents("box2")) == (0, 500)
