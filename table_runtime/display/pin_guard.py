"""The supervisor's PIN on the display: checked on the server, each screen slowed and locked by its own guesses.

VOID and the acknowledgement of the alarms only the supervisor may clear ask for the PIN. Each screen
(one WebSocket connection) keeps its own record (`PinAttempts`): a first wrong PIN (a slip of the finger)
may be corrected at once; after the second in a row that screen waits `PIN_DELAY_S` before its next try,
doubling with each next one; `PIN_ATTEMPTS` wrong PINs in a
row lock the supervisor commands on that screen for `PIN_LOCKOUT_S`, doubling with each lockout up to
`PIN_LOCKOUT_MAX_S`, and the lockout is a `supervisor_pin_locked` alarm, journaled and shown. A try
while the screen waits is refused unchecked (it neither counts nor extends the wait).

Why per screen: a table-wide count let a dealer keep the supervisor locked out by guessing again every
minute. Now the dealer's guesses lock the dealer's screen only; the supervisor, at another screen or on
a reloaded page, is checked on their own record. A guesser who opens screen after screen gets
`PIN_ATTEMPTS` slowed tries on each and raises an alarm on each, which surveillance sees.
The clock is passed in, so the delays are tested without waiting.
"""

from __future__ import annotations

import hmac
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from table_runtime.game.alarm_kinds import AlarmKind

log = logging.getLogger("table_runtime.display.server")

PIN_ATTEMPTS = 5  # wrong supervisor PINs in a row on one screen before its supervisor commands are locked
PIN_DELAY_S = 1.0  # after the second wrong PIN in a row the screen waits this long, doubled after each next one
PIN_LOCKOUT_S = 60.0  # the first lockout of a screen; each next one doubles
PIN_LOCKOUT_MAX_S = 900.0
PIN_RULE = "TABLE.md Corrections and recall (only a supervisor voids a round)"

SecurityAlarm = Callable[[str, str, str], Awaitable[None]]  # (kind, message, rule); returns once journaled


@dataclass(eq=False, slots=True)
class PinAttempts:
    """One screen's record: its wrong PINs in a row, how often it was locked, and until when it waits."""

    screen: str  # how the alarm and the log name the screen, e.g. "screen 3 (127.0.0.1)"
    failures: int = 0
    lockouts: int = 0
    waits_until: float = float("-inf")


class SupervisorPin:
    """The configured PIN (None: no supervisor on this table), checked against each screen's record."""

    def __init__(self, pin: str | None, *, clock: Callable[[], float], security_alarm: SecurityAlarm) -> None:
        self._pin = pin
        self._clock = clock
        self.security_alarm = security_alarm  # the lockout is an alarm: journaled, shown, published

    @property
    def configured(self) -> bool:
        return self._pin is not None

    async def check(self, name: str, pin: object, attempts: PinAttempts) -> dict[str, Any] | None:
        """Why the supervisor command `name` from the screen of `attempts` is refused (message, reason code,
        and `seconds` to wait), or None."""
        if self._pin is None:
            return {"message": "no supervisor PIN is configured on this table", "reason": "no_pin"}
        now = self._clock()
        if now < attempts.waits_until:
            seconds = math.ceil(attempts.waits_until - now)
            if attempts.failures == 0:
                message = f"too many wrong PINs: {name} locked on this screen for {seconds} s"
            else:
                message = f"after {attempts.failures} wrong supervisor PINs: {name} waits {seconds} s on this screen"
            return {"message": message, "reason": "pin_locked", "seconds": seconds}
        if isinstance(pin, str) and hmac.compare_digest(pin.encode(), self._pin.encode()):
            attempts.failures = attempts.lockouts = 0
            return None
        attempts.failures += 1
        log.warning("display: wrong supervisor PIN for %s on %s (%d in a row)", name, attempts.screen,
                    attempts.failures)
        if attempts.failures < PIN_ATTEMPTS:
            delay = 0.0 if attempts.failures == 1 else PIN_DELAY_S * 2 ** (attempts.failures - 2)
            attempts.waits_until = now + delay
            return {"message": "wrong supervisor PIN" + (f": next try on this screen in {delay:g} s" if delay else ""),
                    "reason": "wrong_pin", "seconds": int(delay)}
        lockout = min(PIN_LOCKOUT_MAX_S, PIN_LOCKOUT_S * 2**attempts.lockouts)
        attempts.failures = 0
        attempts.lockouts += 1
        attempts.waits_until = now + lockout
        await self.security_alarm(
            AlarmKind.SUPERVISOR_PIN_LOCKED,
            f"{PIN_ATTEMPTS} wrong supervisor PINs in a row for {name} on {attempts.screen}: supervisor commands "
            f"locked for {lockout:g} s on that screen (lockout {attempts.lockouts} of that screen)", PIN_RULE)
        return {"message": f"wrong supervisor PIN: {name} locked on this screen for {lockout:g} s",
                "reason": "pin_locked", "seconds": int(lockout)}
