"""The staff at the table's shell: the registry read, a badge told from a player card, logins journaled (issue 34).

The staff registry's file (table_runtime/staff/registry.py) is read again whenever it changes (its time and size,
as the chip registry's follower does, runtime/registry_follow.py), so a suspension made with `table-runtime staff
set-status` holds at the next badge or PIN. What the desk does:

- `badge(number)`: the card reader's number is a badge when its keyed hash is an employee's (else it is a player's
  card, and goes on to the player's pseudonym, runtime/card_link.py). The number goes no further than the hash.
- `log_in(employee, via)`, `log_out()`: the dealer takes or leaves the table as one step of the controller (a login
  while another dealer holds it is a push: his logout and the login, core/shift.py `login_inputs`).
- a supervisor's badge swipe stands for his next supervisor action on the display for `badge_seconds`
  (`supervisor_badge`): the display then needs no PIN from him.
- `verify_pin(employee, pin)`: his Argon2id hash checked in a worker thread (tens of milliseconds, off the loop);
  the wrong PINs are counted by the display (display/staff_guard.py).

A badge of a suspended employee, or of a surveillance officer, takes nothing: a warning line names the employee,
never the number. The clock is passed in.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_runtime.core.shift import EmployeeLoggedOut, Via, login_inputs, logout_inputs
from table_runtime.core.staff_roles import StaffRole
from table_runtime.errors import ConfigError
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.registry_follow import Stamp, stamp_of
from table_runtime.staff.dealer_work import Stint, WorkTally
from table_runtime.staff.registry import Employee, StaffRegistry, StaffSnapshot, pin_hash

log = logging.getLogger("table_runtime.staff")


def read_staff(path: Path) -> StaffSnapshot:
    """The registry's employees now; a `ConfigError` naming `staff.registry` for a file that is none."""
    if not path.is_file():
        raise ConfigError("staff.registry", f"{path}: no staff registry here (table-runtime staff --db {path} "
                                            "import FILE creates it)")
    try:
        with StaffRegistry(path) as registry:
            return registry.snapshot()
    except (sqlite3.Error, ValueError) as error:
        raise ConfigError("staff.registry", f"{path}: not a staff registry: {error}") from error


@dataclass(frozen=True, slots=True)
class BadgeSeen:
    """A supervisor's badge swipe, and when: it stands for his next supervisor action."""

    employee: Employee
    at: float


