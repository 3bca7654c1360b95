"""The real FEIG driver against a hostile or broken reader on a pty: each mode ends in an alarm, never a wrong amount.

The driver (drivers/feig_reader.py) reads the simulated reader (simulators/feig_reader.py) with its hostile faults
(another COM-ADR answering, lost inventory replies, a reader slower than the timeout, endless "more data"), and
every event goes through the readers' edge (table_runtime/chips/edge.py) as the runtime hears it: the zones'
amounts are those the table would count, the alarms those it would raise.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field

import pytest

from drivers.feig_reader import FAILING_SCANS, MAX_PAGES, FeigChipReader, FeigSettings
from drivers.ports import ChipsScanned, ReaderOffline, ReaderOnline
from firmware_bridge.rfid import AntennaStatus, Tag
from simulators.feig_reader import SimulatedFeigReader
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.edge import ZoneReporter
from table_runtime.chips.registry import RegisteredChip
from table_runtime.core.inputs import ZoneChanged
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm

pytestmark = pytest.mark.timeout(60)

ZONES = {1: "box1", 2: "box1.behind", 3: "box1.insurance", 4: "box2"}
FAST = "scan_interval=0.01&reconnect_interval=0.05"


def registry_of(*stacks: list[Tag]) -> dict[str, RegisteredChip]:
    return {chip.uid: RegisteredChip(uid=chip.uid, denomination_cents=chip.denomination_cents or 0, casino_id=7,
                                     status="active") for stack in stacks for chip in stack}


@dataclass
class Table:
    """The driver's events through the edge: every amount each zone was reported at, every alarm, the events."""

    reader: FeigChipReader
    edge: ZoneReporter
    amounts: dict[str, list[int]] = field(default_factory=dict)
    alarms: list[Alarm] = field(default_factory=list)
    events: list[object] = field(default_factory=list)

    async def until(self, test: Callable[[], bool], what: str, seconds: float = 15.0) -> None:
        try:
            async with asyncio.timeout(seconds):
                while not test():
                    event = await self.reader.next_event()
                    self.events.append(event)
                    for out in self.edge.reader_event(event):
                        if isinstance(out, ZoneChanged):
                            self.amounts.setdefault(out.zone, []).append(sum(chip.cents for chip in out.chips))
                        else:
                            self.alarms.append(out)
        except TimeoutError:
            raise AssertionError(f"never: {what} (within {seconds:g} s)") from None

    async def watch(self, seconds: float) -> None:
        """Take the events of the next `seconds`."""
        with contextlib.suppress(AssertionError):
            await self.until(lambda: False, "", seconds)

    def amount(self, zone: str) -> int | None:
        reported = self.amounts.get(zone)
        return reported[-1] if reported else None

    def alarmed(self, kind: AlarmKind, text: str = "") -> bool:
        return any(alarm.kind == kind and text in alarm.message for alarm in self.alarms)

    def scans(self) -> list[ChipsScanned]:
        return [event for event in self.events if isinstance(event, ChipsScanned)]


@pytest.fixture
def issuer() -> ChipIssuer:
    return ChipIssuer(7, seed=30)


@pytest.fixture
def device() -> Iterator[SimulatedFeigReader]:
    with SimulatedFeigReader(ZONES, realistic=False, page_tags=8) as simulated:
        yield simulated


@pytest.fixture
def stake(issuer: ChipIssuer) -> list[Tag]:
    return issuer.issue(2500, 2)  # 50.00 on box1


@contextlib.asynccontextmanager
async def table_on(device: SimulatedFeigReader, stake: list[Tag], *others: list[Tag],
                   timeout: float = 1.0) -> AsyncIterator[Table]:
    device.place("box1", *stake)
    settings = FeigSettings.from_url(f"{device.url}&{FAST}&timeout={timeout:g}", ZONES, name="left")
    async with FeigChipReader(settings) as reader:
        table = Table(reader, ZoneReporter(ZONES.values(), registry=registry_of(stake, *others), casino_id=7))
        await table.until(lambda: table.amount("box1") == 5000, "box1 read at 50.00")
        yield table


