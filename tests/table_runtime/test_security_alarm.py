"""A supervisor PIN locked at the display is an alarm of the table: journaled (so published), on the banner.

The real `TableApp` behind the real display server, over its WebSocket: five
wrong PINs for VOID lock supervisor commands and raise `supervisor_pin_locked`.
"""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from table_runtime.display.server import PIN_ATTEMPTS, DisplayServer
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController
from tests.display.helpers import ask


@pytest.mark.timeout(60)
async def test_a_locked_supervisor_pin_is_journaled_and_shown(tmp_path: Path) -> None:
    journal = Journal.open(journal_path(tmp_path))
    try:
        controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1.0)
        app = TableApp(controller)
        now = [100.0]
        async with (
            DisplayServer(app, port=0, supervisor_pin="2468", clock=lambda: now[0]) as server,
            aiohttp.ClientSession() as http,
            http.ws_connect(f"{server.url}ws") as ws,
        ):
            for attempt in range(1, PIN_ATTEMPTS + 1):
                now[0] += 10.0  # past the wait after each wrong PIN (pin_guard.py)
                reply = await ask(ws, {"type": "command", "name": "VOID", "pin": "1111"})
                assert reply["ok"] is False
                alarms = [entry for entry in journal.entries() if entry.kind == "alarm"]
                assert len(alarms) == (1 if attempt == PIN_ATTEMPTS else 0)
        (entry,) = alarms
        assert entry.body["kind"] == "supervisor_pin_locked"
        assert f"{PIN_ATTEMPTS} wrong supervisor PINs in a row for VOID" in entry.body["message"]
        banner = controller.snapshot()["alarms"]
        assert [alarm["kind"] for alarm in banner] == ["supervisor_pin_locked"]
    finally:
        journal.close()
