"""Shifts: the hours (UTC) at which a floor shift starts, and the shift a moment belongs to (pure)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from table_runtime.errors import ConfigError

DEFAULT_STARTS: tuple[int, ...] = (6, 14, 22)


@dataclass(frozen=True, slots=True)
class Shifts:
    """Shift start hours in UTC, e.g. (6, 14, 22); a shift is named by its start: ``2026-12-01T06``."""

    starts: tuple[int, ...] = DEFAULT_STARTS

    def __post_init__(self) -> None:
        if not self.starts or any(isinstance(h, bool) or not isinstance(h, int) or not 0 <= h < 24
                                  for h in self.starts):
            raise ConfigError("shifts.starts", "a list of hours 0..23 (UTC)")
        if list(self.starts) != sorted(set(self.starts)):
            raise ConfigError("shifts.starts", "hours in increasing order, each once")

    def start_of(self, ts: float) -> dt.datetime:
        """When the shift holding `ts` (seconds since the epoch) began."""
        moment = dt.datetime.fromtimestamp(ts, dt.UTC)
        day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
        earlier = [hour for hour in self.starts if hour <= moment.hour]
        if earlier:
            return day.replace(hour=earlier[-1])
        return (day - dt.timedelta(days=1)).replace(hour=self.starts[-1])

    def name_of(self, ts: float) -> str:
        return shift_name(self.start_of(ts))

    def bounds(self, name: str) -> tuple[float, float]:
        """[start, end) in seconds since the epoch of the shift called `name` (``YYYY-MM-DDTHH``)."""
        try:
            start = dt.datetime.strptime(name, "%Y-%m-%dT%H").replace(tzinfo=dt.UTC)
        except ValueError as error:
            raise ConfigError("shift", f"{name!r}: a shift is named YYYY-MM-DDTHH (UTC start hour)") from error
        if start.hour not in self.starts:
            raise ConfigError("shift", f"{name!r}: no shift starts at {start.hour:02d}:00 UTC "
                                       f"(starts: {', '.join(f'{h:02d}' for h in self.starts)})")
        index = self.starts.index(start.hour)
        if index + 1 < len(self.starts):
            end = start.replace(hour=self.starts[index + 1])
        else:
            end = (start + dt.timedelta(days=1)).replace(hour=self.starts[0])
        return start.timestamp(), end.timestamp()


def shift_name(start: dt.datetime) -> str:
    return start.strftime("%Y-%m-%dT%H")
