"""The real pyusb chip reader driver against the simulated reader backend."""

from __future__ import annotations

import array
import asyncio
import errno
from collections.abc import AsyncIterator

import pytest
import usb.core

from drivers.chip_reader import (
    ChipReader,
    ChipsScanned,
    ReaderEvent,
    ReaderOffline,
    ReaderOnline,
    ReaderSettings,
    UsbChipReader,
)
from firmware_bridge.rfid import AntennaStatus, BlockStatus, ErrorCode, Tag
from simulators.rfid_backend import (
    SIM_PRODUCT_ID,
    SIM_VENDOR_ID,
    RfidBackend,
    SimulatedReader,
    _Handle,
    simulated_reader,
)
from simulators.rfid_chips import ChipIssuer
from table_runtime.errors import ConfigError

pytestmark = pytest.mark.timeout(30)

ZONES = {1: "box1", 2: "box1.behind", 3: "box1.insurance", 4: "box2"}


def settings(**changes: object) -> ReaderSettings:
    values: dict[str, object] = {"vendor_id": SIM_VENDOR_ID, "product_id": SIM_PRODUCT_ID, "antenna_zones": ZONES,
                                 "name": "left", "scan_interval": 0.01, "reconnect_interval": 0.02,
                                 "timeout_ms": 200}
    values.update(changes)
    return ReaderSettings(**values)  # type: ignore[arg-type]


async def until(reader: ChipReader, kind: type[ReaderEvent], seconds: float = 5.0) -> ReaderEvent:
    async with asyncio.timeout(seconds):
        while True:
            event = await reader.next_event()
            if isinstance(event, kind):
                return event


async def scan_where(reader: ChipReader, zone: str, uids: set[str]) -> ChipsScanned:
    async with asyncio.timeout(5):
        while True:
            event = await reader.next_event()
            if isinstance(event, ChipsScanned):
                seen = {tag.uid for reading in event.readings if reading.zone == zone for tag in reading.tags}
                if seen == uids:
                    return event


@pytest.fixture
def device() -> SimulatedReader:
    return SimulatedReader(ZONES, serial="RDR-0001", firmware="sim-1.0")


@pytest.fixture
async def reader(device: SimulatedReader) -> AsyncIterator[UsbChipReader]:
    async with UsbChipReader(settings(), backend=RfidBackend([device])) as running:
        yield running


async def test_identifies_then_reports_chips_per_zone(reader: UsbChipReader, device: SimulatedReader) -> None:
    online = await until(reader, ReaderOnline)
    assert isinstance(online, ReaderOnline)
    assert (online.reader, online.serial, online.firmware, online.protocol) == ("left", "RDR-0001", "sim-1.0", "1.0")
    assert reader.online
    chips = ChipIssuer(7).stack(3500)
    device.place("box2", *chips)
    scan = await scan_where(reader, "box2", {chip.uid for chip in chips})
    assert [reading.zone for reading in scan.readings] == ["box1", "box1.behind", "box1.insurance", "box2"]
    box2 = scan.readings[3]
    assert sum(tag.denomination_cents or 0 for tag in box2.tags) == 3500
    assert {tag.casino_id for tag in box2.tags} == {7}
    assert box2.complete


async def test_unplug_reports_offline_and_replug_recovers(reader: UsbChipReader, device: SimulatedReader) -> None:
    await until(reader, ReaderOnline)
    device.unplug()
    offline = await until(reader, ReaderOffline)
    assert isinstance(offline, ReaderOffline)
    assert offline.zones == ("box1", "box1.behind", "box1.insurance", "box2")
    assert "No such device" in offline.reason
    assert not reader.online
    chip = ChipIssuer(7).issue(500)[0]
    device.place("box1", chip)
    device.replug()
    await until(reader, ReaderOnline)
    await scan_where(reader, "box1", {chip.uid})
    assert reader.online


async def test_a_reader_of_another_major_version_is_refused() -> None:
    device = SimulatedReader(ZONES, major=2, minor=3)
    async with UsbChipReader(settings(), backend=RfidBackend([device])) as reader:
        offline = await until(reader, ReaderOffline)
        assert isinstance(offline, ReaderOffline)
        assert "2.3" in offline.reason and "1.x" in offline.reason
        assert reader.identity is None


