"""With two chip readers, "chips online" means both read their zones: one coming back while the other is
still unplugged must not say online (docs/rules.md "Shoe integrity": shoe or reader disconnected).

The real runtime (`TableApp.run`) with two real pyusb drivers, each over its own simulated reader.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from drivers.chip_reader import ReaderSettings, UsbChipReader
from simulators.rfid_backend import SIM_PRODUCT_ID, SIM_VENDOR_ID, RfidBackend, SimulatedReader
from table_runtime.chips.edge import ZoneReporter
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController
from tests.polling import until

ZONES = {"left": {1: "box1", 2: "box1.behind", 3: "box1.insurance"},
         "right": {1: "box2", 2: "box2.behind", 3: "box2.insurance"}}


@pytest.mark.timeout(60)
async def test_chips_are_online_only_when_every_reader_is(tmp_path: Path) -> None:
    devices = {name: SimulatedReader(antennas, seed=index) for index, (name, antennas) in enumerate(ZONES.items())}
    readers = [UsbChipReader(ReaderSettings(vendor_id=SIM_VENDOR_ID, product_id=SIM_PRODUCT_ID, antenna_zones=antennas,
                                            name=name, scan_interval=0.01, reconnect_interval=0.02, timeout_ms=200),
                             backend=RfidBackend([devices[name]]))
               for name, antennas in ZONES.items()]
    with Journal.open(journal_path(tmp_path)) as journal:
        zones = [zone for antennas in ZONES.values() for zone in antennas.values()]
        controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1.0, zones=zones)
        app = TableApp(controller, readers=readers, chips=ZoneReporter(zones, registry={}, casino_id=7))
        runner = asyncio.create_task(app.run())

        def chips() -> str:
            return controller.devices["chips"]

        try:
            await until(lambda: chips() == "online" and all(reader.online for reader in readers), "both online")
            devices["left"].unplug()
            devices["right"].unplug()
            await until(lambda: chips() == "offline" and not any(reader.online for reader in readers), "both off")
            devices["left"].replug()
            await until(lambda: readers[0].online, "left back")
            await asyncio.sleep(0.2)  # scans of the left reader come in; the right one is still unplugged
            assert chips() == "offline"
            devices["right"].replug()
            await until(lambda: chips() == "online", "both back")
        finally:
            app.stop("test over")
            async with asyncio.timeout(20):
                await runner
