"""The staff's own PINs on the display: checked through the staff registry, wrong ones counted per employee and per
screen (issue 34).

Where a staff registry rules the table a dealer takes the table with his employee id and his own PIN, and every
supervisor action asks that supervisor's own badge or PIN (the shared supervisor PIN is refused: display/server.py).
A wrong PIN counts twice, on two records of the kind display/pin_guard.py keeps (`PinAttempts`): the **employee's**
(whoever guesses his PIN, from any screen) and the **screen's** (the source address, every loopback address this
machine, whichever employee ids it tries: so cycling through the ids does not reset the count). The same delays and
lockouts as the shared PIN's (pin_guard.py): a first slip corrected at once, then a wait doubling with each wrong
PIN, and `PIN_ATTEMPTS` in a row lock that record for `PIN_LOCKOUT_S`, doubling up to `PIN_LOCKOUT_MAX_S`. Each
lockout is a `staff_pin_locked` alarm, journaled, shown and published, naming the employee id and the screen (never
the PIN tried). The right PIN clears both records. The clock is passed in.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any, Final, Generic, TypeVar

from table_runtime.display.pin_guard import (
    PIN_ATTEMPTS,
    PIN_DELAY_S,
    PIN_LOCKOUT_MAX_S,
    PIN_LOCKOUT_S,
    SOURCES_KEPT,
    PinAttempts,
    SecurityAlarm,
    pin_source,
)
from table_runtime.game.alarm_kinds import AlarmKind

log = logging.getLogger("table_runtime.display.server")

STAFF_PIN_RULE: Final = "CSI R.321-31 (every employee of the gaming floor acts under his own approval)"
E = TypeVar("E")
Verify = Callable[[str, str], Awaitable[E | None]]  # (employee id, PIN) -> the employee, or None


class StaffPins(Generic[E]):
    """The wrong-PIN records of the employees and the screens; `verify` checks a PIN against the registry."""

    def __init__(self, verify: Verify[E], *, clock: Callable[[], float], security_alarm: SecurityAlarm) -> None:
        self._verify = verify
        self._clock = clock
        self.security_alarm = security_alarm
        self._records: dict[tuple[str, str], PinAttempts] = {}  # ("employee"|"screen", id): the records with misses

    def attempts(self, kind: str, key: str) -> PinAttempts:
        return self._records.get((kind, key)) or PinAttempts(key, kind)

    def _keep(self, attempts: PinAttempts) -> None:
        key = (attempts.role, attempts.source)
        self._records.pop(key, None)
        self._records[key] = attempts
        while len(self._records) > 2 * SOURCES_KEPT:
            del self._records[next(iter(self._records))]

    async def check(self, name: str, employee_id: object, pin: object, *, address: str | None,
                    screen: str) -> tuple[E | None, dict[str, Any] | None]:
        """(the employee, None) when `pin` is `employee_id`'s own; else (None, why: message, reason, seconds)."""
        if not isinstance(employee_id, str) or not employee_id or not isinstance(pin, str):
            return None, {"message": f"{name} needs your employee id and your own PIN", "reason": "wrong_pin"}
        records = (self.attempts("employee", employee_id), self.attempts("screen", pin_source(address)))
        now = self._clock()
        waiting = max(records, key=lambda record: record.waits_until)
        if now < waiting.waits_until:
            seconds = math.ceil(waiting.waits_until - now)
            whose = f"employee {employee_id}" if waiting.role == "employee" else "this screen"
            return None, {"message": f"too many wrong PINs for {whose}: {name} waits {seconds} s",
                          "reason": "pin_locked", "seconds": seconds}
        employee = await self._verify(employee_id, pin)
        if employee is not None:
            for record in records:
                self._records.pop((record.role, record.source), None)
            return employee, None
        log.warning("display: wrong PIN of employee %s for %s on %s", employee_id, name, screen)
        refusal: dict[str, Any] = {"message": "wrong employee id or PIN", "reason": "wrong_pin", "seconds": 0}
        for record in records:
            record.failures += 1
            self._keep(record)
            if record.failures < PIN_ATTEMPTS:
                delay = 0.0 if record.failures == 1 else PIN_DELAY_S * 2 ** (record.failures - 2)
                record.waits_until = max(record.waits_until, now + delay)
                if delay > refusal["seconds"]:
                    refusal = {"message": f"wrong employee id or PIN: next try in {delay:g} s", "reason": "wrong_pin",
                               "seconds": int(delay)}
                continue
            lockout = min(PIN_LOCKOUT_MAX_S, PIN_LOCKOUT_S * 2**record.lockouts)
            record.failures = 0
            record.lockouts += 1
            record.waits_until = now + lockout
            whose = f"employee {employee_id}" if record.role == "employee" else f"the screen {record.source}"
            await self.security_alarm(
                AlarmKind.STAFF_PIN_LOCKED,
                f"{PIN_ATTEMPTS} wrong PINs in a row for {whose} (the last for {name}, employee {employee_id} on "
                f"{screen}): locked for {lockout:g} s (lockout {record.lockouts})", STAFF_PIN_RULE)
            refusal = {"message": f"wrong employee id or PIN: {whose} locked for {lockout:g} s",
                       "reason": "pin_locked", "seconds": int(lockout)}
        return None, refusal
