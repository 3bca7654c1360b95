"""The roles of the table's staff, named once: who may take the table, who may act as its supervisor (issue 34).

An employee of the staff registry (table_runtime/staff/registry.py) holds one or more of them. A dealer takes the
table (core/shift.py); a supervisor or a pit manager acts as the table's supervisor (VOID, the supervisor's
alarms, the supervisor's view); surveillance reads and never acts. Pure.
"""

from __future__ import annotations

import enum
from typing import Final


class StaffRole(enum.StrEnum):
    """What an employee may do at a table."""

    DEALER = "dealer"
    SUPERVISOR = "supervisor"
    PIT_MANAGER = "pit_manager"
    SURVEILLANCE = "surveillance"  # read-only: never logs in, never acts


DEALS: Final = frozenset({StaffRole.DEALER})
SUPERVISES: Final = frozenset({StaffRole.SUPERVISOR, StaffRole.PIT_MANAGER})
