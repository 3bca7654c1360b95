"""The alarm board: alarms raised and not yet acknowledged; and which kinds only the supervisor acknowledges.

An alarm's id is the journal seq of the row that raised it, so the feed, the
display and recall all name it the same way, and the board rebuilds exactly
from the journal after a restart.
"""

from __future__ import annotations

from typing import Any

from table_runtime.core.commands import SUPERVISOR_ACK_KINDS, needs_supervisor

# Which kinds only the supervisor acknowledges is the command table's rule (core/commands.py); named here too
# for the board and for docs/alarms.md's check (tests/test_alarm_catalogue.py).
__all__ = ["SUPERVISOR_ACK_KINDS", "AlarmBoard", "needs_supervisor"]


class AlarmBoard:
    """Active alarms in the order raised; acknowledged ones leave the board (they stay in the journal)."""

    def __init__(self) -> None:
        self._active: dict[int, dict[str, Any]] = {}
        self.counts: dict[str, int] = {}

    def raised(self, alarm: dict[str, Any]) -> None:
        self._active[int(alarm["id"])] = alarm
        self.counts[alarm["kind"]] = self.counts.get(alarm["kind"], 0) + 1

    def renumbered(self, old_id: int, alarm: dict[str, Any]) -> None:
        """An alarm held in memory (a journal outage) got its journal seq as its id: the same alarm, renamed."""
        if self._active.pop(old_id, None) is not None:
            self._active[int(alarm["id"])] = alarm

    def cleared(self, alarm_id: int) -> bool:
        return self._active.pop(alarm_id, None) is not None

    def __contains__(self, alarm_id: int) -> bool:
        return alarm_id in self._active

    @property
    def active(self) -> list[dict[str, Any]]:
        return list(self._active.values())

    @property
    def shown(self) -> list[dict[str, Any]]:
        """The active alarms as the display shows them: each also says whether it needs the supervisor."""
        return [{**alarm, "supervisor": needs_supervisor(str(alarm["kind"]))} for alarm in self._active.values()]

    def get(self, alarm_id: int) -> dict[str, Any] | None:
        """The active alarm with this id, or None (never raised, or acknowledged already)."""
        return self._active.get(alarm_id)

    def active_of_kind(self, kind: str) -> list[int]:
        return [alarm_id for alarm_id, alarm in self._active.items() if alarm["kind"] == kind]
