"""The table's terms: what its journal's rows mean (the table id, the rule options, the limits, the chip zones).

A journal is a game only under the terms it was written with: the same cards and bets under other rules are
another round. So the terms travel with the rows, as a `terms` row of their own (core/journal_rows.py
`TermsRow`; docs/journal.md "The terms row"): the first row of a journal, and a new one when what may change
between two starts changes (the chip zones, the largest buy-in). Every reader builds the table it folds into
from that row (core/record.py `starting_core`), never from its own configuration: the start, recall, the
rated sessions, the feed, the floor and the bench fold the same rows into the same table.

`same_game` is what may not change in one journal: the table id, the rules and the posted limits (a change
there is refused at the start, runtime/terms.py). Pure: no I/O, no clock.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from table_runtime.errors import JournalError, TableError
from table_runtime.game.inputs import SCHEMA_VERSION
from table_runtime.game.rules import RuleOptions, TableLimits, rules_from_mapping

TERMS_TYPE: Final = "TableTerms"  # the body `type` of a `terms` row

# The limits that are terms of the game (the posted minimum and maximum, per box and per hyper case); the largest
# buy-in is a house setting the table may change between two starts (a new terms row).
GAME_LIMITS: Final = ("min_bet_cents", "max_bet_cents", "hyper_min_bet_cents", "hyper_max_bet_cents")


def limits_dict(limits: TableLimits) -> dict[str, int]:
    """Every limit, by name (the terms row's `limits`)."""
    return dataclasses.asdict(limits)


@dataclass(frozen=True, slots=True, kw_only=True)
class TableTerms:
    """The terms one journal's rows were written under: `table_id`, `rules`, `limits` and the chip `zones` the
    readers report (none: no chip watch)."""

    table_id: str
    rules: RuleOptions
    limits: TableLimits = dataclasses.field(default_factory=TableLimits)
    zones: tuple[str, ...] = ()
    staff: bool = False  # a staff registry rules the table: a dealer logged in to deal (core/shift.py)

    @classmethod
    def of(cls, table_id: str, rules: RuleOptions, limits: TableLimits | None = None,
           zones: Iterable[str] = (), *, staff: bool = False) -> TableTerms:
        return cls(table_id=table_id, rules=rules, limits=limits or TableLimits(), zones=tuple(zones), staff=staff)

    def same_game(self, other: TableTerms) -> bool:
        """Whether rows written under `other` are the same game as under these terms: the same table, rules and
        posted limits (the zones, the largest buy-in and the staff registry may differ)."""
        return (self.table_id == other.table_id and self.rules == other.rules
                and all(getattr(self.limits, key) == getattr(other.limits, key) for key in GAME_LIMITS))

    def to_json(self) -> dict[str, Any]:
        """The `terms` row's body."""
        return {"type": TERMS_TYPE, "schema_version": SCHEMA_VERSION, "table_id": self.table_id,
                "rules": self.rules.to_dict(), "limits": limits_dict(self.limits), "zones": list(self.zones),
                **({"staff": True} if self.staff else {})}  # absent in the terms rows written before it

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> TableTerms:
        """The terms a `terms` row's body holds; a `JournalError` naming what is wrong with one that is not."""
        try:
            if body.get("type") != TERMS_TYPE:
                raise ValueError(f"type {body.get('type')!r}, not {TERMS_TYPE!r}")
            rules = rules_from_mapping(dict(body["rules"]))  # an option a row lacks: its profile's value
            limits = TableLimits(**{str(key): int(value) for key, value in dict(body["limits"]).items()})
            zones = tuple(str(zone) for zone in body.get("zones", ()))
            return cls(table_id=str(body["table_id"]), rules=rules, limits=limits, zones=zones,
                       staff=body.get("staff", False) is True)
        except (KeyError, TypeError, ValueError, TableError) as error:
            raise JournalError(f"the table's terms are unreadable: {error}") from error
