"""The driver against a real shoe: run with TABLE_HW=1 TABLE_SHOE_URL=serial:///dev/ttyACM0 (draw one card)."""

from __future__ import annotations

import asyncio
import os

import pytest

from drivers.shoe import CardDrawn, SerialShoe, ShoeOnline, UnreadableCard

pytestmark = [
    pytest.mark.hw,
    pytest.mark.skipif(
        os.environ.get("TABLE_HW") != "1" or not os.environ.get("TABLE_SHOE_URL"),
        reason="needs a real shoe: TABLE_HW=1 TABLE_SHOE_URL=serial:///dev/ttyACM0",
    ),
    pytest.mark.timeout(120),
]


async def test_a_real_shoe_identifies_and_reports_a_drawn_card() -> None:
    async with SerialShoe(os.environ["TABLE_SHOE_URL"]) as shoe:
        async with asyncio.timeout(10):
            async for event in shoe.events():
                if isinstance(event, ShoeOnline):
                    assert event.identity.protocol_version == 1
                    print(f"\nshoe {event.identity.serial_number} firmware {event.identity.firmware_version}: "
                          "draw one card within 60 s")
                    break
        async with asyncio.timeout(60):
            async for event in shoe.events():
                if isinstance(event, CardDrawn | UnreadableCard):
                    return
