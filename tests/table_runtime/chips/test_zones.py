"""Stable zone contents: the debounce rule of table_runtime/chips/zones.py."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.rfid import BlockStatus, Tag
from table_runtime.chips.zones import DebounceRule, UnknownZoneError, ZoneChanged, ZoneTracker
from table_runtime.errors import ConfigError

FIVE = Tag(uid="E004000000000005", denomination_cents=500, casino_id=1)
TEN = Tag(uid="E004000000000010", denomination_cents=1000, casino_id=1)
HUNDRED = Tag(uid="E004000000000100", denomination_cents=10_000, casino_id=1)


def tracker() -> ZoneTracker:
    return ZoneTracker(["box1", "box1.behind", "box2"], rule=DebounceRule(appear_scans=2, vanish_scans=5))


def test_a_chip_joins_after_two_consecutive_reads() -> None:
    zones = tracker()
    assert zones.observe("box1", [FIVE], at=0.0) == []
    assert zones.observe("box1", [], at=0.1) == []  # not consecutive: start again
    assert zones.observe("box1", [FIVE], at=0.2) == []
    [event] = zones.observe("box1", [FIVE, TEN], at=0.3)
    assert event == ZoneChanged(zone="box1", at=0.3, added=(FIVE,), removed=(), chips=(FIVE,), total_cents=500,
                                previous_cents=0)
    [event] = zones.observe("box1", [FIVE, TEN], at=0.4)
    assert (event.added, event.total_cents, event.previous_cents) == ((TEN,), 1500, 500)


def test_a_chip_leaves_after_five_consecutive_misses_and_not_before() -> None:
    zones = tracker()
    for scan in range(2):
        zones.observe("box1", [FIVE, TEN], at=scan)
    for scan in range(4):
        assert zones.observe("box1", [TEN], at=10 + scan) == []
    assert zones.observe("box1", [FIVE, TEN], at=20) == []  # seen again: the misses start over
    for scan in range(4):
        assert zones.observe("box1", [TEN], at=30 + scan) == []
    [event] = zones.observe("box1", [TEN], at=34)
    assert (event.removed, event.chips, event.total_cents, event.previous_cents) == ((FIVE,), (TEN,), 1000, 1500)


def test_an_incomplete_scan_is_no_miss() -> None:
    zones = tracker()
    zones.observe("box1", [FIVE], at=0)
    zones.observe("box1", [FIVE], at=1)
    for scan in range(20):  # antenna faulty or report truncated
        assert zones.observe("box1", [], at=2 + scan, complete=False) == []
    assert zones.chips("box1") == (FIVE,)


def test_a_chip_moved_to_another_zone_leaves_the_old_one_at_once() -> None:
    zones = tracker()
    zones.observe_scan({"box1": [FIVE, HUNDRED], "box2": []}, at=0)
    zones.observe_scan({"box1": [FIVE, HUNDRED], "box2": []}, at=1)
    zones.observe_scan({"box1": [FIVE], "box2": [HUNDRED]}, at=2)
    events = zones.observe_scan({"box1": [FIVE], "box2": [HUNDRED]}, at=3)
    assert [(event.zone, event.added, event.removed, event.total_cents) for event in events] == [
        ("box1", (), (HUNDRED,), 500), ("box2", (HUNDRED,), (), 10_000)]
    assert zones.zone_of(HUNDRED.uid) == "box2"
    assert zones.totals() == {"box1": 500, "box1.behind": 0, "box2": 10_000}


def test_a_block_read_at_last_updates_the_chip() -> None:
    unread = Tag(uid=FIVE.uid, block_status=BlockStatus.READ_FAILED)
    zones = tracker()
    zones.observe("box1", [unread], at=0)
    [joined] = zones.observe("box1", [unread], at=1)
    assert joined.total_cents == 0
    [event] = zones.observe("box1", [FIVE], at=2)
    assert (event.added, event.removed, event.updated, event.total_cents) == ((), (), (FIVE,), 500)


def test_value_comes_from_the_callers_function() -> None:
    zones = ZoneTracker(["box1"], value_of=lambda tag: 0 if tag.uid == TEN.uid else 1)
    zones.observe("box1", [FIVE, TEN], at=0)
    zones.observe("box1", [FIVE, TEN], at=1)
    assert zones.total_cents("box1") == 1


def test_unknown_zone_and_bad_rule_are_errors() -> None:
    with pytest.raises(UnknownZoneError, match="box9"):
        tracker().observe("box9", [], at=0)
    with pytest.raises(ConfigError):
        DebounceRule(vanish_scans=0)


@given(st.lists(st.booleans(), min_size=1, max_size=200))
def test_flicker_shorter_than_the_rule_never_removes_a_chip(reads: list[bool]) -> None:
    # Any pattern of reads whose runs of misses are shorter than vanish_scans.
    run = 0
    pattern = []
    for read in reads:
        run = 0 if read else run + 1
        pattern.append(read or run >= 5)
    zones = tracker()
    zones.observe("box1", [HUNDRED], at=-2)
    zones.observe("box1", [HUNDRED], at=-1)
    for scan, read in enumerate(pattern):
        assert zones.observe("box1", [HUNDRED] if read else [], at=scan) == []


def test_a_forty_chip_stack_at_ten_percent_misses_stays_whole() -> None:
    rng = random.Random(11)
    stack = [Tag(uid=f"E0040000000{i:05X}", denomination_cents=2500, casino_id=1) for i in range(40)]
    zones = tracker()
    events = []
    for scan in range(600):  # a minute at 10 scans/s
        events += zones.observe("box1", [tag for tag in stack if rng.random() >= 0.1], at=scan / 10)
    assert [event.removed for event in events] == [()] * len(events)
    assert zones.total_cents("box1") == 40 * 2500


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