class StaffDesk:
    """The registry at `path` for this table's controller; `secret`: the casino's player card secret (badges)."""

    def __init__(self, controller: TableController, path: Path, *, secret: bytes | None,
                 clock: Callable[[], float], badge_seconds: float = 30.0) -> None:
        self.controller = controller
        self.path = path
        self._secret = secret
        self._clock = clock
        self.badge_seconds = badge_seconds
        self._lock = threading.Lock()  # read from the loop and from the writer's thread (a badge's step)
        self._stamp: Stamp = stamp_of(path)
        self._snapshot = read_staff(path)
        self._badge_seen: BadgeSeen | None = None
        self._work = WorkTally()  # the dealers' stints, read from the journal up to `_work_seq` (dealer_work.py)
        self._work_seq = 0
        self._work_lock = threading.Lock()

    @property
    def snapshot(self) -> StaffSnapshot:
        """The registry as last read, read again first if its file changed (a file gone bad keeps the last)."""
        with self._lock:
            stamp = stamp_of(self.path)
            if stamp != self._stamp:
                try:
                    self._snapshot = read_staff(self.path)
                    self._stamp = stamp
                except ConfigError as error:
                    log.warning("%s; the staff registry read before is kept", error)
            return self._snapshot

    def name(self, employee_id: str | None) -> str | None:
        return None if employee_id is None else self.snapshot.name(employee_id)

    # --- a badge at the table's reader (called in the card's step: runtime/card_link.py) ----------------------

    def badge(self, number: str) -> Employee | None:
        """The employee whose badge reads `number` (None: a player's card). A dealer's badge takes the table; a
        supervisor's stands for his next action; a suspended employee's or a surveillance officer's takes nothing.
        Called inside the reader's step (the writer's thread)."""
        if self._secret is None:
            return None
        employee = self.snapshot.badge(self._secret, number)
        if employee is None:
            return None
        if not employee.active:
            log.warning("staff: the badge of %s (%s) read at the table: suspended, nothing taken",
                        employee.employee_id, employee.name)
        elif employee.supervises:
            self._badge_seen = BadgeSeen(employee, self._clock())
            log.info("staff: supervisor %s badged; his next supervisor action needs no PIN for %g s",
                     employee.employee_id, self.badge_seconds)
        elif employee.may(StaffRole.DEALER):
            self.take_table(employee.employee_id, "badge")
        else:
            log.warning("staff: the badge of %s (%s) read at the table: no dealer, nothing taken",
                        employee.employee_id, employee.name)
        return employee

    def supervisor_badge(self) -> Employee | None:
        """The supervisor who badged within `badge_seconds`, taken (one badge, one action), or None."""
        seen, self._badge_seen = self._badge_seen, None
        if seen is None or self._clock() - seen.at > self.badge_seconds:
            return None
        return seen.employee

    # --- logins, as steps of the controller ----------------------------------------------------------------

    def take_table(self, employee_id: str, via: Via) -> dict[str, Any]:
        """`employee_id` takes the table (the dealer on shift pushed first); one change of the controller. The
        stint that ends is noted with its figures (`DealerWork`, a status row the feed publishes)."""
        controller = self.controller
        inputs = login_inputs(controller.core.shift, employee_id, via)
        if not inputs:
            return {"ok": True, "message": f"{employee_id} holds the table already"}
        source = "card" if via == "badge" else "display"
        ended = self._stint_now() if len(inputs) > 1 else None
        controller.submit_all([(item, source) for item in inputs])
        self._note_work(ended, inputs[0])
        return {"ok": True, "message": f"{employee_id} takes the table"}

    def leave_table(self) -> dict[str, Any]:
        controller = self.controller
        inputs = logout_inputs(controller.core.shift)
        if not inputs:
            return {"ok": False, "message": "no dealer is logged in", "reason": "no_dealer"}
        ended = self._stint_now()
        controller.submit_all([(item, "display") for item in inputs])
        self._note_work(ended, inputs[0])
        return {"ok": True, "message": f"{inputs[0].employee} leaves the table"}

    # --- the dealers' work (table_runtime/staff/dealer_work.py) ---------------------------------------------

    def _read_work(self) -> WorkTally:
        """The tally, caught up with the journal (the rows after the last read: the first read reads them all)."""
        with self._work_lock:
            for entry in self.controller.journal.entries(self._work_seq):
                self._work.add(entry)
                self._work_seq = entry.seq
            return self._work

    def _stint_now(self) -> Stint | None:
        return self._read_work().open

    def _note_work(self, ended: Stint | None, logout: object) -> None:
        """The figures of the stint a logout or a push ended, as a `DealerWork` note (its end the logout's row)."""
        if ended is None or not isinstance(logout, EmployeeLoggedOut) or ended.employee != logout.employee:
            return
        tally = self._read_work()
        stint = next((stint for stint in reversed(tally.stints) if stint.since_seq == ended.since_seq), None)
        if stint is not None:
            self.controller.note({"type": "DealerWork", **stint.view()})

    async def dealer_work(self) -> list[dict[str, Any]]:
        """The supervisor's view of the dealers: every stint at this table, with names, read off the loop."""
        tally = await asyncio.to_thread(self._read_work)
        return [{**stint.view(), "name": self.name(stint.employee)} for stint in tally.stints]

    async def log_in(self, employee_id: str, via: Via) -> dict[str, Any]:
        return await self.controller.step(self.take_table, employee_id, via)

    async def log_out(self) -> dict[str, Any]:
        return await self.controller.step(self.leave_table)

    async def command_by(self, name: str, args: dict[str, Any], *, role: str, employee: str) -> dict[str, Any]:
        """A command from the display made by `employee` (a supervisor by his own badge or PIN)."""
        controller = self.controller
        return await controller.step(controller.press, name, args, role=role, source="display", employee=employee)

    def named(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        """The snapshot as the display shows it: the dealer on shift by name (the feed keeps his id only)."""
        shift = snapshot.get("shift")
        if not isinstance(shift, dict) or shift.get("dealer") is None:
            return snapshot
        return {**snapshot, "shift": {**shift, "name": self.name(shift["dealer"])}}

    async def verify_pin(self, employee_id: str, pin: str) -> Employee | None:
        """The employee if `pin` is his (his Argon2id hash checked in a worker thread), else None."""
        employee = self.snapshot.get(employee_id)
        if employee is None:
            await asyncio.to_thread(_burn, pin)  # as long as a real check: the time says nothing of who exists
            return None
        return employee if await asyncio.to_thread(employee.pin_matches, pin) else None


_NOBODY: list[Employee] = []  # made at the first check of an unknown id (an Argon2id hash takes its time)


def _burn(pin: str) -> None:
    """An Argon2id check against a hash of no one's PIN."""
    if not _NOBODY:
        _NOBODY.append(Employee(employee_id="-", name="-", roles=frozenset({StaffRole.SURVEILLANCE}), approval="",
                                pin_hash=pin_hash("00000000")))
    _NOBODY[0].pin_matches(pin)
