"""A table under a staff registry, for the staff's tests: the registry file, the controller, the desk."""

from __future__ import annotations

import itertools
from pathlib import Path

from table_runtime.config.model import zone_names
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.staff_desk import StaffDesk
from table_runtime.staff.registry import StaffRegistry

SECRET = b"casino-secret-of-16+bytes"
DEALER_BADGE, SECOND_BADGE, SUPERVISOR_BADGE = "7700000001", "7700000002", "7700000009"
CSV = ("employee_id,name,roles,approval,badge,pin\n"
       f"D1,Marie Dupont,dealer,R321-0001,{DEALER_BADGE},1357\n"
       f"D2,Luc Bon,dealer,R321-0002,{SECOND_BADGE},2468\n"
       f"S1,Paul Martin,supervisor,R321-0009,{SUPERVISOR_BADGE},9753\n"
       "V1,Anne Roux,surveillance,,,4444\n")
ZONES = zone_names(7)


def staff_registry(directory: Path) -> Path:
    path = directory / "staff.sqlite"
    with StaffRegistry(path, secret=SECRET) as registry:
        registry.import_text(CSV)
    return path


def staff_controller(journal: Journal, *, staff: bool = True) -> TableController:
    ticks = itertools.count()
    return TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                           clock=lambda: 1_700_000_000.0 + next(ticks), zones=ZONES, staff=staff)


def staff_desk(controller: TableController, registry: Path, now: list[float] | None = None) -> StaffDesk:
    clock = (lambda: now[0]) if now is not None else (lambda: 0.0)
    return StaffDesk(controller, registry, secret=SECRET, clock=clock, badge_seconds=30.0)
