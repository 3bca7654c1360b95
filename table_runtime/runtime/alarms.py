"""The alarm board: alarms raised and not yet acknowledged; and which kinds only the supervisor acknowledges.

An alarm's id is the journal seq of the row that raised it, so the feed, the
display and recall all name it the same way, and the board rebuilds exactly
from the journal after a restart.

A kind that comes in storms (AGGREGATED_KINDS) has at most one open alarm per
box: the next one of that kind and box updates it (`count`, the last message
and amounts; an `alarm_updated` journal row) instead of raising another, so ten
thousand junk tags are one alarm counting ten thousand.
"""

from __future__ import annotations

from typing import Any

from table_runtime.core.commands import SUPERVISOR_ACK_KINDS, needs_supervisor
from table_runtime.game.alarm_kinds import AGGREGATED_KINDS

# Which kinds only the supervisor acknowledges is the command table's rule (core/commands.py); named here too
# for the board and for docs/alarms.md's check (tests/test_alarm_catalogue.py).
__all__ = ["SUPERVISOR_ACK_KINDS", "AlarmBoard", "needs_supervisor"]

SHOWN_MAX = 100  # alarms the snapshot carries at most (the oldest first); `alarms_hidden` counts the rest


def storm_key(kind: str, box: int | None) -> tuple[str, int | None] | None:
    """What an alarm of `kind` on `box` is counted under, or None if it is always an alarm of its own."""
    return (kind, box) if kind in AGGREGATED_KINDS else None


class AlarmBoard:
    """Active alarms in the order raised; acknowledged ones leave the board (they stay in the journal)."""

    def __init__(self) -> None:
        self._active: dict[int, dict[str, Any]] = {}
        self._open: dict[tuple[str, int | None], int] = {}  # storm key -> id of the open alarm counting it
        self.counts: dict[str, int] = {}

    def raised(self, alarm: dict[str, Any]) -> None:
        self._active[int(alarm["id"])] = alarm
        self.counts[alarm["kind"]] = self.counts.get(alarm["kind"], 0) + 1
        key = storm_key(str(alarm["kind"]), alarm.get("box"))
        if key is not None:
            self._open.setdefault(key, int(alarm["id"]))

    def updated(self, update: dict[str, Any]) -> None:
        """An `AlarmUpdated` row: the open alarm's count, last message and amounts."""
        alarm = self._active.get(int(update["id"]))
        if alarm is not None:
            added = int(update["count"]) - int(alarm.get("count", 1))
            self.counts[alarm["kind"]] = self.counts.get(alarm["kind"], 0) + added
            alarm.update(count=update["count"], message=update["message"], amounts=update["amounts"])

    def counting(self, kind: str, box: int | None) -> dict[str, Any] | None:
        """The open alarm a new alarm of `kind` on `box` would update instead of being raised, if any."""
        key = storm_key(kind, box)
        alarm_id = None if key is None else self._open.get(key)
        return None if alarm_id is None else self._active.get(alarm_id)

    def renumbered(self, old_id: int, alarm: dict[str, Any]) -> None:
        """An alarm held in memory (a journal outage) got its journal seq as its id: the same alarm, renamed."""
        if self._active.pop(old_id, None) is not None:
            self._active[int(alarm["id"])] = alarm
            key = storm_key(str(alarm["kind"]), alarm.get("box"))
            if key is not None and self._open.get(key) == old_id:
                self._open[key] = int(alarm["id"])

    def cleared(self, alarm_id: int) -> bool:
        alarm = self._active.pop(alarm_id, None)
        if alarm is None:
            return False
        key = storm_key(str(alarm["kind"]), alarm.get("box"))
        if key is not None and self._open.get(key) == alarm_id:
            del self._open[key]
        return True

    def __contains__(self, alarm_id: int) -> bool:
        return alarm_id in self._active

    @property
    def active(self) -> list[dict[str, Any]]:
        return list(self._active.values())

    @property
    def shown(self) -> list[dict[str, Any]]:
        """The active alarms as the display shows them (at most SHOWN_MAX, the oldest): each also says whether
        it needs the supervisor."""
        shown: list[dict[str, Any]] = []
        for alarm in self._active.values():
            if len(shown) == SHOWN_MAX:
                break
            shown.append({**alarm, "supervisor": needs_supervisor(str(alarm["kind"]))})
        return shown

    @property
    def hidden(self) -> int:
        """Active alarms the snapshot leaves out (over SHOWN_MAX)."""
        return max(0, len(self._active) - SHOWN_MAX)

    def get(self, alarm_id: int) -> dict[str, Any] | None:
        """The active alarm with this id, or None (never raised, or acknowledged already)."""
        return self._active.get(alarm_id)

    def active_of_kind(self, kind: str) -> list[int]:
        return [alarm_id for alarm_id, alarm in self._active.items() if alarm["kind"] == kind]
