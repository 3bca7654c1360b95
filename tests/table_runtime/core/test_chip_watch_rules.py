"""The chip watch's zone rules on their own: past-posting outside a window, never inside; integrity alarms once."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from table_runtime.core.chip_watch import ChipWatch, Lock, Phase, Window
from table_runtime.core.inputs import ZoneChanged, ZoneChip

ZONES = ("box1", "box1.behind", "box2", "box2.behind")


def chip(n: int) -> ZoneChip:
    return ZoneChip(uid=f"E004{n:012X}", cents=500)


def locked_watch(contents: dict[str, tuple[ZoneChip, ...]]) -> ChipWatch:
    watch = ChipWatch(ZONES)
    for zone in ZONES:
        watch.zone_changed(ZoneChanged(zone=zone, chips=contents.get(zone, ())))
    watch.phase, watch.round_number = Phase.LOCKED, 1
    watch.locks = {zone: Lock(sum(c.cents for c in chips), frozenset(c.uid for c in chips))
                   for zone, chips in ((zone, contents.get(zone, ())) for zone in ZONES)}
    return watch


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ZONES), st.booleans(), st.integers(1, 3), st.booleans()), max_size=8))
def test_every_change_outside_a_window_is_past_posting_and_none_inside(
        steps: list[tuple[str, bool, int, bool]]) -> None:
    fresh = iter(range(100, 1000))
    watch = locked_watch({"box1": (chip(1), chip(2), chip(3), chip(4), chip(5)), "box2.behind": (chip(6), chip(7))})
    for zone, adding, count, in_window in steps:
        before = watch.contents[zone]
        if in_window:
            watch.windows[zone] = Window("double", int(zone[3]), 500 * count)
        now = before + tuple(chip(next(fresh)) for _ in range(count)) if adding else before[count:]
        raised = [alarm for alarm in watch.zone_changed(ZoneChanged(zone=zone, chips=now))
                  if alarm.kind == "past_posting"]
        back_as_locked = frozenset(c.uid for c in now) == watch.locks[zone].uids
        # Put back exactly as locked is quiet; any other change outside a window is one alarm naming the zone.
        assert len(raised) == (1 if now != before and not back_as_locked and not in_window else 0)
        if raised:
            assert raised[0].message.startswith(f"{zone}: ") and dict(raised[0].amounts)["seen_cents"] == sum(
                c.cents for c in now)
        if in_window:
            del watch.windows[zone]
            watch.locks[zone] = Lock(sum(c.cents for c in now), frozenset(c.uid for c in now))


def test_a_chip_the_registry_refuses_is_an_alarm_once_where_it_lies_and_again_where_it_goes() -> None:
    """table check, docs/rules.md « Chip integrity »: a registry update (a chip reported stolen mid-shift) applies to
    the chips already
    on the zones; the same verdict reported again raises nothing; the chip moved to another zone does."""
    watch = ChipWatch(ZONES)
    good, other = chip(1), chip(2)
    assert watch.zone_changed(ZoneChanged(zone="box2", chips=(good, other))) == []
    stolen = ZoneChip(uid=good.uid, cents=0, refused="stolen_chip", detail="the registry marks it stolen",
                      registry_cents=500, tag_cents=500)
    (alarm,) = watch.zone_changed(ZoneChanged(zone="box2", chips=(stolen, other)))
    assert (alarm.kind, alarm.box, dict(alarm.amounts)) == ("stolen_chip", 2, {"expected_cents": 500,
                                                                              "seen_cents": 500})
    assert good.uid in alarm.message and watch.total("box2") == 500  # it counts for nothing
    assert watch.zone_changed(ZoneChanged(zone="box2", chips=(stolen, other))) == []
    assert watch.zone_changed(ZoneChanged(zone="box2", chips=(other,))) == []
    (moved,) = watch.zone_changed(ZoneChanged(zone="box1", chips=(stolen,)))
    assert (moved.kind, moved.box) == ("stolen_chip", 1)
