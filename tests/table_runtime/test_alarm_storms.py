"""Hostile input stays bounded: storms of junk tags and of cards are a few alarms, commits and bytes.

The real path: the readers' edge (`ZoneReporter`) and the controller with its
journal, through `TableApp` (a scan as the pyusb driver delivers it, and a
burst of shoe events as the serial driver queues them); and once through the
pyusb driver on the simulated reader. Each test counts the journal's commits
(`Journal.commit_observer`), the alarms on the board and in the journal, and
the size of the snapshot the display and the feed are sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from drivers.chip_reader import ReaderSettings, UsbChipReader
from drivers.ports import ChipsScanned, ZoneReading
from firmware_bridge.rfid import Tag
from firmware_bridge.shoe import events as shoe_events
from simulators.rfid_backend import SIM_PRODUCT_ID, SIM_VENDOR_ID, RfidBackend, SimulatedReader
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.edge import ZoneReporter
from table_runtime.core.alarm_ledger import SHOWN_MAX
from table_runtime.core.inputs import REFUSED_LISTED
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.game.snapshot import HELD_SHOWN
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.shoe_link import BURST_MAX

pytestmark = pytest.mark.timeout(120)

CASINO = 42
ZONES = ("box1", "box1.behind", "box2")
SNAPSHOT_CAP = 20_000  # bytes of JSON: the snapshot of a quiet table is about 1 KB


@dataclass
class Table:
    journal: Journal
    controller: TableController
    reporter: ZoneReporter
    app: TableApp
    commits: list[float]

    def rows(self, kind: str) -> list[dict[str, Any]]:
        return [entry.body for entry in self.journal.entries(kinds=(kind,))]

    def snapshot_bytes(self) -> int:
        return len(json.dumps(self.controller.snapshot()))

    def scan(self, tags: dict[str, tuple[Tag, ...]], at: float) -> None:
        readings = tuple(ZoneReading(zone=zone, tags=tags.get(zone, ())) for zone in ZONES)
        self.app.report_chips(self.reporter.reader_event(ChipsScanned(reader="left", at=at, readings=readings)))


@contextlib.contextmanager
def open_table(path: Path) -> Iterator[Table]:
    with Journal.open(journal_path(path)) as journal:
        controller = TableController(table_id="T", rules=profile("fr-casino"), journal=journal, clock=lambda: 1.0,
                                     limits=TableLimits(min_bet_cents=1000, max_bet_cents=50_000), zones=ZONES)
        commits: list[float] = []
        journal.commit_observer = commits.append
        reporter = ZoneReporter(ZONES, registry={}, casino_id=CASINO)  # an empty registry: every tag is junk
        yield Table(journal, controller, reporter, TableApp(controller, chips=reporter), commits)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    with open_table(tmp_path) as table:
        yield table


def junk(count: int, first: int = 0) -> tuple[Tag, ...]:
    return tuple(Tag(uid=f"{0xE0040150_00000000 + first + n:016X}", denomination_cents=500, casino_id=CASINO)
                 for n in range(count))


def test_ten_thousand_junk_tags_in_one_scan_are_one_alarm_one_commit(table: Table, tmp_path: Path) -> None:
    tags = junk(10_000)
    for scan in range(table.reporter.settle_scans + 2):
        table.scan({"box1": tags}, at=scan * 0.1)
    (alarm,) = table.controller.alarms.active
    assert (alarm["kind"], alarm["box"], alarm["count"]) == (AlarmKind.COUNTERFEIT_CHIP, 1, 10_000)
    assert "10000 counterfeit chips" in alarm["message"]
    assert len(table.commits) == 1  # the one scan that reported the zone: its input and its alarm together
    assert len(table.rows("alarm")) == 1
    (change,) = [body for body in table.rows("input") if body.get("zone") == "box1"]
    # The input lists the first REFUSED_LISTED junk chips and counts the others: a small row, and the count kept.
    assert len(change["chips"]) == REFUSED_LISTED
    assert change["unlisted"] == {AlarmKind.COUNTERFEIT_CHIP: 10_000 - REFUSED_LISTED}
    assert len(json.dumps(change)) < 10_000
    assert table.snapshot_bytes() < SNAPSHOT_CAP

    # Another storm on the same box while the alarm is open: the open alarm counts it (one row per step).
    more = junk(10_000, first=10_000)
    for scan in range(table.reporter.settle_scans + 2):
        table.scan({"box1": tags, "box1.behind": more}, at=10 + scan * 0.1)
    (alarm,) = table.controller.alarms.active
    assert alarm["count"] == 20_000
    (update,) = table.rows("alarm_updated")
    assert (update["type"], update["id"], update["count"]) == ("AlarmUpdated", alarm["id"], 20_000)
    assert len(table.commits) == 2
    assert table.snapshot_bytes() < SNAPSHOT_CAP

    # A restart rebuilds the same board from the journal.
    table.journal.release_writer()
    with open_table(tmp_path) as restarted:
        assert [(a["id"], a["kind"], a["count"]) for a in restarted.controller.alarms.active] == [
            (alarm["id"], AlarmKind.COUNTERFEIT_CHIP, 20_000)]
        restarted.journal.release_writer()
    table.journal.claim_writer()

    # Acknowledged, the next junk chip raises a new alarm.
    table.controller.acknowledge(int(alarm["id"]))
    for scan in range(table.reporter.settle_scans + 2):
        table.scan({"box1": tags, "box1.behind": more, "box2": junk(1, first=50_000)}, at=20 + scan * 0.1)
    (fresh,) = table.controller.alarms.active
    assert (fresh["box"], fresh["count"]) == (2, 1)


async def test_a_card_storm_is_one_alarm_and_a_few_commits(table: Table) -> None:
    table.controller.submit(ShoeShuffled(shoe_id="S1"), source="shoe")
    before = len(table.commits)
    cards = [shoe_events.CardDrawn(sequence=n, code=f"{'23456789TJQKA'[n % 13]}{'SHDC'[n // 13 % 4]}",
                                   card_number=n + 1, raw_code=0x11) for n in range(1000)]
    burns = table.controller.table.shoe.burns_left
    for start in range(0, len(cards), BURST_MAX):  # as the shoe loop takes them: bursts of BURST_MAX
        await table.app.shoe_link.take(cards[start : start + BURST_MAX])
    kinds = {alarm["kind"]: alarm["count"] for alarm in table.controller.alarms.active}
    stray = 1000 - burns
    assert kinds == {AlarmKind.CARD_NO_HAND: 312 - burns, AlarmKind.CARD_OVERCOUNT: stray - (312 - burns)}
    assert len(table.commits) - before == -(-1000 // BURST_MAX)
    assert len(table.rows("alarm")) == 2
    assert len(table.rows("alarm_updated")) <= 2 * -(-1000 // BURST_MAX)
    assert len([body for body in table.rows("input") if body["type"] == "CardDrawn"]) == 1000
    assert table.snapshot_bytes() < SNAPSHOT_CAP
    snapshot = table.controller.snapshot()
    held = len(table.controller.table.held_cards.codes)
    assert len(snapshot["held_cards"]) == HELD_SHOWN and snapshot["held_cards_hidden"] == held - HELD_SHOWN


async def test_unreadable_cards_in_a_burst_are_counted_by_one_alarm(table: Table) -> None:
    await table.app.shoe_link.take([shoe_events.UnreadableCard(sequence=n, card_number=n + 1)
                                    for n in range(BURST_MAX)])
    (alarm,) = table.controller.alarms.active
    assert (alarm["kind"], alarm["count"]) == (AlarmKind.UNREADABLE_CARD, BURST_MAX)
    assert len(table.commits) == 1


def test_the_snapshot_carries_at_most_shown_max_alarms(table: Table) -> None:
    table.controller.raise_alarms([Alarm(kind=AlarmKind.PAST_POSTING, box=1, rule=citations.PAST_POSTING,
                                         message=f"box1: chip {n} added", amounts=(("seen_cents", n),))
                                   for n in range(SHOWN_MAX + 50)])
    assert len(table.commits) == 1
    snapshot = table.controller.snapshot()
    assert len(snapshot["alarms"]) == SHOWN_MAX and snapshot["alarms_hidden"] == 50
    assert snapshot["alarms"][0]["message"] == "box1: chip 0 added"  # the oldest first


async def test_junk_tags_through_the_reader_are_one_alarm_per_box(tmp_path: Path) -> None:
    antennas = {1: "box1", 2: "box1.behind", 3: "box2"}
    device = SimulatedReader(antennas, max_tags=255, seed=1)
    issuer = ChipIssuer(CASINO, seed=9)
    for zone in antennas.values():
        device.place(zone, *(issuer.counterfeit(500) for _ in range(250)))
    settings = ReaderSettings(vendor_id=SIM_VENDOR_ID, product_id=SIM_PRODUCT_ID, antenna_zones=antennas,
                              name="left", scan_interval=0.01, reconnect_interval=0.02, timeout_ms=500)
    with open_table(tmp_path) as table:
        async with UsbChipReader(settings, backend=RfidBackend([device])) as reader:
            async with asyncio.timeout(30):
                while sum(alarm["count"] for alarm in table.controller.alarms.active) < 750:
                    table.app.report_chips(table.reporter.reader_event(await reader.next_event()))
        counts = sorted((alarm["box"], alarm["count"]) for alarm in table.controller.alarms.active)
        assert counts == [(1, 500), (2, 250)]
        assert len(table.rows("alarm")) == 2
        assert len(table.commits) <= 3  # the scans that first reported the zones
        assert table.snapshot_bytes() < SNAPSHOT_CAP
