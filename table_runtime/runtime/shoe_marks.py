"""Which of the shoe's sequenced events the journal holds already: the shoe resends what it was not acknowledged
for, so after a crash between the commit and the ACK an event may come again (ack after commit, docs/journal.md).

The last row of each step of the shoe's events carries its `origin` (the shoe's boot id and the event's
sequence): an input row, or an alarm row for a step of alarms alone (a door opened, a jam). The one fold of the
journal keeps the last one in the table core's state (`TableCore.shoe_mark`, core/record.py; sealed in every
checkpoint, core/core_state.py): the link starts from it, then keeps it as its steps are committed.
"""

from __future__ import annotations

from typing import Any

from firmware_bridge.shoe.sequencing import sequence_distance


class ShoeMarks:
    """The shoe's boot whose events arrive now, and the (boot id, sequence) of the last one journaled."""

    def __init__(self, journaled: tuple[int, int] | None) -> None:
        self.boot_id: int | None = None
        self._journaled = journaled  # as the fold of the journal left it at the start

    def origin(self, sequence: int) -> dict[str, Any]:
        """The `origin` an input row of the event `sequence` carries."""
        return {"device": "shoe", "boot_id": self.boot_id, "sequence": sequence}

    def committed(self, sequence: int) -> None:
        """The event `sequence` of this boot is journaled."""
        if self.boot_id is not None:
            self._journaled = (self.boot_id, sequence)

    def journaled_already(self, sequence: int) -> bool:
        """True when the event `sequence` of this boot is at or before the last one journaled."""
        last = self._journaled
        return last is not None and last[0] == self.boot_id and sequence_distance(sequence, last[1]) <= 0
