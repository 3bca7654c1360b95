"""A step of the wall clock: the system time moved against the monotonic clock (an operator's `date -s`, NTP
stepping a clock it found far off, a bad time server). The journal stamps every row with the wall clock, so a
step is a significant event (core/significant_events.py), journaled as a ``ClockStepped`` status row naming the
step; a drift of NTP's slewing (at most 0.5 ms a second) never reaches the threshold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

STEP_S: Final = 2.0  # a change of wall - monotonic past this between two looks is a step


@dataclass
class ClockSteps:
    """Compares the two clocks at each look; `look` gives the step in seconds (+: the wall clock jumped ahead) once
    the offset moved past `threshold_s` since the last look, else None."""

    threshold_s: float = STEP_S
    _offset: float | None = None

    def look(self, wall: float, monotonic: float) -> float | None:
        offset, before = wall - monotonic, self._offset
        self._offset = offset
        if before is None or abs(offset - before) <= self.threshold_s:
            return None
        return offset - before
