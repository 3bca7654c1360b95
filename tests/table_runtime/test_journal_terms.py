"""A journal replays only under the terms it was written with (table id, rule options, limits): the same game.

A restart with other rules is refused (the replay would be another game); a journal written by an earlier
version, which knew fewer rule options, still replays when each option it did not know is at its profile's
value (docs/journal.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_runtime.errors import ConfigError
from table_runtime.game.rules import RuleOptions, TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController


def start(tmp_path: Path, rules: RuleOptions, limits: TableLimits | None = None, table_id: str = "T1") -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        TableController(table_id=table_id, rules=rules, limits=limits or TableLimits(), journal=journal,
                        clock=lambda: 1.0)


def rewrite_terms(tmp_path: Path, change: dict[str, object], drop: str = "") -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        stored = journal.get_meta("terms")
        assert stored is not None
        terms = json.loads(stored)
        terms["rules"].update(change)
        terms["rules"].pop(drop, None)
        journal.set_meta("terms", json.dumps(terms, sort_keys=True))


def test_the_same_terms_restart_and_other_terms_are_refused(tmp_path: Path) -> None:
    rules = profile("fr-casino")
    start(tmp_path, rules)
    start(tmp_path, rules)  # a restart
    for other in ({"rules": rules.replace(double_on="9_10_11")}, {"rules": rules, "table_id": "T2"},
                  {"rules": rules, "limits": TableLimits(min_bet_cents=1000)}):
        with pytest.raises(ConfigError) as refused:
            start(tmp_path, **other)
        assert refused.value.key == "rules" and "other terms" in refused.value.message


def test_a_journal_of_an_earlier_version_that_lacked_an_option_still_replays(tmp_path: Path) -> None:
    rules = profile("fr-casino")
    start(tmp_path, rules)
    rewrite_terms(tmp_path, {}, drop="ten_card_charlie")  # written before the option existed
    start(tmp_path, rules)  # the option's profile value (off) is the game it was: replays
    with pytest.raises(ConfigError):
        start(tmp_path, rules.replace(ten_card_charlie=True))  # but not under another value of it


def test_a_journal_with_an_option_this_version_does_not_know_is_refused(tmp_path: Path) -> None:
    rules = profile("fr-casino")
    start(tmp_path, rules)
    rewrite_terms(tmp_path, {"five_card_charlie": True})
    with pytest.raises(ConfigError):
        start(tmp_path, rules)
