"""The supervisor's PIN on the display: checked on the server, its wrong guesses counted per source and role.

VOID, the acknowledgement of the alarms only the supervisor may clear and the supervisor's view of the rated
players ask for the PIN. The wrong PINs are counted per **source** (the peer address of the connection; every
loopback address is one source, this machine) and per **role** the PIN would grant (the supervisor), in one
record (`PinAttempts`) shared by every screen and every connection from that source: a client that reconnects
between guesses, or guesses from screen after screen, keeps counting on the same record.

A first wrong PIN (a slip of the finger) may be corrected at once; after the second in a row the source waits
`PIN_DELAY_S` before its next try, doubling with each next one; `PIN_ATTEMPTS` wrong PINs in a row lock the
role's commands from that source for `PIN_LOCKOUT_S`, doubling with each lockout up to `PIN_LOCKOUT_MAX_S`, and
each lockout is a `supervisor_pin_locked` alarm, journaled, shown and published, naming the source and the screen.
A try while the source waits is refused unchecked (it neither counts nor extends the wait). Only the right PIN
clears the record. So a guesser gets at most about 20 tries an hour once the lockouts reach their longest:
the 10,000 PINs of 4 digits take weeks, not a shift (bench/pin_guessing.py prints the figure).

Why not per screen: a count per WebSocket connection let a client that reconnected before the fifth wrong PIN
guess for ever, about a thousand tries a second, with no alarm. The price of counting per source: the dealer
display is served to this machine only, so a dealer's guesses lock the supervisor out of that table's screens
too, for the lockout's time, and the alarm tells the supervisor why. The clock is passed in, so the delays are
tested without waiting.
"""

from __future__ import annotations

import hmac
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from table_runtime.display.request_guard import is_loopback_host
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.commands import Role

log = logging.getLogger("table_runtime.display.server")

PIN_ATTEMPTS = 5  # wrong PINs in a row from one source before the role's commands are locked from it
PIN_DELAY_S = 1.0  # after the second wrong PIN in a row the source waits this long, doubled after each next one
PIN_LOCKOUT_S = 60.0  # the first lockout of a source; each next one doubles
PIN_LOCKOUT_MAX_S = 900.0
PIN_RULE = citations.SUPERVISOR_VOIDS
THIS_MACHINE: Final = "this machine"  # the source of every loopback address (127.0.0.0/8, ::1)
SOURCES_KEPT: Final = 256  # sources with wrong PINs remembered (only this machine reaches the PIN today)

SecurityAlarm = Callable[[str, str, str], Awaitable[None]]  # (kind, message, rule); returns once journaled


def pin_source(address: str | None) -> str:
    """The source a connection's wrong PINs count against: its peer address, every loopback address one."""
    if address is None or is_loopback_host(address) or address.startswith("::ffff:127."):
        return THIS_MACHINE  # 127.0.0.2, 127.9.9.9 and ::1 are this machine as much as 127.0.0.1 is
    return address


@dataclass(eq=False, slots=True)
class PinAttempts:
    """One source's record for one role: its wrong PINs in a row, how often it was locked, until when it waits."""

    source: str
    role: str = Role.SUPERVISOR
    failures: int = 0
    lockouts: int = 0
    waits_until: float = float("-inf")


class SupervisorPin:
    """The configured PIN (None: no supervisor on this table), checked against the record of each source."""

    def __init__(self, pin: str | None, *, clock: Callable[[], float], security_alarm: SecurityAlarm) -> None:
        self._pin = pin
        self._clock = clock
        self.security_alarm = security_alarm  # the lockout is an alarm: journaled, shown, published
        self._records: dict[tuple[str, str], PinAttempts] = {}  # (source, role): the sources with wrong PINs

    @property
    def configured(self) -> bool:
        return self._pin is not None

    def attempts(self, address: str | None, role: str = Role.SUPERVISOR) -> PinAttempts:
        """The record of the source of `address` for `role` (a new one, not yet kept, if it has none)."""
        source = pin_source(address)
        return self._records.get((source, role)) or PinAttempts(source, role)

    def _keep(self, attempts: PinAttempts) -> None:
        key = (attempts.source, attempts.role)
        self._records.pop(key, None)
        self._records[key] = attempts  # the newest last: past SOURCES_KEPT the oldest is forgotten first
        while len(self._records) > SOURCES_KEPT:
            del self._records[next(iter(self._records))]

    async def check(self, name: str, pin: object, *, address: str | None, screen: str) -> dict[str, Any] | None:
        """Why the supervisor command `name` from `address` (on `screen`, as the alarm and the log name it) is
        refused (message, reason code, and `seconds` to wait), or None."""
        if self._pin is None:
            return {"message": "no supervisor PIN is configured on this table", "reason": "no_pin"}
        attempts = self.attempts(address)
        where = "from this machine" if attempts.source == THIS_MACHINE else f"from {attempts.source}"
        now = self._clock()
        if now < attempts.waits_until:
            seconds = math.ceil(attempts.waits_until - now)
            if attempts.failures == 0:
                message = f"too many wrong PINs {where}: {name} locked for {seconds} s"
            else:
                message = f"after {attempts.failures} wrong supervisor PINs {where}: {name} waits {seconds} s"
            return {"message": message, "reason": "pin_locked", "seconds": seconds}
        if isinstance(pin, str) and hmac.compare_digest(pin.encode(), self._pin.encode()):
            self._records.pop((attempts.source, attempts.role), None)  # the right PIN clears the record
            return None
        attempts.failures += 1
        self._keep(attempts)
        log.warning("display: wrong supervisor PIN for %s on %s %s (%d in a row)", name, screen, where,
                    attempts.failures)
        if attempts.failures < PIN_ATTEMPTS:
            delay = 0.0 if attempts.failures == 1 else PIN_DELAY_S * 2 ** (attempts.failures - 2)
            attempts.waits_until = now + delay
            return {"message": "wrong supervisor PIN" + (f": next try in {delay:g} s" if delay else ""),
                    "reason": "wrong_pin", "seconds": int(delay)}
        lockout = min(PIN_LOCKOUT_MAX_S, PIN_LOCKOUT_S * 2**attempts.lockouts)
        attempts.failures = 0
        attempts.lockouts += 1
        attempts.waits_until = now + lockout  # before the await: a guess on another screen meanwhile waits too
        await self.security_alarm(
            AlarmKind.SUPERVISOR_PIN_LOCKED,
            f"{PIN_ATTEMPTS} wrong supervisor PINs in a row for {name} {where} (the last on {screen}; counted "
            f"across its screens and connections): supervisor commands locked for {lockout:g} s there "
            f"(lockout {attempts.lockouts} of that source)", PIN_RULE)
        return {"message": f"wrong supervisor PIN: {name} locked for {lockout:g} s",
                "reason": "pin_locked", "seconds": int(lockout)}
