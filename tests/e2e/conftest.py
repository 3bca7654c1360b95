"""The live table for end-to-end tests: real drivers over simulated devices, in this process."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from simulators.live_table import LiveDevices, LiveHands
from table_runtime.config import zone_names
from table_runtime.display.server import DisplayServer
from table_runtime.game.cards import Card
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController


class Live:
    def __init__(self, app: TableApp, devices: LiveDevices, hands: LiveHands) -> None:
        self.app, self.devices, self.hands = app, devices, hands
        self.controller = app.controller

    def alarms(self, kind: str) -> list[dict[str, object]]:
        return [a for a in self.controller.alarms.active if a["kind"] == kind]

    async def load_stack(self, cards: list[Card]) -> None:
        """A prearranged shoe, as the shoe reports it (SHOE_LOADED)."""
        table = self.controller.table
        shoe_id = table.shoe.shoe_id
        await asyncio.to_thread(self.devices.shoe_sim.load_stack, cards)
        await self.hands.until("the stacked shoe", lambda: table.shoe.loaded and table.shoe.shoe_id != shoe_id)

    async def draw(self, count: int = 1) -> None:
        shoe = self.controller.table.shoe
        for _ in range(count):
            target = shoe.dealt + 1
            await asyncio.to_thread(self.devices.shoe_sim.draw)
            await self.hands.until("a card", lambda: shoe.dealt >= target)  # noqa: B023 - awaited at once


@contextlib.asynccontextmanager
async def live_table(journal: Journal, data_dir: Path, *, display: bool = False, **app_options: Any
                     ) -> AsyncIterator[Live]:
    """The table on `journal`, its devices simulated under `data_dir`, running until the block ends
    (`app_options`: more of `LiveDevices.app`'s, such as the feed)."""
    controller = TableController(table_id="E2E", rules=profile("fr-casino"), limits=TableLimits(),
                                 journal=journal, clock=lambda: 1_800_000_000.0, zones=zone_names(7))
    devices = LiveDevices(controller, seed=3, data_dir=data_dir, pin_factory=MockFactory(pin_class=MockPWMPin))
    devices.start()
    app = devices.app(controller, **app_options)
    if display:
        app.display = DisplayServer(app, port=0, language="fr", supervisor_pin="2468")
    runner = asyncio.create_task(app.run())
    try:
        yield Live(app, devices, LiveHands(app, devices, random.Random(1), error_rate=0.0))
    finally:
        app.stop("test over")
        async with asyncio.timeout(20):
            await runner
        devices.stop()


@pytest.fixture
async def live(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Live]:
    """The live table; a test marked `with_display` also gets the dealer display on a free port."""
    journal = Journal.open(journal_path(tmp_path))
    try:
        async with live_table(journal, tmp_path, display=bool(request.node.get_closest_marker("with_display"))) \
                as table:
            controller = table.controller
            await table.hands.until("shoe online", lambda: controller.devices["shoe"] == "online", 20)
            await table.hands.until("reader online", lambda: controller.devices["chips"] == "online", 20)
            yield table
    finally:
        journal.close()
