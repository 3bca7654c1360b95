"""The kinds of journal row, named once (docs/journal.md "Rows"): a `StrEnum`, so rows keep their plain strings."""

from __future__ import annotations

import enum
from typing import Final


class RowKind(enum.StrEnum):
    """What a journal row holds."""

    INPUT = "input"  # a device reading or a command that reached the table core
    EVENT = "event"  # what an input did (made again by every replay)
    ALARM = "alarm"  # an alarm raised; its id is the row's seq
    ALARM_UPDATED = "alarm_updated"  # one more count on an open alarm of a storm kind
    ALARM_CLEARED = "alarm_cleared"  # an alarm taken off the banner
    ROUND = "round"  # the record of a round that closed or was voided
    STATUS = "status"  # the runtime's life: started, recovered, devices, clock, the end of an outage
    TERMS = "terms"  # the table's terms: its id, rules, limits and zones (core/terms.py), what the rows mean
    RATING = "rating"  # a `ratings` message the rating fold made of the rows before it (runtime/rating_watch.py)
    VERIFICATION = "verification"  # a check of the installed program against its signed manifest (program_watch.py)
    METERS = "meters"  # a snapshot of the lifetime meters: a séance closed, a day ended, a RAM clear (meters_snapshots)


STATE_KINDS: Final = frozenset({RowKind.INPUT, RowKind.ALARM, RowKind.ALARM_UPDATED, RowKind.ALARM_CLEARED,
                                RowKind.TERMS})
"""The rows that change the table's state (core/record.py folds them)."""
DERIVED_KINDS: Final = frozenset({RowKind.EVENT, RowKind.ROUND, RowKind.STATUS, RowKind.RATING,
                                  RowKind.VERIFICATION, RowKind.METERS})
"""The rows that follow from the others, or only note the table's life: a replay need not read them."""
