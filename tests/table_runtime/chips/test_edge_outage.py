"""The readers' edge across a journal outage: the zones re-reported when the journal takes rows again are the very
inputs the normal path builds (the first REFUSED_LISTED refused chips listed, the others counted by kind).

Through the edge (`ZoneReporter`), `TableApp` and the controller with its journal on a real small file system
(a tmpfs, tests/small_disk.py) that fills up and is freed again.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.ports import ChipsScanned, ZoneReading
from firmware_bridge.rfid import Tag
from table_runtime.chips.edge import ZoneReporter
from table_runtime.core.inputs import REFUSED_LISTED
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.inputs import ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, JournalUnwritableError, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController
from tests.small_disk import SmallDisk, small_disk

CASINO = 42
ZONES = ("box1", "box2")
COUNTERFEIT = 40  # more than REFUSED_LISTED: 8 of them are counted, not listed


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[SmallDisk]:
    with small_disk(tmp_path / "card") as mounted:
        yield mounted


def junk(count: int, first: int) -> tuple[Tag, ...]:
    return tuple(Tag(uid=f"{0xE0040150_00000000 + first + n:016X}", denomination_cents=500, casino_id=CASINO)
                 for n in range(count))


def zone_rows(journal: Journal, zone: str) -> list[dict[str, Any]]:
    return [entry.body for entry in journal.entries(kinds=("input",)) if entry.body.get("zone") == zone]


def counterfeit_alarms(journal: Journal) -> list[tuple[str, dict[str, Any]]]:
    return [(entry.kind, entry.body) for entry in journal.entries(kinds=("alarm", "alarm_updated"))
            if entry.kind == "alarm_updated" or entry.body["kind"] == AlarmKind.COUNTERFEIT_CHIP]


async def test_zones_re_reported_after_an_outage_list_and_count_as_before(disk: SmallDisk) -> None:
    with Journal.open(journal_path(disk.path)) as journal:
        controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                                     clock=lambda: 1_800_000_000.0, zones=ZONES)
        reporter = ZoneReporter(ZONES, registry={}, casino_id=CASINO)  # an empty registry: every tag is junk
        app = TableApp(controller, chips=reporter)
        on_box1, on_box2 = junk(COUNTERFEIT, first=0), junk(COUNTERFEIT, first=1000)
        now = 0.0

        def scan(tags: dict[str, tuple[Tag, ...]]) -> None:
            nonlocal now
            for _ in range(reporter.settle_scans + 1):
                now += 0.1
                readings = tuple(ZoneReading(zone=zone, tags=tags.get(zone, ())) for zone in ZONES)
                app.report_chips(reporter.reader_event(ChipsScanned(reader="r", at=now, readings=readings)))

        scan({"box1": on_box1})
        (box1_row,) = zone_rows(journal, "box1")
        assert len(box1_row["chips"]) == REFUSED_LISTED
        assert box1_row["unlisted"] == {AlarmKind.COUNTERFEIT_CHIP: COUNTERFEIT - REFUSED_LISTED}
        ((_, box1_alarm),) = counterfeit_alarms(journal)
        assert (box1_alarm["box"], box1_alarm["count"]) == (1, COUNTERFEIT)
        assert [row["chips"] for row in zone_rows(journal, "box2")] == [[]]  # read empty

        # The card fills up: the journal refuses the next input, and box2's 40 junk chips come during the outage.
        disk.fill()
        with pytest.raises(JournalUnwritableError):
            for _ in range(1000):
                controller.submit(ShoeShuffled(shoe_id="S1"))
        assert controller.outage is not None
        scan({"box1": on_box1, "box2": on_box2})
        assert len(zone_rows(journal, "box2")) == 1  # refused: reported again once the journal is back

        disk.free()
        assert controller.retry_journal() is True
        assert await app.run_queued() == 1  # the app re-reports the zones in a step of its own, after the retry
        assert controller.outage is None

        # box1 was journaled before the outage: its re-report is the same input, so nothing is written for it.
        assert zone_rows(journal, "box1") == [box1_row]
        # box2 is journaled as the normal path would have: 32 listed, 8 counted.
        (_, box2_row) = zone_rows(journal, "box2")
        assert len(box2_row["chips"]) == REFUSED_LISTED
        assert box2_row["unlisted"] == {AlarmKind.COUNTERFEIT_CHIP: COUNTERFEIT - REFUSED_LISTED}
        # One alarm per box, each counting its 40 chips once; no second alarm, no update counting more.
        alarms = counterfeit_alarms(journal)
        assert [(kind, body["box"], body["count"]) for kind, body in alarms] == [
            ("alarm", 1, COUNTERFEIT), ("alarm", 2, COUNTERFEIT)]
        assert sorted((alarm["box"], alarm["count"]) for alarm in controller.alarms.active
                      if alarm["kind"] == AlarmKind.COUNTERFEIT_CHIP) == [(1, COUNTERFEIT), (2, COUNTERFEIT)]

        # And a second re-report (the readers' edge asked again) changes nothing either.
        last = journal.last_seq
        app.report_chips(reporter.reported())
        assert journal.last_seq == last
