"""The supervisor's PIN on the display: checked on the server, with a lockout after wrong guesses.

VOID and the acknowledgement of the alarms only the supervisor may clear ask for
the PIN. `PIN_ATTEMPTS` wrong PINs in a row lock those commands for
`PIN_LOCKOUT_S` on every screen (a second screen must not give a guesser more
tries), and the lockout is a `supervisor_pin_locked` alarm, journaled and shown.
The clock is passed in, so the lockout is tested without waiting.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from typing import Any

from table_runtime.game.alarm_kinds import AlarmKind

log = logging.getLogger("table_runtime.display.server")

PIN_ATTEMPTS = 5  # wrong supervisor PINs in a row before VOID and supervisor acknowledgements are locked
PIN_LOCKOUT_S = 60.0  # how long they stay locked: a 4-digit PIN must not be guessable from the screen
PIN_RULE = "TABLE.md Corrections and recall (only a supervisor voids a round)"

SecurityAlarm = Callable[[str, str, str], None]  # (kind, message, rule)


class SupervisorPin:
    """The configured PIN (None: no supervisor on this table), the wrong guesses in a row and the lockout."""

    def __init__(self, pin: str | None, *, clock: Callable[[], float], security_alarm: SecurityAlarm) -> None:
        self._pin = pin
        self._clock = clock
        self.security_alarm = security_alarm  # the lockout is an alarm: journaled, shown, published
        self._failures = 0
        self._locked_until = float("-inf")

    @property
    def configured(self) -> bool:
        return self._pin is not None

    def check(self, name: str, pin: object) -> dict[str, Any] | None:
        """Why the supervisor command `name` is refused (message, reason code, and `seconds` locked), or None."""
        if self._pin is None:
            return {"message": "no supervisor PIN is configured on this table", "reason": "no_pin"}
        now = self._clock()
        if now < self._locked_until:
            seconds = int(self._locked_until - now) + 1
            return {"message": f"too many wrong PINs: {name} locked for {seconds} s", "reason": "pin_locked",
                    "seconds": seconds}
        if isinstance(pin, str) and hmac.compare_digest(pin.encode(), self._pin.encode()):
            self._failures = 0
            return None
        self._failures += 1
        log.warning("display: wrong supervisor PIN for %s (%d in a row)", name, self._failures)
        if self._failures < PIN_ATTEMPTS:
            return {"message": "wrong supervisor PIN", "reason": "wrong_pin"}
        self._failures = 0
        self._locked_until = now + PIN_LOCKOUT_S
        self.security_alarm(
            AlarmKind.SUPERVISOR_PIN_LOCKED,
            f"{PIN_ATTEMPTS} wrong supervisor PINs in a row for {name}: supervisor commands locked for "
            f"{PIN_LOCKOUT_S:g} s on every screen", PIN_RULE)
        return {"message": f"wrong supervisor PIN: {name} locked for {PIN_LOCKOUT_S:g} s", "reason": "pin_locked",
                "seconds": int(PIN_LOCKOUT_S)}
