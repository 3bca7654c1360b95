"""`table-bench soak`: rounds on the live devices with faults; the feed must carry every journal entry."""

from __future__ import annotations

import pytest

from simulators.bench.soak import SoakSettings, rss_kib, soak


@pytest.mark.timeout(240)
@pytest.mark.slow
async def test_a_short_soak_with_faults_and_the_feed_is_healthy() -> None:
    report = await soak(SoakSettings(rounds=6, seed=2, mqtt=True, fault_rate=1.0, error_rate=0.0))
    assert report.rounds == 6, report.text()
    assert report.healthy, report.text()
    assert sum(report.faults.values()) == 6  # one armed per round (fault_rate 1.0), each fired, the last after play
    assert report.published == report.journaled > 100
    assert report.rss_start_kib > 0 and report.rss_end_kib > 0
    assert "events published: " in report.text() and report.as_dict()["healthy"] is True


def test_rss_is_read_from_proc() -> None:
    assert rss_kib() > 1000
