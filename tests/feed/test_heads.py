"""When the publisher's head is due (table_runtime/feed/heads.py), on an injected clock."""

from __future__ import annotations

from table_runtime.feed.heads import HeadSchedule


def test_a_head_at_first_then_after_a_burst_past_it_and_every_interval() -> None:
    schedule = HeadSchedule(5.0)
    assert schedule.due(0, idle=False, now=0.0)  # at connection
    schedule.sent(120, 0.0)
    assert not schedule.due(120, idle=True, now=1.0)  # nothing new, not yet 5 s
    assert not schedule.due(130, idle=False, now=1.0)  # a burst still in flight
    assert schedule.due(130, idle=True, now=1.0)  # the burst is sent
    schedule.sent(130, 1.0)
    assert not schedule.due(130, idle=True, now=5.9)
    assert schedule.due(130, idle=True, now=6.0)  # refreshed while idle
    assert schedule.due(200, idle=False, now=6.0)  # and while busy
