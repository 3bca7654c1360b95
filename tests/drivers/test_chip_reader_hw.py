"""The driver against a real reader on USB: run with TABLE_HW=1 TABLE_RFID_URL=usb://VVVV:PPPP[?serial=S]."""

from __future__ import annotations

import asyncio
import os

import pytest

from drivers.chip_reader import ChipsScanned, ReaderOffline, ReaderOnline, ReaderSettings, UsbChipReader

pytestmark = [
    pytest.mark.hw,
    pytest.mark.timeout(30),
    pytest.mark.skipif(os.environ.get("TABLE_HW") != "1" or not os.environ.get("TABLE_RFID_URL"),
                       reason="needs a chip reader: TABLE_HW=1 TABLE_RFID_URL=usb://VVVV:PPPP"),
]


async def test_a_real_reader_identifies_and_scans() -> None:
    settings = ReaderSettings.from_url(os.environ["TABLE_RFID_URL"], {1: "box1"}, name="hw")
    async with UsbChipReader(settings) as reader, asyncio.timeout(10):
        event = await reader.next_event()
        assert not isinstance(event, ReaderOffline), event
        assert isinstance(event, ReaderOnline)
        assert event.protocol.startswith("1.")
        while not isinstance(event, ChipsScanned):
            event = await reader.next_event()
        assert [reading.zone for reading in event.readings] == ["box1"]
