"""Snapshots of the lifetime meters (core/meters.py): when the table journals one, and what its `meters` row says.

A snapshot is a `meters` row (docs/journal.md "Rows"; a note, derived: no fold reads it) holding the meters as the
one fold made them at that row, so a gaming lab, the floor and `table-runtime meters --snapshots` read the figures
of a séance or a day without folding the journal again:

- `seance_closed`: in the transaction of the input that closed a séance (the closer counted), right after it;
- `day_end`: the gaming day ended (at `DAY_STARTS_HOUR_UTC`): journaled alone before the next day's first row, or
  at the next start when the table was off; the meters after the day's last input;
- `journal_closed`: the old journal's last row, written by a RAM clear (`table-runtime journal clear`);
- `journal_cleared`: the new journal's first row: who cleared it, the old journal's id and head, the meters it
  closed.

The gaming day runs from 06:00 UTC to 06:00 UTC the next morning (the floor's first shift, casino_floor/shifts.py):
a day is named by the date it starts on. Pure: no I/O, no clock (the shell passes the time in).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Any, Final

from table_runtime.game.events import Event, SeanceUpdated
from table_runtime.game.inputs import SCHEMA_VERSION

SNAPSHOT_TYPE: Final = "MetersSnapshot"
DAY_STARTS_HOUR_UTC: Final = 6  # the gaming day starts at 06:00 UTC, as the floor's first shift does


class SnapshotReason(enum.StrEnum):
    """Why the table journaled its meters."""

    SEANCE_CLOSED = "seance_closed"
    DAY_END = "day_end"
    JOURNAL_CLOSED = "journal_closed"
    JOURNAL_CLEARED = "journal_cleared"


DAY_SECONDS: Final = 86_400


def _day_number(ts: float) -> int:
    """The gaming day holding `ts`, as days since 1970-01-01 (the day's start 06:00 UTC)."""
    return int((ts - DAY_STARTS_HOUR_UTC * 3600) // DAY_SECONDS)


def _civil(days: int) -> tuple[int, int, int]:
    """The proleptic Gregorian (year, month, day) of `days` since 1970-01-01 (H. Hinnant's civil_from_days), so the
    core reads no calendar library."""
    z = days + 719_468
    era = z // 146_097
    day_of_era = z - era * 146_097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + 3 if shifted_month < 10 else shifted_month - 9
    return year_of_era + era * 400 + (month <= 2), month, day


def gaming_day(ts: float) -> str:
    """The gaming day holding `ts` (seconds since the epoch): the date (UTC) it started on, ``YYYY-MM-DD``."""
    year, month, day = _civil(_day_number(ts))
    return f"{year:04d}-{month:02d}-{day:02d}"


def day_ends(ts: float) -> float:
    """When the gaming day holding `ts` ends (the next one starts), in seconds since the epoch."""
    return float((_day_number(ts) + 1) * DAY_SECONDS + DAY_STARTS_HOUR_UTC * 3600)


def snapshot_body(meters: Mapping[str, Any], reason: SnapshotReason, *, day: str, **detail: Any) -> dict[str, Any]:
    """The body of a `meters` row: the meters' view (core/meters.py `Meters.view`), why, the gaming day, and what
    the reason adds (the séance's number; who cleared the journal and the old journal's id and head)."""
    return {"type": SNAPSHOT_TYPE, "reason": str(reason), "day": day, "meters": dict(meters),
            **{key: value for key, value in detail.items() if value is not None}, "schema_version": SCHEMA_VERSION}


def seances_closed(events: Iterable[Event]) -> list[int]:
    """The séances an input's `events` closed (each makes a `seance_closed` snapshot)."""
    return [event.seance for event in events if isinstance(event, SeanceUpdated) and event.action == "closed"]


class GamingDays:
    """Which gaming day the table's journal is in, and whether a time `now` is past its end (a `day_end` snapshot
    due for it). Started from the time of the journal's last row (None: a new journal, in no day yet)."""

    def __init__(self, last_ts: float | None) -> None:
        self.day = None if last_ts is None else gaming_day(last_ts)
        self.ends = None if last_ts is None else day_ends(last_ts)

    def ended(self, now: float) -> str | None:
        """The day that ended before `now` and has no snapshot yet (None: still the same day, or a new journal's
        first row, which only starts its day). A clock set back never ends a day."""
        if self.ends is None:
            self.day, self.ends = gaming_day(now), day_ends(now)
            return None
        if now < self.ends:
            return None
        return self.day

    def snapshotted(self, now: float) -> None:
        """The ended day's snapshot is journaled: the journal is in `now`'s day from here."""
        self.day, self.ends = gaming_day(now), day_ends(now)
