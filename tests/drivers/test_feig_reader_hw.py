"""The FEIG driver against a real FEIG ISO-Host reader (docs/protocols/feig.md 8).

Run with the reader connected and one or more chips on its first antenna:

    TABLE_HW=1 TABLE_FEIG_URL='feig:///dev/serial/by-id/usb-FEIG_...?adr=255' \\
    TABLE_FEIG_CHIPS=E004010012345678,E004010012345679 python -m pytest -m hw tests/drivers/test_feig_reader_hw.py

`TABLE_FEIG_ANTENNA` names the antenna the chips lie on (default 1; a multiplexer channel such as 42 with
``mux=1`` in the URL). `TABLE_FEIG_CHIPS` (optional) lists the UIDs the reader must see there, every scan.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from drivers.feig_reader import FeigChipReader, FeigSettings
from drivers.ports import ChipsScanned, ReaderOffline, ReaderOnline
from firmware_bridge.rfid import AntennaStatus

pytestmark = [
    pytest.mark.hw,
    pytest.mark.timeout(60),
    pytest.mark.skipif(os.environ.get("TABLE_HW") != "1" or not os.environ.get("TABLE_FEIG_URL"),
                       reason="needs a FEIG reader: TABLE_HW=1 TABLE_FEIG_URL=feig:///dev/serial/by-id/..."),
]


async def test_a_real_feig_reader_identifies_and_reads_the_chips_on_its_antenna() -> None:
    antenna = int(os.environ.get("TABLE_FEIG_ANTENNA", "1"))
    expected = {uid.strip().upper() for uid in os.environ.get("TABLE_FEIG_CHIPS", "").split(",") if uid.strip()}
    settings = FeigSettings.from_url(os.environ["TABLE_FEIG_URL"], {antenna: "box1"}, name="hw")
    async with FeigChipReader(settings) as reader, asyncio.timeout(45):
        event = await reader.next_event()
        assert not isinstance(event, ReaderOffline), event
        assert isinstance(event, ReaderOnline)
        assert event.protocol.startswith("FEIG ISO-Host")
        scans: list[ChipsScanned] = []
        while len(scans) < 5:
            event = await reader.next_event()
            assert not isinstance(event, ReaderOffline), event
            if isinstance(event, ChipsScanned):
                scans.append(event)
    for scan in scans:
        (reading,) = scan.readings
        assert reading.zone == "box1"
        assert reading.status == AntennaStatus.OK, f"antenna {antenna}: {reading.status.name}"
        seen = {tag.uid for tag in reading.tags}
        assert all(uid.startswith("E0") for uid in seen), seen  # ISO 15693 UIDs, most significant byte first
        if expected:
            assert seen == expected, f"every scan sees every chip (RF reset first): {sorted(seen)}"
