"""The significant events (docs/events.md) as the real controller journals them: a new journal, a start, a stop, a
start with no stop before it (a power loss), a new release, new limits, a device lost and back, a wall clock
step (the app's own watch, on injected clocks), and the fixed codes never renumbered. The shoe's door, its jam,
a chip reader unplugged and a power loss mid-round are the scenario library's (scenarios 43, 44, 45, 50, 60); the
journal's outage is tests/e2e/test_full_disk.py's; a kill -9 and `table-runtime events` tests/e2e/test_demo_recovery.py.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from table_runtime.core.clock_steps import ClockSteps
from table_runtime.core.significant_events import CODES, KINDS, SignificantEvent, significant_events
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime import controller as controller_module
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController


def events_of(journal: Journal) -> list[SignificantEvent]:
    return significant_events((entry.seq, entry.ts, entry.kind, entry.body) for entry in journal.entries(kinds=KINDS))


def start(journal: Journal, limits: TableLimits | None = None) -> TableController:
    return TableController(table_id="T1", rules=profile("fr-casino"), limits=limits or TableLimits(),
                           journal=journal, clock=time.time)


def test_the_codes_are_fixed() -> None:
    """A code is never renumbered or reused (docs/events.md lists the same table)."""
    assert dict(CODES) == {
        "table_started": 100, "table_stopped": 101, "power_loss": 102, "new_journal": 103, "round_resumed": 104,
        "journal_cleared": 105, "journal_closed": 106,
        "software_changed": 110, "software_installed": 111, "device_lost": 200, "device_back": 201, "device_fault": 202,
        "shoe_door_opened": 210, "terms_changed": 300, "registry_loaded": 301, "clock_unsynchronised": 400,
        "clock_synchronised": 401, "clock_stepped": 402, "journal_unwritable": 500, "journal_writable": 501,
        "journal_broken": 502, "program_verified": 600, "program_not_as_released": 601}
    document = (Path(__file__).resolve().parents[2] / "docs" / "events.md").read_text(encoding="utf-8")
    for name, code in CODES.items():
        assert f"| {code} | `{name}` |" in document, name


async def test_start_stop_power_loss_release_limits_and_devices(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = start(journal)
        app = TableApp(controller)
        async with asyncio.timeout(20), asyncio.TaskGroup() as tasks:
            running = tasks.create_task(app.run())
            await app.wait_for_change()
            await controller.step(controller.set_device, "shoe", "online")
            await controller.step(controller.set_device, "shoe", "offline")
            await controller.step(controller.set_device, "shoe", "online")
            app.stop("end of the test")
            await running
        start(journal)  # started again, never stopped: the next start finds a power loss
        monkeypatch.setattr(controller_module, "installed_version", lambda: "9.9.9")
        start(journal, TableLimits(buy_in_max_cents=2_000_000))  # a new release, a new largest buy-in
        events = events_of(journal)
    names = [event.name for event in events]
    assert names == ["new_journal", "table_started", "device_lost", "device_back", "table_stopped",
                     "table_started", "terms_changed", "power_loss", "table_started", "software_changed"]
    by_name = {event.name: event for event in events}
    assert by_name["device_lost"].detail == {"device": "shoe"}
    assert by_name["software_changed"].detail["version"] == "9.9.9"
    changed = by_name["terms_changed"].detail
    assert changed["changed"] == ["limits"] and changed["after"]["limits"]["buy_in_max_cents"] == 2_000_000
    assert changed["before"]["limits"]["buy_in_max_cents"] == TableLimits().buy_in_max_cents
    assert all(event.code == CODES[event.name] for event in events)


async def test_a_wall_clock_step_is_journaled_by_the_apps_watch(tmp_path: Path) -> None:
    wall, monotonic = [1_800_000_000.0], [50.0]
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: wall[0])
        app = TableApp(controller, monotonic=lambda: monotonic[0])
        looks = 0

        async def sleep(_: float) -> None:
            nonlocal looks
            looks += 1
            monotonic[0] += 1.0
            wall[0] += 1.0 + (0.0004 if looks < 5 else 0.0)  # NTP's slew: no step
            if looks == 5:
                wall[0] += 3600.0  # `date -s` an hour ahead
            if looks == 8:
                raise asyncio.CancelledError
            await asyncio.sleep(0)

        with pytest.raises(asyncio.CancelledError):
            await app.clock_loop(sleep=sleep, steps=ClockSteps())
        steps = [event for event in events_of(journal) if event.name == "clock_stepped"]
    assert len(steps) == 1 and steps[0].code == 402
    assert steps[0].detail["step_s"] == pytest.approx(3600.0, abs=0.01)


def test_the_clock_watch_ignores_a_slew_and_sees_a_step_back() -> None:
    steps = ClockSteps(threshold_s=2.0)
    assert steps.look(100.0, 10.0) is None  # the first look only takes the offset
    assert steps.look(101.0005, 11.0) is None
    assert steps.look(99.0, 12.0) == pytest.approx(-3.0005)
