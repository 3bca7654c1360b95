"""A chip reported stolen while the table runs counts at once (docs/rules.md "Chip integrity").

The assembled table (`assemble`, as `table-runtime run` builds it) with a SQLite
chip registry and simulated readers behind the real pyusb driver: a 25.00 €
chip lies on box1; the casino marks it stolen with the registry's own API (what
`table-runtime chips set-status` does); the table reads the registry again,
raises `stolen_chip` for box1 and counts the zone at nothing. A registry file
that then cannot be read is an alarm, and the table keeps the registry it had.

The test reads what every reader of the running table reads, the committed view (`controller.snapshot()`): the
core is the journal writer's while a step runs, and a registry's zones and its `RegistryLoaded` note are one
step (runtime/registry_follow.py), whole in the view or not at all. (Reading the core instead once saw the
stolen chip's alarm before the note of the same step was durable.)
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.registry import ChipRegistry
from table_runtime.runtime.assembly import assemble
from tests.e2e.test_run_config import demo_config
from tests.polling import until


@pytest.mark.timeout(90)
async def test_a_chip_marked_stolen_mid_shift_is_caught_on_the_zone(tmp_path: Path) -> None:
    issuer = ChipIssuer(42, seed=3)
    chip = issuer.issue(2500)[0]
    registry_path = tmp_path / "chips.sqlite"
    with ChipRegistry(registry_path) as registry:
        registry.import_text(issuer.csv())
    base = demo_config(tmp_path)
    config = base.replace(devices=dataclasses.replace(base.devices, chip_registry=registry_path))
    with assemble(config, with_display=False, with_feed=False) as table:
        app, controller = table.app, table.controller
        assert app.registry is not None and app.chips is not None
        app.registry.poll = 0.05
        watcher = app.chips
        reader = next(iter(table.simulated_readers.values()))
        runner = asyncio.create_task(app.run())
        try:
            reader.place("box1", chip)
            await until(lambda: controller.snapshot()["zones"]["box1"] == 2500, "the chip counted on box1")

            with ChipRegistry(registry_path) as registry:
                registry.set_status(chip.uid, "stolen")
            await until(lambda: any(alarm["kind"] == "stolen_chip" for alarm in controller.snapshot()["alarms"]),
                        "the stolen chip's alarm")
            view = controller.snapshot()
            (alarm,) = [alarm for alarm in view["alarms"] if alarm["kind"] == "stolen_chip"]
            assert alarm["box"] == 1 and chip.uid in alarm["message"]
            assert view["zones"]["box1"] == 0  # a stolen chip counts for nothing
            loaded = [entry.body for entry in table.journal.entries(kinds=("status",))
                      if entry.body.get("type") == "RegistryLoaded"]
            assert loaded and loaded[-1]["chips"] == 1

            registry_path.write_bytes(b"not a database at all" * 100)
            await until(lambda: any(alarm["kind"] == "registry_unreadable"
                                    for alarm in controller.snapshot()["alarms"]), "the unreadable registry's alarm")
            assert watcher.registry[chip.uid].status == "stolen"  # the registry read before still holds
        finally:
            app.stop("test over")
            async with asyncio.timeout(20):
                await runner
