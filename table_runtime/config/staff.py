"""The `[staff]` section: the staff registry the table takes its dealers and supervisors from (issue 34).

    [staff]
    registry = "/var/lib/table-runtime/staff.sqlite"   # kept by `table-runtime staff import` (absent: no registry)
    badge_seconds = 30                                 # a supervisor's badge swipe stands for his next action

No section, or no `registry`: the table knows no employee, as before (the shared supervisor PIN, no dealer logged
in). With a registry the table deals only with a dealer logged in, every supervisor action asks that supervisor's
own badge or PIN, and the shared supervisor PIN is refused. A badge is recognised with the casino's player card
secret (`[player_cards] secret_file`): the registry holds its keyed hash only (table_runtime/staff/registry.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_runtime.config.reader import Reader

BADGE_SECONDS = 30.0


@dataclass(frozen=True, slots=True, kw_only=True)
class StaffConfig:
    """The staff registry's file (None: no registry) and how long a supervisor's badge swipe stands."""

    registry: Path | None = None
    badge_seconds: float = BADGE_SECONDS

    @property
    def enabled(self) -> bool:
        return self.registry is not None


def read_staff(reader: Reader, document: dict[str, Any]) -> StaffConfig:
    prefix = "staff"
    table = reader.table(document, prefix, "", allowed={"registry", "badge_seconds"})
    registry = reader.path(table, "registry", prefix, must_exist=False)
    seconds = reader.value(table, "badge_seconds", prefix, float, BADGE_SECONDS)
    if not 1.0 <= seconds <= 600.0:
        reader.problem("staff.badge_seconds", f"{seconds:g}: 1 to 600 seconds")
        seconds = BADGE_SECONDS
    return StaffConfig(registry=registry, badge_seconds=seconds)