async def test_no_reader_plugged_is_offline_until_one_appears() -> None:
    backend = RfidBackend()
    async with UsbChipReader(settings(), backend=backend) as reader:
        offline = await until(reader, ReaderOffline)
        assert isinstance(offline, ReaderOffline)
        assert "no reader 1209:7ab1" in offline.reason
        backend.add(SimulatedReader(ZONES))
        await until(reader, ReaderOnline)


async def test_serial_number_picks_one_of_two_identical_readers() -> None:
    left, right = SimulatedReader(ZONES, serial="RDR-0001"), SimulatedReader(ZONES, serial="RDR-0002")
    chip = ChipIssuer(7).issue(10_000)[0]
    right.place("box1", chip)
    async with UsbChipReader(settings(serial="RDR-0002"), backend=RfidBackend([left, right])) as reader:
        online = await until(reader, ReaderOnline)
        assert isinstance(online, ReaderOnline)
        assert online.serial == "RDR-0002"
        await scan_where(reader, "box1", {chip.uid})


async def test_antenna_fault_and_unread_block_are_reported(reader: UsbChipReader, device: SimulatedReader) -> None:
    chip = Tag(uid="E004000000000001", block_status=BlockStatus.READ_FAILED)
    device.place("box1", chip)
    device.set_antenna_status("box2", AntennaStatus.OPEN)
    scan = await scan_where(reader, "box1", {chip.uid})
    by_zone = {reading.zone: reading for reading in scan.readings}
    assert by_zone["box1"].tags == (chip,)
    assert by_zone["box2"].status == AntennaStatus.OPEN
    assert not by_zone["box2"].complete


async def test_an_antenna_the_reader_does_not_have_is_a_clear_reason() -> None:
    device = SimulatedReader(antennas=4)
    async with UsbChipReader(settings(antenna_zones={1: "box1", 9: "box3"}), backend=RfidBackend([device])) as reader:
        offline = await until(reader, ReaderOffline)
        assert isinstance(offline, ReaderOffline)
        assert "antennas [9] but the reader has 4" in offline.reason


def test_settings_refuse_two_antennas_on_one_zone() -> None:
    with pytest.raises(ConfigError, match="same zone"):
        settings(antenna_zones={1: "box1", 2: "box1"})
    with pytest.raises(ConfigError, match=r"0\.\.31"):
        settings(antenna_zones={40: "box1"})


def test_settings_from_urls() -> None:
    usb_settings = ReaderSettings.from_url("usb://1209:7ab1?serial=RDR-0002&scan_interval=0.05", ZONES, name="right")
    assert (usb_settings.vendor_id, usb_settings.product_id, usb_settings.serial) == (0x1209, 0x7AB1, "RDR-0002")
    assert (usb_settings.scan_interval, usb_settings.name) == (0.05, "right")
    assert ReaderSettings.from_url("sim://reader?seed=3", ZONES).vendor_id == SIM_VENDOR_ID
    for url, words in [("usb://12:34:56", "hex ids"), ("serial:///dev/x", "usb:// or sim://"),
                       ("usb://1209:7ab1?speed=3", "unknown parameter 'speed'"),
                       ("usb://1209:7ab1?timeout_ms=soon", "soon")]:
        with pytest.raises(ConfigError, match=words) as caught:
            ReaderSettings.from_url(url, ZONES, key="devices.chip_readers[0].url")
        assert caught.value.key == "devices.chip_readers[0].url"


async def test_a_sim_url_builds_a_reader_the_driver_finds() -> None:
    device, backend = simulated_reader("sim://reader?seed=4&miss_rate=0.5&serial=S-9", ZONES)
    assert (device.serial, device.miss_rate) == ("S-9", 0.5)
    async with UsbChipReader(settings(serial="S-9"), backend=backend) as reader:
        await until(reader, ReaderOnline)


