"""A chip reader unplugged is one fact: the chips offline and the reader_offline alarm come in one step.

Nobody watching the table (the display, the feed, the bench) may see the chips offline without the alarm
that says so (docs/rules.md "Shoe integrity": shoe or reader disconnected). The runtime used to set the status, then
hand the event to the readers' edge in a worker thread and raise the alarm when it came back: under load a
bench expecting the alarm once the chips were offline failed about one run in seven.

The real runtime (`TableApp.run`) with the real pyusb driver over a simulated reader; every committed change
is looked at once the loop's step that made it is over (what any other task on the loop can see), so the check
does not depend on timing.
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

ANTENNAS = {1: "box1", 2: "box1.behind", 3: "box1.insurance"}


@pytest.mark.timeout(60)
async def test_the_chips_are_never_seen_offline_without_the_reader_offline_alarm(tmp_path: Path) -> None:
    device = SimulatedReader(ANTENNAS, seed=1)
    reader = UsbChipReader(ReaderSettings(vendor_id=SIM_VENDOR_ID, product_id=SIM_PRODUCT_ID, antenna_zones=ANTENNAS,
                                          name="left", scan_interval=0.01, reconnect_interval=0.02, timeout_ms=200),
                           backend=RfidBackend([device]))
    with Journal.open(journal_path(tmp_path)) as journal:
        zones = tuple(ANTENNAS.values())
        controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1.0, zones=zones)
        app = TableApp(controller, readers=[reader], chips=ZoneReporter(zones, registry={}, casino_id=7))
        seen: list[tuple[str | None, bool]] = []  # (chips status, a reader_offline alarm is active), after each step

        def chips_and_alarm() -> tuple[str | None, bool]:
            """What every reader of the running table sees: the committed view (the core is the journal writer's
            while a step runs, and a reader gone offline is its status and its alarm in one step)."""
            view = controller.snapshot()
            return view["devices"].get("chips"), any(alarm["kind"] == "reader_offline" for alarm in view["alarms"])

        def record() -> None:
            seen.append(chips_and_alarm())

        def watch() -> None:  # the table as anyone on the loop sees it: once the step that changed it is over
            asyncio.get_running_loop().call_soon(record)

        controller.subscribe(watch)
        runner = asyncio.create_task(app.run())
        try:
            await until(lambda: chips_and_alarm()[0] == "online", "the reader online")
            device.unplug()
            await until(lambda: chips_and_alarm()[0] == "offline", "the reader offline")
            assert chips_and_alarm()[1]
        finally:
            app.stop("test over")
            async with asyncio.timeout(20):
                await runner
    offline = [alarm for status, alarm in seen if status == "offline"]
    assert offline and all(offline), f"the chips were seen offline before the alarm: {seen}"
