"""The supervisor PIN is guarded per screen: a screen's wrong PINs slow and lock that screen only, the wait
grows, and another screen (the supervisor's) is never locked out by them. Real WebSocket clients against
the real server on 127.0.0.1; the clock is the test's."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from table_runtime.display import DisplayServer
from table_runtime.display.pin_guard import PIN_ATTEMPTS, PIN_LOCKOUT_S
from tests.display.conftest import SUPERVISOR_PIN
from tests.display.helpers import ManualClock, ask
from tests.display.scripted import ScriptedBackend

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]

WRONG = {"type": "command", "name": "VOID", "pin": "0000"}
RIGHT = {"type": "command", "name": "VOID", "pin": SUPERVISOR_PIN}


async def _lock(ws: aiohttp.ClientWebSocketResponse, clock: ManualClock) -> list[dict[str, Any]]:
    """Send wrong PINs, each as soon as the screen may try again, until the screen is locked."""
    replies = []
    for _ in range(PIN_ATTEMPTS):
        reply = await ask(ws, WRONG)
        replies.append(reply)
        clock.now += reply["seconds"]
    return replies


async def test_wrong_pins_slow_then_lock_one_screen_and_the_wait_grows(
    backend: ScriptedBackend, http: aiohttp.ClientSession
) -> None:
    clock = ManualClock()
    async with (
        DisplayServer(backend, port=0, supervisor_pin=SUPERVISOR_PIN, clock=clock) as server,
        http.ws_connect(f"{server.url}ws") as dealer,
        http.ws_connect(f"{server.url}ws") as supervisor,
    ):
        first = await ask(dealer, WRONG)
        assert (first["message"], first["seconds"]) == ("wrong supervisor PIN", 0)  # a slip may be corrected at once
        second = await ask(dealer, WRONG)
        assert second["message"] == "wrong supervisor PIN: next try on this screen in 1 s"
        early = await ask(dealer, RIGHT)  # during the wait even the right PIN is not checked
        assert (early["ok"], early["reason"]) == (False, "pin_locked")
        assert early["message"] == "after 2 wrong supervisor PINs: VOID waits 1 s on this screen"
        waits = [second["seconds"]]
        for _ in range(PIN_ATTEMPTS - 2):
            clock.now += waits[-1]
            waits.append((await ask(dealer, WRONG))["seconds"])
        assert waits == [1, 2, 4, 60] and backend.commands == []
        ((kind, message, _rule),) = backend.alarms
        assert kind == "supervisor_pin_locked" and "on screen 1 (127.0.0.1)" in message

        # The supervisor's screen was never counted: the right PIN goes through at once.
        assert (await ask(supervisor, RIGHT))["ok"] is True
        assert [(c.name, c.role) for c in backend.commands] == [("VOID", "supervisor")]
        # ... and its own slip is its first, not the dealer's sixth.
        assert (await ask(supervisor, WRONG))["message"] == "wrong supervisor PIN"

        clock.now += 30
        locked = await ask(dealer, RIGHT)
        assert locked["message"] == "too many wrong PINs: VOID locked on this screen for 30 s"
        clock.now += 30
        replies = await _lock(dealer, clock)  # the second lockout of this screen lasts twice as long
        assert replies[-1]["message"] == f"wrong supervisor PIN: VOID locked on this screen for {2 * PIN_LOCKOUT_S:g} s"
        assert len(backend.alarms) == 2
        clock.now -= 1
        assert (await ask(dealer, RIGHT))["reason"] == "pin_locked"
        clock.now += 1
        assert (await ask(dealer, RIGHT))["ok"] is True
        assert len(backend.commands) == 2


async def test_a_screen_opened_after_a_lockout_is_not_locked(
    backend: ScriptedBackend, http: aiohttp.ClientSession
) -> None:
    """The supervisor reloading the kiosk page (a new connection) is not locked out by the dealer's guesses."""
    clock = ManualClock()
    async with DisplayServer(backend, port=0, supervisor_pin=SUPERVISOR_PIN, clock=clock) as server:
        async with http.ws_connect(f"{server.url}ws") as guesser:
            assert (await _lock(guesser, clock))[-1]["reason"] == "pin_locked"
        async with http.ws_connect(f"{server.url}ws") as reloaded:
            assert (await ask(reloaded, RIGHT))["ok"] is True
