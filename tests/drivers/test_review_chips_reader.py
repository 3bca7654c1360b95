"""Review of the chip reader driver: a device whose string descriptors cannot be read (no udev permission)."""

from __future__ import annotations

import array
import asyncio
import errno

import pytest
import usb.core

from drivers.chip_reader import ReaderOffline, ReaderOnline, ReaderSettings, UsbChipReader
from simulators.rfid_backend import SIM_PRODUCT_ID, SIM_VENDOR_ID, RfidBackend, SimulatedReader, _Handle
from table_runtime.errors import ConfigError

pytestmark = pytest.mark.timeout(30)

ZONES = {1: "box1", 2: "box2"}


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
    settings = ReaderSettings(vendor_id=SIM_VENDOR_ID, product_id=SIM_PRODUCT_ID, antenna_zones=ZONES, name="left",
                              serial="RDR-0001", scan_interval=0.01, reconnect_interval=0.02, timeout_ms=200)
    async with UsbChipReader(settings, backend=backend) as reader:
        async with asyncio.timeout(5):
            while not isinstance(event := await reader.next_event(), ReaderOnline):
                pass
        assert event.serial == "RDR-0001"


@pytest.mark.parametrize("query", ["timeout_ms=0", "timeout_ms=-5", "scan_interval=nan", "reconnect_interval=inf"])
def test_a_timeout_or_interval_that_would_block_or_spin_the_reader_is_a_config_error(query: str) -> None:
    """pyusb reads `timeout_ms=0` as "wait for ever": a reader that stops answering would hold the thread (and
    the shutdown) for ever; a NaN interval spins it. Each is refused, naming the key."""
    with pytest.raises(ConfigError) as refused:
        ReaderSettings.from_url(f"usb://1209:7ab1?{query}", ZONES, key="devices.chip_readers[0].url")
    assert refused.value.key == "devices.chip_readers[0].url" or "chip-reader" in str(refused.value)


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
    """TABLE.md: a reader disconnected is an alarm. An exception nobody expected ended the reader's thread in
    silence: the table saw no scan again and was never told. Now it is offline with the reason, and retried."""
    settings = ReaderSettings(vendor_id=SIM_VENDOR_ID, product_id=SIM_PRODUCT_ID, antenna_zones=ZONES, name="left",
                              scan_interval=0.01, reconnect_interval=0.02, timeout_ms=200)
    async with UsbChipReader(settings, backend=SurprisingBackend([SimulatedReader(ZONES)])) as reader:
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
