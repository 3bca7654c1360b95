"""The alarm board: alarms raised and not yet acknowledged; and which kinds only the supervisor acknowledges.

An alarm's id is the journal seq of the row that raised it, so the feed, the
display and recall all name it the same way, and the board rebuilds exactly
from the journal after a restart.
"""

from __future__ import annotations

from typing import Any

# The alarms that exist to catch the dealer (or a device or chip the dealer could exploit): only the pit
# supervisor, with the supervisor PIN, takes them off the banner. docs/alarms.md marks the same kinds
# (tests/test_alarm_catalogue.py checks the two agree).
SUPERVISOR_ACK_KINDS: frozenset[str] = frozenset({
    "past_posting", "wrong_payout", "wrong_window_amount",
    "counterfeit_chip", "stolen_chip", "void_chip", "other_casino_chip", "tag_mismatch",
    "card_overcount", "shoe_count_mismatch", "missed_cards", "shoe_door_open",
    "supervisor_pin_locked", "chip_watch_suspended", "registry_unreadable",
})


def needs_supervisor(kind: str) -> bool:
    """Whether an alarm of this kind is acknowledged only by the supervisor (not by the dealer alone)."""
    return kind in SUPERVISOR_ACK_KINDS


class AlarmBoard:
    """Active alarms in the order raised; acknowledged ones leave the board (they stay in the journal)."""

    def __init__(self) -> None:
        self._active: dict[int, dict[str, Any]] = {}
        self.counts: dict[str, int] = {}

    def raised(self, alarm: dict[str, Any]) -> None:
        self._active[int(alarm["id"])] = alarm
        self.counts[alarm["kind"]] = self.counts.get(alarm["kind"], 0) + 1

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
