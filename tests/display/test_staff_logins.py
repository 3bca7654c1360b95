"""The staff on the display, where a staff registry rules the table: a dealer logs in with his own PIN, a supervisor
acts by his own PIN or badge, the shared supervisor PIN is refused, and wrong PINs lock per employee and per screen.

The real `TableApp` and `StaffDesk` behind the real display server, over its WebSocket.
"""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from table_runtime.display.pin_guard import PIN_ATTEMPTS
from table_runtime.display.server import DisplayServer
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from tests.display.helpers import ask
from tests.table_runtime.staff.staff_table import (
    SUPERVISOR_BADGE,
    staff_controller,
    staff_desk,
    staff_registry,
)


@pytest.mark.timeout(120)
async def test_logins_supervisors_and_lockouts_over_the_websocket(tmp_path: Path) -> None:
    registry = staff_registry(tmp_path)
    now = [100.0]
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry, now)
        app = TableApp(controller, staff=desk)
        async with (
            DisplayServer(app, port=0, supervisor_pin="2468", clock=lambda: now[0], staff=desk) as server,
            aiohttp.ClientSession() as http,
            http.ws_connect(f"{server.url}ws") as ws,
        ):
            hello = await ws.receive_json()
            assert hello["type"] == "hello" and hello["staff"] is True and hello["supervisor"] is True
            wrong = await ask(ws, {"type": "login", "employee": "D1", "pin": "0000"})
            assert wrong["ok"] is False and wrong["reason"] == "wrong_pin"
            login = await ask(ws, {"type": "login", "employee": "D1", "pin": "1357"})
            assert login["ok"] is True and login["name"] == "Marie Dupont"
            async with http.get(f"{server.url}api/snapshot") as response:
                shift = (await response.json())["shift"]
            assert shift == {"dealer": "D1", "required": True, "name": "Marie Dupont"}
            assert controller.snapshot()["shift"] == {"dealer": "D1", "required": True}  # the feed's: no name
            surveillance = await ask(ws, {"type": "login", "employee": "V1", "pin": "4444"})
            assert surveillance["ok"] is False and surveillance["reason"] == "not_a_dealer"

            shared = await ask(ws, {"type": "command", "name": "VOID", "pin": "2468"})
            assert shared["ok"] is False and shared["reason"] == "needs_own_credential"
            dealer_as_supervisor = await ask(ws, {"type": "command", "name": "VOID", "employee": "D1", "pin": "1357"})
            assert dealer_as_supervisor["reason"] == "needs_supervisor"
            void = await ask(ws, {"type": "command", "name": "VOID", "employee": "S1", "pin": "9753"})
            assert void["reason"] == "no_round"  # past the credential: the round's own answer
            no_badge = await ask(ws, {"type": "command", "name": "VOID", "badge": True})
            assert no_badge["reason"] == "no_badge"
            await controller.step(desk.badge, SUPERVISOR_BADGE)
            badged = await ask(ws, {"type": "ratings", "badge": True})
            assert badged["ok"] is True

            for _ in range(PIN_ATTEMPTS):
                now[0] += 1000.0  # past each wait (staff_guard.py)
                reply = await ask(ws, {"type": "login", "employee": "D2", "pin": "1111"})
                assert reply["ok"] is False
            assert reply["reason"] == "pin_locked"
            locked = await ask(ws, {"type": "login", "employee": "D2", "pin": "2468"})
            assert locked["reason"] == "pin_locked" and "employee D2" in locked["message"]
            alarms = [entry.body for entry in journal.entries(kinds=("alarm",))]
            kinds = [body["kind"] for body in alarms]
            assert kinds.count("staff_pin_locked") == 2  # the employee's record and the screen's
            assert all("1111" not in body["message"] for body in alarms)
            logout = await ask(ws, {"type": "logout"})
            assert logout["ok"] is True and controller.core.shift.dealer is None
