"""The real FEIG ISO-Host driver on a pty (and on loopback TCP) against the simulated FEIG reader."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from drivers.feig_reader import FeigChipReader, FeigSettings
from drivers.ports import ChipsScanned, ReaderEvent, ReaderOffline, ReaderOnline
from firmware_bridge.feig import Status
from firmware_bridge.rfid import AntennaStatus, BlockStatus
from simulators.feig_firmware import INSTANT, FeigFirmware
from simulators.feig_reader import SimulatedFeigReader, level_number
from simulators.feig_usb import FeigUsbBackend
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.edge import ZoneReporter
from table_runtime.errors import ConfigError
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm

pytestmark = pytest.mark.timeout(30)

ZONES = {1: "box1", 2: "box1.behind", 3: "box1.insurance", 4: "box2"}
FAST = "scan_interval=0.01&reconnect_interval=0.05&timeout=1"  # replies take milliseconds; a busy machine


@pytest.fixture
def device() -> Iterator[SimulatedFeigReader]:
    with SimulatedFeigReader(ZONES, realistic=False, tcp=True, page_tags=8) as simulated:
        yield simulated


@pytest.fixture
async def reader(device: SimulatedFeigReader) -> AsyncIterator[FeigChipReader]:
    settings = FeigSettings.from_url(f"{device.url}&{FAST}", ZONES, name="left")
    async with FeigChipReader(settings) as running:
        yield running


async def until(reader: FeigChipReader, test: Callable[[ReaderEvent], bool], seconds: float = 5.0) -> ReaderEvent:
    async with asyncio.timeout(seconds):
        while True:
            event = await reader.next_event()
            if test(event):
                return event


def zone_uids(event: ReaderEvent, zone: str) -> set[str]:
    assert isinstance(event, ChipsScanned)
    return {tag.uid for reading in event.readings if reading.zone == zone for tag in reading.tags}


def status_of(event: ReaderEvent, zone: str) -> AntennaStatus:
    assert isinstance(event, ChipsScanned)
    return next(reading.status for reading in event.readings if reading.zone == zone)


async def test_identifies_then_reads_chips_with_their_blocks_per_zone(
        reader: FeigChipReader, device: SimulatedFeigReader) -> None:
    online = await until(reader, lambda e: isinstance(e, ReaderOnline))
    assert isinstance(online, ReaderOnline)
    assert online.firmware.startswith("3.03.00") and online.protocol == "FEIG ISO-Host advanced"
    assert online.serial == f"12345678 ({device.link} adr 0)"  # the device id (0x66), then the line
    issuer = ChipIssuer(7, seed=1)
    stake, behind = issuer.issue(2500, 2), issuer.issue(10000, 1)
    device.place("box1", *stake)
    device.place("box1.behind", *behind)
    event = await until(reader, lambda e: isinstance(e, ChipsScanned) and zone_uids(e, "box1") == {c.uid for c in stake}
                        and zone_uids(e, "box1.behind") == {behind[0].uid})
    assert isinstance(event, ChipsScanned)
    tags = {tag.uid: tag for reading in event.readings for tag in reading.tags}
    assert {tags[c.uid].denomination_cents for c in stake} == {2500}
    assert tags[behind[0].uid].casino_id == 7 and tags[behind[0].uid].block_status == BlockStatus.OK
    assert [reading.zone for reading in event.readings] == ["box1", "box1.behind", "box1.insurance", "box2"]


async def test_every_scan_sees_every_chip_because_it_resets_the_rf_first(
        reader: FeigChipReader, device: SimulatedFeigReader) -> None:
    chips = ChipIssuer(7, seed=2).issue(500, 3)
    device.place("box2", *chips)
    await until(reader, lambda e: isinstance(e, ChipsScanned) and len(zone_uids(e, "box2")) == 3)
    for _ in range(5):  # without the RF reset the quiet tags would vanish from the next scans
        event = await until(reader, lambda e: isinstance(e, ChipsScanned))
        assert len(zone_uids(event, "box2")) == 3


async def test_a_stack_larger_than_a_reply_is_read_page_by_page(
        reader: FeigChipReader, device: SimulatedFeigReader) -> None:
    chips = ChipIssuer(7, seed=3).issue(100, 30)  # pages of 8: four replies, three of them 0x94
    device.place("box1", *chips)
    await until(reader, lambda e: isinstance(e, ChipsScanned) and len(zone_uids(e, "box1")) == 30)


async def test_a_chip_block_is_read_once_while_it_stays(reader: FeigChipReader, device: SimulatedFeigReader) -> None:
    chip = ChipIssuer(7, seed=4).issue(500, 1)
    device.place("box1", *chip)
    await until(reader, lambda e: isinstance(e, ChipsScanned) and zone_uids(e, "box1") == {chip[0].uid})
    before = reader.requests
    scans = reader.scans
    await until(reader, lambda e: isinstance(e, ChipsScanned) and reader.scans >= scans + 3)
    per_scan = (reader.requests - before) / (reader.scans - scans)
    assert per_scan < 1 + 4 + 1  # an RF reset and an inventory per antenna; no block read any more


async def test_an_antenna_fault_marks_its_zone_only(reader: FeigChipReader, device: SimulatedFeigReader) -> None:
    device.set_antenna_fault("box1.behind")
    event = await until(reader, lambda e: isinstance(e, ChipsScanned) and status_of(e, "box1.behind")
                        == AntennaStatus.OPEN)
    assert [status_of(event, zone) for zone in ("box1", "box1.insurance", "box2")] == [AntennaStatus.OK] * 3
    device.set_antenna_fault("box1.behind", False)
    await until(reader, lambda e: isinstance(e, ChipsScanned) and status_of(e, "box1.behind") == AntennaStatus.OK)


async def test_busy_skips_a_scan_without_going_offline(reader: FeigChipReader, device: SimulatedFeigReader) -> None:
    await until(reader, lambda e: isinstance(e, ChipsScanned))
    device.fail_next(Status.BUSY, 3)
    scans = reader.scans
    await until(reader, lambda e: isinstance(e, ReaderOffline) or (isinstance(e, ChipsScanned)
                                                                   and reader.scans > scans + 2))
    assert reader.online


async def test_a_corrupted_reply_is_asked_again_not_an_outage(
        reader: FeigChipReader, device: SimulatedFeigReader) -> None:
    await until(reader, lambda e: isinstance(e, ChipsScanned))
    device.corrupt_next(1)
    scans = reader.scans
    event = await until(reader, lambda e: isinstance(e, ReaderOffline) or reader.scans > scans + 2)
    assert not isinstance(event, ReaderOffline)


async def test_a_silent_reader_is_offline_then_back(reader: FeigChipReader, device: SimulatedFeigReader) -> None:
    await until(reader, lambda e: isinstance(e, ChipsScanned))
    # Three frames unanswered: a request asked twice without a reply, whichever the silence starts at (a lost
    # inventory reply is asked again after a new RF reset: the reset then goes unanswered twice). Each is waited
    # for twice its timeout of 1 s (a late reply is never taken for the next one's): offline after some 4 s.
    device.go_silent(3)
    offline = await until(reader, lambda e: isinstance(e, ReaderOffline), seconds=20.0)
    assert isinstance(offline, ReaderOffline)
    assert "no reply" in offline.reason and offline.zones == ("box1", "box1.behind", "box1.insurance", "box2")
    await until(reader, lambda e: isinstance(e, ReaderOnline))


async def test_unplugged_then_replugged_at_the_same_path(reader: FeigChipReader, device: SimulatedFeigReader) -> None:
    await until(reader, lambda e: isinstance(e, ChipsScanned))
    device.unplug()
    await until(reader, lambda e: isinstance(e, ReaderOffline))
    assert not reader.online
    device.replug()
    chip = ChipIssuer(7, seed=5).issue(2000, 1)
    device.place("box2", *chip)
    await until(reader, lambda e: isinstance(e, ReaderOnline))
    await until(reader, lambda e: isinstance(e, ChipsScanned) and zone_uids(e, "box2") == {chip[0].uid})


async def test_a_reader_without_reader_info_is_named_by_its_line() -> None:
    with SimulatedFeigReader(ZONES, realistic=False, device_id=None) as device:
        async with FeigChipReader(FeigSettings.from_url(f"{device.url}&{FAST}", ZONES)) as reader:
            online = await until(reader, lambda e: isinstance(e, ReaderOnline))
            assert isinstance(online, ReaderOnline) and online.serial == f"{device.link} adr 0"
            await until(reader, lambda e: isinstance(e, ChipsScanned))


async def test_the_same_reader_over_tcp_and_in_standard_frames(device: SimulatedFeigReader) -> None:
    chip = ChipIssuer(7, seed=6).issue(500, 1)
    device.place("box1", *chip)
    for url in (f"{device.tcp_url}&{FAST}", f"{device.url}&frame=standard&{FAST}"):
        async with FeigChipReader(FeigSettings.from_url(url, ZONES)) as reader:
            await until(reader, lambda e: isinstance(e, ChipsScanned) and zone_uids(e, "box1") == {chip[0].uid})


async def test_a_multiplexer_reports_each_channel_as_its_zone() -> None:
    zones = {level_number(index): zone for index, zone in enumerate(["box1", "box2", "box3", "box4", "box5",
                                                                     "box6", "box7", "box1.behind", "box2.behind"])}
    assert sorted(zones)[:2] == [11, 12] and 21 in zones
    issuer = ChipIssuer(7, seed=7)
    with SimulatedFeigReader(zones, realistic=False, mux=True) as device:
        seven, nine = issuer.issue(500, 2), issuer.issue(100, 1)
        device.place("box7", *seven)
        device.place("box2.behind", *nine)
        async with FeigChipReader(FeigSettings.from_url(f"{device.url}&mux=1&{FAST}", zones)) as reader:
            await until(reader, lambda e: isinstance(e, ChipsScanned)
                        and zone_uids(e, "box7") == {c.uid for c in seven}
                        and zone_uids(e, "box2.behind") == {nine[0].uid} and not zone_uids(e, "box1"))


@pytest.mark.parametrize(("url", "antennas", "message"), [
    ("feig://", {1: "box1"}, "name the serial device"),
    ("feig:///dev/ttyUSB0?speed=9600", {1: "box1"}, "unknown parameter 'speed'"),
    ("feig:///dev/ttyUSB0", {9: "box1"}, "a reader output is 1..8"),
    ("feig:///dev/ttyUSB0?mux=1", {19: "box1"}, "a multiplexer channel"),
    ("feig:///dev/ttyUSB0?frame=big", {1: "box1"}, "advanced or standard"),
    ("feig+tcp://", {1: "box1"}, "the reader's host"),
    ("feig+usb://0ab1", {1: "box1"}, "feig+usb://VVVV:PPPP"),
    ("feig+ble://x", {1: "box1"}, "feig:// (serial), feig+tcp:// or feig+usb://"),
    ("feig:///dev/ttyUSB0?adr=300", {1: "box1"}, "bus address"),
])
def test_bad_urls_are_one_line_errors(url: str, antennas: dict[int, str], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        FeigSettings.from_url(url, antennas)


async def test_the_same_driver_on_feigs_usb_interface_through_pyusb() -> None:
    firmware = FeigFirmware(ZONES, timing=INSTANT, address=0)
    backend = FeigUsbBackend(firmware, serial="FEIG-0042")
    chip = ChipIssuer(7, seed=8).issue(10000, 1)
    firmware.place("box1.insurance", *chip)
    settings = FeigSettings.from_url(f"feig+usb://0ab1:0004?serial=FEIG-0042&{FAST}", ZONES, name="usb")
    async with FeigChipReader(settings, usb_backend=backend) as reader:
        online = await until(reader, lambda e: isinstance(e, ReaderOnline))
        assert isinstance(online, ReaderOnline) and online.serial == "12345678 (usb 0ab1:0004 serial FEIG-0042 adr 0)"
        event = await until(reader, lambda e: isinstance(e, ChipsScanned)
                            and zone_uids(e, "box1.insurance") == {chip[0].uid})
        assert isinstance(event, ChipsScanned)
        assert [t.denomination_cents for r in event.readings for t in r.tags] == [10000]
        backend.unplug()
        offline = await until(reader, lambda e: isinstance(e, ReaderOffline))
        assert isinstance(offline, ReaderOffline) and "No such device" in offline.reason
        backend.replug()
        await until(reader, lambda e: isinstance(e, ReaderOnline))


async def test_a_usb_reader_of_another_serial_is_not_taken() -> None:
    backend = FeigUsbBackend(FeigFirmware(ZONES, timing=INSTANT), serial="FEIG-0001")
    settings = FeigSettings.from_url(f"feig+usb://?serial=FEIG-0002&{FAST}", ZONES, name="usb")
    async with FeigChipReader(settings, usb_backend=backend) as reader:
        offline = await until(reader, lambda e: isinstance(e, ReaderOffline))
        assert isinstance(offline, ReaderOffline) and "no FEIG reader on USB (usb 0ab1:* serial FEIG-0002)" \
            in offline.reason


async def test_an_antenna_fault_and_a_silent_reader_are_the_tables_alarms(
        reader: FeigChipReader, device: SimulatedFeigReader) -> None:
    """Through the readers' edge (table_runtime/chips/edge.py), as the runtime hears this driver."""
    edge = ZoneReporter(ZONES.values(), registry={}, casino_id=7)
    device.set_antenna_fault("box1.behind")
    event = await until(reader, lambda e: isinstance(e, ChipsScanned) and status_of(e, "box1.behind")
                        == AntennaStatus.OPEN)
    (fault,) = [out for out in edge.reader_event(event) if isinstance(out, Alarm)]
    assert (fault.kind, fault.box) == (AlarmKind.ANTENNA_FAULT, 1) and fault.message.startswith("box1.behind: ")
    # Three frames unanswered: a request asked twice without a reply, whichever the silence starts at (a lost
    # inventory reply is asked again after a new RF reset: the reset then goes unanswered twice). Each is waited
    # for twice its timeout of 1 s (a late reply is never taken for the next one's): offline after some 4 s.
    device.go_silent(3)
    offline = await until(reader, lambda e: isinstance(e, ReaderOffline), seconds=20.0)
    (alarm,) = [out for out in edge.reader_event(offline) if isinstance(out, Alarm)]
    assert alarm.kind == AlarmKind.READER_OFFLINE and "chip reader left offline (left: no reply" in alarm.message
