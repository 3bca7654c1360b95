"""Which of the shoe's sequenced events the journal holds already: the shoe resends what it was not acknowledged
for, so after a crash between the commit and the ACK an event may come again (ack after commit, docs/journal.md).

The last row of each step of the shoe's events carries its `origin` (the shoe's boot id and the event's
sequence): an input row, or an alarm row for a step of alarms alone (a door opened, a jam). The last one is
read from the journal once, then kept as rows are committed.
"""

from __future__ import annotations

from typing import Any

from firmware_bridge.shoe.sequencing import sequence_distance
from table_runtime.core.row_kinds import ORIGIN_KINDS
from table_runtime.journal import Journal


class ShoeMarks:
    """The shoe's boot whose events arrive now, and the (boot id, sequence) of the last one journaled."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self.boot_id: int | None = None
        self._journaled: tuple[int, int] | None = None
        self._read = False

    def origin(self, sequence: int) -> dict[str, Any]:
        """The `origin` an input row of the event `sequence` carries."""
        return {"device": "shoe", "boot_id": self.boot_id, "sequence": sequence}

    def committed(self, sequence: int) -> None:
        """The event `sequence` of this boot is journaled."""
        if self.boot_id is not None:
            self._journaled = (self.boot_id, sequence)

    def read(self) -> None:
        """Read the last journaled event from the journal (once; `journaled_already` does it if not done)."""
        if self._read:
            return
        self._read = True
        found = [entry for kind in ORIGIN_KINDS if (entry := self._journal.last_entry_with(kind, "origin"))]
        entry = max(found, key=lambda row: row.seq, default=None)
        origin = entry.body["origin"] if entry is not None else None
        if isinstance(origin, dict) and origin.get("device") == "shoe" and origin.get("boot_id") is not None:
            self._journaled = (int(origin["boot_id"]), int(origin["sequence"]))

    def journaled_already(self, sequence: int) -> bool:
        """True when the event `sequence` of this boot is at or before the last one journaled."""
        self.read()
        last = self._journaled
        return last is not None and last[0] == self.boot_id and sequence_distance(sequence, last[1]) <= 0
