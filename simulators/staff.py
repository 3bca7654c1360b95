"""Simulated staff: a registry of dealers and a supervisor, their badges swiped at the simulated reader, and the
dealers' rotation (issue 34).

`demo_staff_registry(path, secret)` writes a staff registry (table_runtime/staff/registry.py) of four dealers and
a supervisor, each with a badge and a PIN (the numbers are the simulation's; the registry keeps only their hashes).
`DealerRotation` says when the next dealer takes the table: every `every_seconds` of play (30 minutes by default, a
pit's usual rotation), in turn, each swiping his badge at the table's reader, which pushes the dealer on shift
(core/shift.py); `first` says whose turn comes first, so the tables of a floor demo start on different dealers and
pass them on. The clock is passed in. The dealers are not alike: each deals at his own pace (`pace_factor`, times
the demo's `--pace`) and errs at his own rate (`error_factor`, times its `--error-rate`), as a pit's dealers do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from table_runtime.staff.registry import StaffRegistry


@dataclass(frozen=True, slots=True)
class SimulatedEmployee:
    employee_id: str
    name: str
    roles: str
    badge: str
    pin: str
    pace_factor: float = 1.0  # his seconds between two actions, as a multiple of the demo's pace
    error_factor: float = 1.0  # his errors, as a multiple of the demo's error rate


DEALERS: Final = (
    SimulatedEmployee("D01", "Marie Dupont", "dealer", "8800000001", "1357"),
    SimulatedEmployee("D02", "Luc Bonnet", "dealer", "8800000002", "2468", pace_factor=0.7, error_factor=0.5),
    SimulatedEmployee("D03", "Sofia Marchetti", "dealer", "8800000003", "3579", pace_factor=1.4),
    SimulatedEmployee("D04", "Karim Haddad", "dealer", "8800000004", "4680", pace_factor=0.9, error_factor=3.0),
)
SUPERVISOR: Final = SimulatedEmployee("S01", "Paul Martin", "supervisor", "8800000009", "9753")
ROTATION_SECONDS: Final = 30 * 60.0


def demo_staff_csv() -> str:
    """The simulated staff as the casino's HR export would give them (approval numbers CSI R.321-31)."""
    lines = ["employee_id,name,roles,approval,status,badge,pin"]
    for index, employee in enumerate((*DEALERS, SUPERVISOR), start=1):
        lines.append(f"{employee.employee_id},{employee.name},{employee.roles},R321-{index:04d},active,"
                     f"{employee.badge},{employee.pin}")
    return "\n".join(lines) + "\n"


def demo_staff_registry(path: Path, secret: bytes) -> Path:
    """The simulated staff's registry at `path` (made once: a restarted demo keeps it)."""
    if not path.exists():
        with StaffRegistry(path, secret=secret) as registry:
            registry.import_text(demo_staff_csv(), source="the demo's staff")
    return path


class DealerRotation:
    """Which dealer takes the table next, and when: the first at once, then the next every `every_seconds`."""

    def __init__(self, clock: Callable[[], float], *, every_seconds: float = ROTATION_SECONDS,
                 dealers: tuple[SimulatedEmployee, ...] = DEALERS, first: int = 0) -> None:
        self._clock = clock
        self.every_seconds = every_seconds
        self.dealers = dealers
        self._turn = first
        self._since: float | None = None

    def due(self) -> SimulatedEmployee | None:
        """The dealer whose turn it is to take the table now (his badge swiped), or None."""
        now = self._clock()
        if self._since is not None and now - self._since < self.every_seconds:
            return None
        self._since = now
        dealer = self.dealers[self._turn % len(self.dealers)]
        self._turn += 1
        return dealer

    def dealer(self, employee_id: str | None) -> SimulatedEmployee | None:
        """The simulated dealer of this id (the one on shift), or None."""
        return next((dealer for dealer in self.dealers if dealer.employee_id == employee_id), None)
