"""The table's terms row goes out on `events` like every row, and its body is the contract's `TableTerms`."""

from __future__ import annotations

import json
from pathlib import Path

from table_runtime.core.row_kinds import RowKind
from table_runtime.core.terms import TableTerms
from table_runtime.feed.messages import Topics, messages_for_entry
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController

from .support import validators_by_topic


def test_the_terms_row_is_published_on_events_and_validates_against_the_schema(tmp_path: Path) -> None:
    rules = profile("fr-casino").replace(surrender=True, double_on="9_10_11")
    with Journal.open(journal_path(tmp_path)) as journal:
        TableController(table_id="T1", rules=rules, limits=TableLimits(min_bet_cents=1000), journal=journal,
                        clock=lambda: 1_800_000_000.0, zones=("box1", "box1.behind"))
        [terms] = journal.terms_entries()
        messages = messages_for_entry(Topics("casino", "T1"), terms, journal.journal_id)
    assert [message.topic for message in messages] == ["casino/tables/T1/events"]  # on no other topic
    payload = json.loads(messages[0].encode())
    validator = validators_by_topic()["events"]
    validator.validate(payload)
    assert (payload["kind"], payload["type"], payload["seq"]) == (RowKind.TERMS, "TableTerms", 1)
    assert TableTerms.from_json(payload["body"]) == TableTerms.of("T1", rules, TableLimits(min_bet_cents=1000),
                                                                  ("box1", "box1.behind"))
    without_zones = {key: value for key, value in payload["body"].items() if key != "zones"}
    assert not validator.is_valid({**payload, "body": without_zones})
