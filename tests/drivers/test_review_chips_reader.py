"""Review of the chip reader driver: a device whose string descriptors cannot be read (no udev permission)."""

from __future__ import annotations

import array
import asyncio
import errno

import pytest
import usb.core

from drivers.chip_reader import ReaderOnline, ReaderSettings, UsbChipReader
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
