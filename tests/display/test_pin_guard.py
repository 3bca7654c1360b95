"""The supervisor PIN is guarded per source and role: wrong PINs from one machine slow and lock it across its
screens and reconnections, the wait grows, each lockout is an alarm, and a shift is too short to try the PINs.
Real WebSocket clients against the real server on 127.0.0.1; the clock is the test's."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from table_runtime.display import DisplayServer
from table_runtime.display.pin_guard import PIN_ATTEMPTS, PIN_LOCKOUT_S, THIS_MACHINE, SupervisorPin, pin_source
from tests.display.conftest import SUPERVISOR_PIN
from tests.display.helpers import ManualClock, ask
from tests.display.scripted import ScriptedBackend

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]

WRONG = {"type": "command", "name": "VOID", "pin": "0000"}
RIGHT = {"type": "command", "name": "VOID", "pin": SUPERVISOR_PIN}
SHIFT_S = 8 * 3600.0
FOUR_DIGIT_PINS = 10**4  # the smallest PIN space the configuration allows (4 digits)


async def _lock(ws: aiohttp.ClientWebSocketResponse, clock: ManualClock) -> list[dict[str, Any]]:
    """Send wrong PINs, each as soon as the source may try again, until it is locked."""
    replies = []
    for _ in range(PIN_ATTEMPTS):
        reply = await ask(ws, WRONG)
        replies.append(reply)
        clock.now += reply["seconds"]
    return replies


async def test_wrong_pins_slow_then_lock_the_source_and_the_wait_grows(
    backend: ScriptedBackend, http: aiohttp.ClientSession
) -> None:
    clock = ManualClock()
    async with (
        DisplayServer(backend, port=0, supervisor_pin=SUPERVISOR_PIN, clock=clock) as server,
        http.ws_connect(f"{server.url}ws") as dealer,
        http.ws_connect(f"{server.url}ws") as other,
    ):
        first = await ask(dealer, WRONG)
        assert (first["message"], first["seconds"]) == ("wrong supervisor PIN", 0)  # a slip may be corrected at once
        second = await ask(dealer, WRONG)
        assert second["message"] == "wrong supervisor PIN: next try in 1 s"
        early = await ask(other, RIGHT)  # during the wait even the right PIN is not checked, on any screen
        assert (early["ok"], early["reason"]) == (False, "pin_locked")
        assert early["message"] == "after 2 wrong supervisor PINs from this machine: VOID waits 1 s"
        waits = [second["seconds"]]
        for screen in (other, dealer, other):  # the guesses of both screens count on the one record
            clock.now += waits[-1]
            waits.append((await ask(screen, WRONG))["seconds"])
        assert waits == [1, 2, 4, 60] and backend.commands == []
        ((kind, message, _rule),) = backend.alarms
        assert kind == "supervisor_pin_locked"
        assert "for VOID from this machine (the last on screen 2 (127.0.0.1)" in message

        clock.now += 30
        locked = await ask(dealer, RIGHT)
        assert locked["message"] == "too many wrong PINs from this machine: VOID locked for 30 s"
        clock.now += 30
        replies = await _lock(dealer, clock)  # the second lockout of this source lasts twice as long
        assert replies[-1]["message"] == f"wrong supervisor PIN: VOID locked for {2 * PIN_LOCKOUT_S:g} s"
        assert len(backend.alarms) == 2
        clock.now -= 1
        assert (await ask(other, RIGHT))["reason"] == "pin_locked"
        clock.now += 1
        assert (await ask(other, RIGHT))["ok"] is True  # the right PIN after the lockout clears the record
        assert [(c.name, c.role) for c in backend.commands] == [("VOID", "supervisor")]
        assert (await ask(dealer, WRONG))["message"] == "wrong supervisor PIN"  # a first slip again


async def test_reconnecting_between_guesses_locks_within_five_wrong_pins_with_an_alarm(
    backend: ScriptedBackend, http: aiohttp.ClientSession
) -> None:
    """The attack of issue 30: a new WebSocket for every guess, each as soon as allowed. The fifth wrong PIN
    locks the source and raises the alarm; the reloaded page after it is locked too."""
    clock = ManualClock()
    async with DisplayServer(backend, port=0, supervisor_pin=SUPERVISOR_PIN, clock=clock) as server:
        reasons = []
        for guess in range(PIN_ATTEMPTS):
            async with http.ws_connect(f"{server.url}ws") as ws:
                reply = await ask(ws, {**WRONG, "pin": f"{guess:04d}"})
            reasons.append(reply["reason"])
            if reply["reason"] == "wrong_pin":
                clock.now += reply["seconds"]  # the next guess as soon as it may come
            assert len(backend.alarms) == (1 if guess == PIN_ATTEMPTS - 1 else 0)
        assert reasons == ["wrong_pin"] * (PIN_ATTEMPTS - 1) + ["pin_locked"]
        ((kind, message, _rule),) = backend.alarms
        assert kind == "supervisor_pin_locked" and f"{PIN_ATTEMPTS} wrong supervisor PINs in a row" in message
        async with http.ws_connect(f"{server.url}ws") as reloaded:
            refused = await ask(reloaded, RIGHT)
            ratings = await ask(reloaded, {"type": "ratings", "pin": SUPERVISOR_PIN})  # the same record
        assert (refused["reason"], refused["seconds"]) == ("pin_locked", PIN_LOCKOUT_S)
        assert (ratings["ok"], ratings["reason"]) == (False, "pin_locked")
        assert backend.commands == []


async def test_every_loopback_address_is_one_source_and_another_address_its_own() -> None:
    assert {pin_source(a) for a in ("127.0.0.1", "127.0.0.2", "127.9.9.9", "::1", "::ffff:127.0.0.1")} == {
        THIS_MACHINE}
    assert pin_source("10.0.4.21") == "10.0.4.21"


async def test_the_sources_count_apart() -> None:
    clock = ManualClock()
    alarms: list[str] = []

    async def alarm(kind: str, message: str, rule: str) -> None:
        alarms.append(message)

    guard = SupervisorPin(SUPERVISOR_PIN, clock=clock, security_alarm=alarm)
    reasons = []
    for _ in range(PIN_ATTEMPTS):
        reply = await guard.check("VOID", "0000", address="127.0.0.2", screen="screen 1")
        assert reply is not None
        reasons.append(reply["reason"])
        if reply["reason"] == "wrong_pin":
            clock.now += reply["seconds"]
    assert reasons[-1] == "pin_locked" and "from this machine" in alarms[0]
    assert await guard.check("VOID", SUPERVISOR_PIN, address="::1", screen="screen 2") is not None  # the same one
    assert await guard.check("VOID", SUPERVISOR_PIN, address="10.0.4.21", screen="screen 3") is None  # another


async def test_guessing_as_fast_as_allowed_for_a_shift_tries_few_of_the_pins() -> None:
    """Each guess as soon as the source may try again, for eight hours of the injected clock: the tries checked
    are a small part of the 10,000 PINs of 4 digits (bench/pin_guessing.py prints the figure)."""
    clock = ManualClock()
    start = clock.now
    lockouts = 0

    async def alarm(kind: str, message: str, rule: str) -> None:
        nonlocal lockouts
        lockouts += 1

    guard = SupervisorPin(SUPERVISOR_PIN, clock=clock, security_alarm=alarm)
    checked = 0
    while clock.now - start < SHIFT_S:
        reply = await guard.check("VOID", "0000", address="127.0.0.1", screen="screen 1")
        assert reply is not None
        checked += 1
        clock.now += max(reply["seconds"], 0.001)
    assert checked < FOUR_DIGIT_PINS / 20  # at least 20 shifts to try every PIN of 4 digits
    assert lockouts == checked // PIN_ATTEMPTS  # every lockout an alarm
