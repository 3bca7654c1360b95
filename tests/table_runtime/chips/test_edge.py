"""The readers' edge: scans debounced and judged by the registry into the zone changes the core journals."""

from __future__ import annotations

import gc

from drivers.chip_reader import ChipsScanned, ReaderOffline, ZoneReading
from firmware_bridge.rfid import Tag
from table_runtime.chips.edge import ZoneReporter
from table_runtime.chips.registry import RegisteredChip
from table_runtime.core.inputs import REFUSED_LISTED, ZoneChanged, ZoneChip

FIVE = Tag(uid="E004000000000005", denomination_cents=500, casino_id=1)
REGISTRY = {FIVE.uid: RegisteredChip(uid=FIVE.uid, denomination_cents=500, casino_id=1, status="active")}


def scan(reporter: ZoneReporter, at: float, **zones: tuple[Tag, ...]) -> list[object]:
    readings = tuple(ZoneReading(zone=zone, tags=tags) for zone, tags in zones.items())
    return list(reporter.reader_event(ChipsScanned(reader="r", at=at, readings=readings)))


def test_a_zone_is_first_reported_once_read_five_times_then_at_each_change() -> None:
    """After a start every zone is reported once it was read enough for its chips to have joined (never a
    half-read zone that the core would take for chips removed), then each stable change at once."""
    reporter = ZoneReporter(["box1", "box2"], registry=REGISTRY, casino_id=1)
    reports = [scan(reporter, n / 10, box1=(FIVE,), box2=()) for n in range(5)]
    assert reports[:4] == [[], [], [], []]
    assert reports[4] == [ZoneChanged(zone="box1", chips=(ZoneChip(uid=FIVE.uid, cents=500),)),
                          ZoneChanged(zone="box2", chips=())]
    assert scan(reporter, 0.6, box1=(FIVE,), box2=()) == []  # nothing changed
    for n in range(4):
        assert scan(reporter, 0.7 + n / 10, box1=(), box2=()) == []  # a chip leaves after 5 misses
    assert scan(reporter, 1.1, box1=(), box2=()) == [ZoneChanged(zone="box1", chips=())]


def test_a_refused_chip_is_reported_with_why_and_counts_nothing() -> None:
    stranger = Tag(uid="E0040000000000FF", denomination_cents=2500, casino_id=1)
    reporter = ZoneReporter(["box1"], registry=REGISTRY, casino_id=1, settle_scans=2)
    scan(reporter, 0.0, box1=(stranger,))
    (report,) = scan(reporter, 0.1, box1=(stranger,))
    assert report == ZoneChanged(zone="box1", chips=(ZoneChip(
        uid=stranger.uid, cents=0, refused="counterfeit_chip", detail="UID unknown to the registry",
        registry_cents=None, tag_cents=2500),))


def judged_chips_alive() -> int:
    gc.collect()
    return sum(1 for thing in gc.get_objects() if isinstance(thing, ZoneChip))


def test_a_storm_of_junk_tags_is_reported_capped_and_leaves_no_judged_chip_behind() -> None:
    """10,000 junk tags and one good chip on a zone: its input lists the good chip and the first REFUSED_LISTED
    junk chips and counts the others; the edge keeps nothing more (each object kept is heap that a full garbage
    collection walks holding the GIL the event loop needs, runtime/heap.py)."""
    junk = tuple(Tag(uid=f"E0041000{n:08X}", denomination_cents=500, casino_id=1) for n in range(10_000))
    reporter = ZoneReporter(["box1"], registry=REGISTRY, casino_id=1, settle_scans=2)
    alive = judged_chips_alive()
    scan(reporter, 0.0, box1=(*junk, FIVE))
    (report,) = scan(reporter, 0.1, box1=(*junk, FIVE))
    assert isinstance(report, ZoneChanged)
    assert report.chips[0] == ZoneChip(uid=FIVE.uid, cents=500)  # the UIDs in order: FIVE's sorts first
    assert [chip.uid for chip in report.chips[1:]] == [tag.uid for tag in junk[:REFUSED_LISTED]]
    assert report.unlisted == (("counterfeit_chip", 10_000 - REFUSED_LISTED),)
    assert reporter.reported() == [report]  # what an outage re-reports is that very input
    assert judged_chips_alive() - alive == 1 + REFUSED_LISTED


def test_a_new_registry_reports_the_zones_it_judges_otherwise() -> None:
    reporter = ZoneReporter(["box1"], registry=REGISTRY, casino_id=1, settle_scans=2)
    scan(reporter, 0.0, box1=(FIVE,))
    scan(reporter, 0.1, box1=(FIVE,))
    assert reporter.use_registry(dict(REGISTRY)) == []
    stolen = {FIVE.uid: RegisteredChip(uid=FIVE.uid, denomination_cents=500, casino_id=1, status="stolen")}
    (report,) = reporter.use_registry(stolen)
    assert report.chips[0].refused == "stolen_chip" and report.total_cents == 0


def test_a_chip_moved_off_the_zones_of_a_reader_gone_offline_joins_its_new_zone() -> None:
    """The reader under box1 went offline while box1 still read the chip: its last scan is no proof the chip
    is still there, so the chip read twice on box2 (another reader) moves."""
    reporter = ZoneReporter(["box1", "box2"], registry={FIVE.uid: RegisteredChip(
        uid=FIVE.uid, denomination_cents=500, casino_id=1, status="active")}, casino_id=1)
    left = ChipsScanned(reader="left", at=0.0, readings=(ZoneReading(zone="box1", tags=(FIVE,)),))
    for _ in range(2):
        reporter.reader_event(left)
    assert reporter.tracker.zone_of(FIVE.uid) == "box1"
    reporter.reader_event(ReaderOffline(reader="left", at=0.2, zones=("box1",), reason="unplugged"))
    right = ChipsScanned(reader="right", at=0.3, readings=(ZoneReading(zone="box2", tags=(FIVE,)),))
    for _ in range(2):
        reporter.reader_event(right)
    assert reporter.tracker.zone_of(FIVE.uid) == "box2"
    assert (reporter.tracker.total_cents("box1"), reporter.tracker.total_cents("box2")) == (0, 500)