async def test_busy_replies_skip_scans_and_an_internal_error_reconnects(reader: UsbChipReader,
                                                                         device: SimulatedReader) -> None:
    await until(reader, ReaderOnline)
    device.fail_next(ErrorCode.BUSY, 3)
    chip = ChipIssuer(7).issue(500)[0]
    device.place("box1", chip)
    async with asyncio.timeout(5):
        while True:  # the scans come back after the busy replies, with no offline in between
            event = await reader.next_event()
            assert not isinstance(event, ReaderOffline)
            if isinstance(event, ChipsScanned) and event.readings[0].tags == (chip,):
                break
    device.fail_next(ErrorCode.INTERNAL)
    offline = await until(reader, ReaderOffline)
    assert isinstance(offline, ReaderOffline) and "INTERNAL" in offline.reason
    await until(reader, ReaderOnline)


@pytest.mark.parametrize("query", ["timeout_ms=0", "timeout_ms=-5", "scan_interval=nan", "reconnect_interval=inf"])
def test_a_timeout_or_interval_that_would_block_or_spin_the_reader_is_a_config_error(query: str) -> None:
    """pyusb reads `timeout_ms=0` as "wait for ever": a reader that stops answering would hold the thread (and
    the shutdown) for ever; a NaN interval spins it. Each is refused, naming the key."""
    with pytest.raises(ConfigError) as refused:
        ReaderSettings.from_url(f"usb://1209:7ab1?{query}", ZONES, key="devices.chip_readers[0].url")
    assert refused.value.key == "devices.chip_readers[0].url" or "chip-reader" in str(refused.value)


class LockedOutBackend(RfidBackend):
    """One of the readers refuses string descriptors, as a device without udev permission does to libusb."""

    def __init__(self, readers: list[SimulatedReader], locked: SimulatedReader) -> None:
        super().__init__(readers)
        self.locked = locked

    def ctrl_transfer(self, dev_handle: _Handle, bmRequestType: int, bRequest: int, wValue: int,
                      wIndex: int, data: array.array[int], timeout: int) -> int:
        if dev_handle.reader is self.locked:
            raise usb.core.USBError("Access denied (insufficient permissions)", -3, errno.EACCES)
        return super().ctrl_transfer(dev_handle, bmRequestType, bRequest, wValue, wIndex, data, timeout)


async def test_a_reader_whose_serial_cannot_be_read_does_not_stop_the_search_for_the_configured_one() -> None:
    """pyusb raises ValueError ("The device has no langid") for such a device: the driver's thread died on it,
    silently, and the table waited for chips for ever. It is skipped; the configured reader is found."""
    stranger = SimulatedReader(ZONES, serial="RDR-9999")
    mine = SimulatedReader(ZONES, serial="RDR-0001")
    backend = LockedOutBackend([stranger, mine], locked=stranger)
    async with UsbChipReader(settings(serial="RDR-0001"), backend=backend) as reader:
        online = await until(reader, ReaderOnline)
        assert isinstance(online, ReaderOnline) and online.serial == "RDR-0001"


class SurprisingBackend(RfidBackend):
    """A backend that, once, fails a read in a way no one planned for (a library bug)."""

    def __init__(self, readers: list[SimulatedReader]) -> None:
        super().__init__(readers)
        self.reads = 0

    def bulk_read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array[int], timeout: int) -> int:
        self.reads += 1
        if self.reads == 3:
            raise RuntimeError("a surprise from the USB stack")
        return super().bulk_read(dev_handle, ep, intf, buff, timeout)


async def test_an_unexpected_exception_in_the_reader_thread_is_offline_with_its_reason_then_online_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """table check, docs/rules.md « The table's procedure »: a reader disconnected is an alarm. An exception nobody
    expected ended the reader's thread in
    silence: the table saw no scan again and was never told. Now it is offline with the reason, and retried."""
    async with UsbChipReader(settings(), backend=SurprisingBackend([SimulatedReader(ZONES)])) as reader:
        kinds: list[str] = []
        reasons: list[str] = []
        async with asyncio.timeout(5):
            while kinds.count("ReaderOnline") < 2:
                event = await reader.next_event()
                kinds.append(type(event).__name__)
                if isinstance(event, ReaderOffline):
                    reasons.append(event.reason)
    assert reasons == ["unexpected RuntimeError: a surprise from the USB stack"]
    assert kinds.index("ReaderOffline") < len(kinds) - 1 and kinds[-1] == "ReaderOnline"
    assert "unexpected RuntimeError in the reader thread" in caplog.text