async def test_a_reply_from_another_com_adr_is_never_used_and_the_reader_is_offline_with_the_reason(
        device: SimulatedFeigReader, stake: list[Tag], issuer: ChipIssuer) -> None:
    forged = issuer.issue(50000, 2)  # 1,000.00: the impostor's box1
    async with table_on(device, stake, forged) as table:
        impostor = device.add_impostor(7)
        impostor.place("box1", *forged)
        await table.until(lambda: table.alarmed(AlarmKind.READER_OFFLINE), "the reader offline")
        assert table.alarmed(AlarmKind.READER_OFFLINE, "a reply from COM-ADR 7 on the line of the reader at COM-ADR 0")
        await table.watch(0.5)  # the impostor keeps answering: the reader stays offline, nothing is read from it
        assert not table.reader.online
        assert set(table.amounts["box1"]) == {5000}
        device.remove_impostor()
        await table.until(lambda: table.reader.online and any(
            isinstance(e, ChipsScanned) for e in table.events[-3:]), "the reader back once alone on its line")
        assert set(table.amounts["box1"]) == {5000}


async def test_a_lost_inventory_reply_is_asked_again_from_a_new_rf_reset(
        device: SimulatedFeigReader, stake: list[Tag]) -> None:
    async with table_on(device, stake) as table:
        before = len(table.scans())
        device.lose_inventory_replies(1)  # the tags answered and went quiet; the reply never reached the host
        await table.until(lambda: len(table.scans()) >= before + 5, "five more scans")
        box1 = [next(r for r in scan.readings if r.zone == "box1") for scan in table.scans()[before:]]
        assert all({tag.uid for tag in reading.tags} == {chip.uid for chip in stake} and reading.complete
                   for reading in box1)  # without the RF reset the retry would read box1 empty
        assert table.reader.online and not table.alarms


async def test_inventory_replies_lost_for_ever_leave_the_zones_unknown_with_an_alarm_then_offline(
        device: SimulatedFeigReader, stake: list[Tag]) -> None:
    async with table_on(device, stake, timeout=0.15) as table:
        device.lose_inventory_replies(10_000)
        await table.until(lambda: table.alarmed(AlarmKind.ANTENNA_FAULT, "box1: left output 1: no inventory reply"),
                          "an antenna alarm naming box1 and its output")
        unread = [r for scan in table.scans() for r in scan.readings if r.zone == "box1" and not r.complete]
        assert unread and unread[0].status == AntennaStatus.RF_NOISE and "after a new RF reset" in unread[0].detail
        await table.until(lambda: table.alarmed(AlarmKind.READER_OFFLINE), "the reader offline", seconds=30)
        offline = next(e for e in table.events if isinstance(e, ReaderOffline))
        assert f"{FAILING_SCANS} scans in a row could not complete" in offline.reason
        assert set(table.amounts["box1"]) == {5000}  # never 0: an unread zone is not an empty one
        device.lose_inventory_replies(0)
        await table.until(lambda: table.reader.online and isinstance(table.events[-1], ChipsScanned),
                          "the reader online once a scan completes", seconds=30)
        assert set(table.amounts["box1"]) == {5000}


async def test_a_reader_slower_than_the_timeout_is_offline_and_never_empties_a_zone(
        device: SimulatedFeigReader, stake: list[Tag]) -> None:
    async with table_on(device, stake, timeout=0.5) as table:
        device.slow_down(0.7)  # every reply later than the host waits, well before it stops waiting (1 s)
        await table.until(lambda: table.alarmed(AlarmKind.READER_OFFLINE), "the reader offline")
        assert table.alarmed(AlarmKind.READER_OFFLINE, "replies later than the 0.5 s timeout")
        assert table.reader.late_replies >= 1
        await table.watch(1.0)
        assert set(table.amounts["box1"]) == {5000}
        device.slow_down(0.0)
        await table.until(lambda: isinstance(table.events[-1], ReaderOnline) or (
            table.reader.online and isinstance(table.events[-1], ChipsScanned)), "the reader back", seconds=20)
        assert set(table.amounts["box1"]) == {5000}


async def test_endless_more_data_is_bounded_per_scan_then_the_reader_is_offline(
        device: SimulatedFeigReader, stake: list[Tag]) -> None:
    async with table_on(device, stake) as table:
        device.more_data_forever()
        await table.until(lambda: table.alarmed(AlarmKind.ANTENNA_FAULT, f"more data (0x94) after {MAX_PAGES} pages"),
                          "an antenna alarm naming the endless pages")
        assert table.alarmed(AlarmKind.ANTENNA_FAULT, "box2: left output 4: ")
        await table.until(lambda: table.alarmed(AlarmKind.READER_OFFLINE), "the reader offline")
        assert table.alarmed(AlarmKind.READER_OFFLINE, "more data (0x94)")
        assert set(table.amounts["box1"]) == {5000}
        device.more_data_forever(False)
        await table.until(lambda: table.reader.online and isinstance(table.events[-1], ChipsScanned),
                          "the reader online once a scan completes")
        assert set(table.amounts["box1"]) == {5000}
