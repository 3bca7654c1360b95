"""Bench: how fast the supervisor's PIN can be guessed at the display (issue 30, "a PIN cannot be guessed").

Two figures:

* the schedule: the real `SupervisorPin` (display/pin_guard.py) on an injected clock, one source guessing a wrong
  PIN each time it may try again (a guess while it waits is refused unchecked, so it gains nothing), for
  `--hours` of that clock; printed: the guesses checked in the first hour, in the first shift of 8 hours, an
  hour once the lockouts are at their longest, and the time to try every PIN of 4 and of 5 digits;
* the attack of the issue, on the wire: the real display server on 127.0.0.1 and its real clock, a client that
  opens a new WebSocket for every guess as fast as the server answers, for `--seconds`; printed: the guesses
  sent, how many were checked (answered `wrong_pin`, or the one that locked), and the lockout alarms.

Run: python -m bench.pin_guessing [--hours 48] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shlex
import sys
from typing import Any

import aiohttp

from table_runtime.display import DisplayServer
from table_runtime.display.pin_guard import SupervisorPin

PIN = "24681"
SHIFT_H = 8


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def schedule(hours: float) -> list[float]:
    """The clock's time (s) of each guess checked, each as soon as the source may try again."""
    clock = _Clock()

    async def alarm(kind: str, message: str, rule: str) -> None:
        return None

    guard = SupervisorPin(PIN, clock=clock, security_alarm=alarm)
    checked: list[float] = []
    while clock.now < hours * 3600:
        reply = await guard.check("VOID", "00000", address="127.0.0.1", screen="bench")
        assert reply is not None and reply["reason"] in ("wrong_pin", "pin_locked")
        checked.append(clock.now)
        clock.now += max(float(reply["seconds"]), 0.001)
    return checked


def _time_to(checked: list[float], guesses: int) -> str:
    if len(checked) >= guesses:
        return f"{checked[guesses - 1] / 3600:,.0f} h"
    per_hour = _steady_per_hour(checked)
    return f"about {(checked[-1] + (guesses - len(checked)) / per_hour * 3600) / 3600:,.0f} h"


def _steady_per_hour(checked: list[float]) -> float:
    last = checked[-1]
    return sum(1 for at in checked if at > last - 3600)


class _Backend:
    """A display backend that only counts: the bench attacks the PIN, not the table."""

    def __init__(self) -> None:
        self.alarms = 0

    def snapshot(self) -> dict[str, Any]:
        return {"seq": 0, "alarms": []}

    async def command(self, name: str, args: dict[str, Any], *, role: str) -> dict[str, Any]:
        return {"ok": True, "message": f"{name} done"}

    def recall(self, last: int) -> list[dict[str, Any]]:
        return []

    def ratings(self) -> dict[str, Any]:
        return {"sessions": [], "flags": []}

    async def security_alarm(self, kind: str, message: str, rule: str) -> None:
        self.alarms += 1


async def attack(seconds: float) -> tuple[int, int, int]:
    """(guesses sent, guesses checked, lockout alarms) of a client reconnecting for every guess."""
    backend = _Backend()
    sent = checked = 0
    async with DisplayServer(backend, port=0, supervisor_pin=PIN) as server, aiohttp.ClientSession() as http:
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while loop.time() < end:
            async with http.ws_connect(f"{server.url}ws") as ws:
                await ws.send_json({"type": "command", "name": "VOID", "pin": f"{sent % 100000:05d}", "request": 1})
                sent += 1
                while True:
                    reply = await ws.receive_json(timeout=5)
                    if reply.get("request") == 1:
                        break
            if reply["reason"] == "wrong_pin" or reply["message"].startswith("wrong supervisor PIN"):
                checked += 1
    return sent, checked, backend.alarms


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=48.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args(argv)
    logging.getLogger("table_runtime.display.server").setLevel(logging.ERROR)  # a warning per wrong PIN
    checked = await schedule(args.hours)
    first_hour = sum(1 for at in checked if at < 3600)
    shift = sum(1 for at in checked if at < SHIFT_H * 3600)
    print(f"schedule: {first_hour} guesses checked in the first hour, {shift} in the first shift of {SHIFT_H} h, "
          f"{_steady_per_hour(checked):.0f} an hour at the longest lockout")
    print(f"  every PIN of 4 digits (10,000): {_time_to(checked, 10**4)}; of 5 digits (100,000): "
          f"{_time_to(checked, 10**5)}")
    sent, on_wire, alarms = await attack(args.seconds)
    print(f"attack: a new WebSocket per guess for {args.seconds:g} s: {sent} guesses sent, {on_wire} checked, "
          f"{alarms} lockout alarm(s)")
    print("command: python -m bench.pin_guessing " + shlex.join(argv))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
