"""The table's terms travel with its journal: a `terms` row (table id, rule options, limits, zones) that every reader
builds its table from, and an older journal (terms in its meta only) migrated on its first start.

A restart with other rules, limits or table id is refused (the replay would be another game); one with other zones
writes a new terms row that the fold follows; a journal written before terms rows (tests/table_runtime/
journal_before_terms.json: written by the table before this change, terms in meta, checkpoints) gets its meta
terms as a terms row on its first start and replays to the very state the table it was written by replayed it to.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from simulators.fast_table import FastTable
from table_runtime.core.core_state import checkpoint_state
from table_runtime.core.record import fold_row
from table_runtime.core.row_kinds import RowKind
from table_runtime.core.terms import TableTerms
from table_runtime.errors import ConfigError, JournalError
from table_runtime.game.rules import RuleOptions, TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.checkpointing import rebuild
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds
from table_runtime.runtime.terms import journal_terms, table_core

BEFORE_TERMS = Path(__file__).with_name("journal_before_terms.json")
OLD_RULES = profile("fr-casino").replace(surrender=True)  # the terms that journal was written under
OLD_LIMITS = TableLimits(min_bet_cents=500, max_bet_cents=200_000)


def start(tmp_path: Path, rules: RuleOptions, limits: TableLimits | None = None, table_id: str = "T1",
          zones: tuple[str, ...] = ()) -> TableController:
    with Journal.open(journal_path(tmp_path)) as journal:
        return TableController(table_id=table_id, rules=rules, limits=limits or TableLimits(), journal=journal,
                               clock=lambda: 1.0, zones=zones)


def terms_rows(tmp_path: Path) -> list[tuple[int, dict[str, Any]]]:
    with Journal.open(journal_path(tmp_path)) as journal:
        return [(entry.seq, entry.body) for entry in journal.entries(kinds=(RowKind.TERMS,))]


def test_a_new_journal_begins_with_its_terms_and_a_restart_under_them_writes_no_other(tmp_path: Path) -> None:
    rules = profile("fr-classic").replace(surrender=True)
    start(tmp_path, rules, TableLimits(min_bet_cents=1000), zones=("box1", "box2"))
    start(tmp_path, rules, TableLimits(min_bet_cents=1000), zones=("box1", "box2"))  # a restart
    [(seq, body)] = terms_rows(tmp_path)
    assert seq == 1  # before the `Started` row
    assert TableTerms.from_json(body) == TableTerms.of("T1", rules, TableLimits(min_bet_cents=1000), ("box1", "box2"))
    assert body["rules"]["surrender"] is True and body["zones"] == ["box1", "box2"]
    with Journal.open(journal_path(tmp_path)) as journal:
        assert journal.get_meta("terms") is None  # the row is where the terms are now
        assert journal.verify().ok


def test_the_same_terms_restart_and_other_terms_are_refused(tmp_path: Path) -> None:
    rules = profile("fr-casino")
    start(tmp_path, rules)
    for other in ({"rules": rules.replace(double_on="9_10_11")}, {"rules": rules, "table_id": "T2"},
                  {"rules": rules, "limits": TableLimits(min_bet_cents=1000)},
                  {"rules": rules, "limits": TableLimits(hyper_max_bet_cents=60_000)}):
        with pytest.raises(ConfigError) as refused:
            start(tmp_path, **other)
        assert refused.value.key == "rules" and "other terms" in refused.value.message
    assert len(terms_rows(tmp_path)) == 1  # nothing written by a refused start


def test_other_zones_or_buy_in_maximum_are_a_new_terms_row_that_every_reader_folds(tmp_path: Path) -> None:
    rules = profile("fr-casino")
    start(tmp_path, rules, zones=("box1",))
    start(tmp_path, rules, TableLimits(buy_in_max_cents=50_000), zones=("box1", "box2"))
    (first, _), (second, body) = terms_rows(tmp_path)
    assert first == 1 and second > first and body["zones"] == ["box1", "box2"]
    with Journal.open(journal_path(tmp_path)) as journal:
        at_first = journal_terms(journal, at=first)
        assert at_first is not None and at_first.zones == ("box1",)
        core = rebuild(journal, None)  # from the first row: the zones of the second terms row from there on
        assert core.chips.zones == ("box1", "box2") and core.table.limits.buy_in_max_cents == 50_000
    with pytest.raises(JournalError):  # a terms row that changes the game is not folded into the table
        fold_row(core, 99, RowKind.TERMS, TableTerms.of("T1", rules.replace(surrender=True)).to_json())


def load_before_terms(tmp_path: Path, *, meta: dict[str, str] | None = None) -> dict[str, Any]:
    """tests/table_runtime/journal_before_terms.json as the file the table before terms rows wrote: its rows, its
    meta (its id and terms), its checkpoints, and no terms index."""
    fixture: dict[str, Any] = json.loads(BEFORE_TERMS.read_text())
    path = journal_path(tmp_path)
    Journal.open(path).close()  # the schema
    with sqlite3.connect(path) as db:
        db.execute("DROP INDEX entries_terms")
        db.execute("DELETE FROM meta")
        db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", (meta or fixture["meta"]).items())
        db.executemany("INSERT INTO entries (seq, ts, kind, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)",
                       fixture["rows"])
        db.execute("UPDATE head SET seq = ?, hash = ? WHERE id = 1", (fixture["rows"][-1][0], fixture["rows"][-1][5]))
        db.executemany("INSERT INTO checkpoints (seq, chain_hash, state, seal) VALUES (?, ?, ?, ?)",
                       fixture["checkpoints"])
    return fixture


def without_meters(state: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint's state as a program before the lifetime meters sealed it."""
    return {**state, "core": {key: value for key, value in state["core"].items() if key != "meters"}}


def test_a_journal_written_before_terms_rows_migrates_on_its_first_start_and_replays_unchanged(tmp_path: Path) -> None:
    fixture = load_before_terms(tmp_path)
    last_old = fixture["rows"][-1][0]
    with Journal.open(journal_path(tmp_path)) as journal:  # a reader before the table's start: its meta terms
        assert journal_terms(journal) == TableTerms.of("T9", OLD_RULES, OLD_LIMITS)
        before = recall_rounds(journal, last=5)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T9", rules=OLD_RULES, limits=OLD_LIMITS, journal=journal,
                                     clock=lambda: 1_800_000_000.0, checkpoint_rows=40)
        # what the table before it replayed; its meters (core/meters.py) came later: counted from its checkpoint
        assert without_meters(checkpoint_state(controller.core)) == fixture["replayed"]
        assert controller.core.meters.complete is False
        assert controller.snapshot()["alarms"] == fixture["snapshot"]["alarms"]
        [terms] = journal.terms_entries()
        assert terms.seq == last_old + 1  # after the rows written under it: the terms of every row before it too
        assert TableTerms.from_json(terms.body) == TableTerms.of("T9", OLD_RULES, OLD_LIMITS)
        from_first = rebuild(journal, None)  # the one constructor, from the first row: the migrated terms
        assert without_meters(checkpoint_state(from_first)) == without_meters(checkpoint_state(controller.core))
        counted = controller.core.meters.table["rounds"]
        assert from_first.meters.complete and from_first.meters.table["rounds"] >= counted
        assert recall_rounds(journal, last=5) == before
        FastTable(controller, seed=3, error_rate=0.1).run(3)  # plays on
        assert journal.verify().ok
    with Journal.open(journal_path(tmp_path)) as journal:
        TableController(table_id="T9", rules=OLD_RULES, limits=OLD_LIMITS, journal=journal, clock=lambda: 2e9)
        assert len(journal.terms_entries()) == 1  # migrated once
        assert table_core(journal, journal.checkpoint_before(10**9)).table.rules == OLD_RULES


def test_an_older_journal_under_other_terms_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    fixture = load_before_terms(tmp_path)
    for rules, limits in ((OLD_RULES.replace(surrender=False), OLD_LIMITS), (OLD_RULES, TableLimits())):
        with Journal.open(journal_path(tmp_path)) as journal, pytest.raises(ConfigError) as refused:
            TableController(table_id="T9", rules=rules, limits=limits, journal=journal, clock=lambda: 2e9)
        assert "other terms" in refused.value.message
    with Journal.open(journal_path(tmp_path)) as journal:
        assert journal.last_seq == fixture["rows"][-1][0] and not journal.terms_entries()


def _meta_without(fixture_meta: dict[str, str], drop: str = "", add: dict[str, Any] | None = None) -> dict[str, str]:
    terms = json.loads(fixture_meta["terms"])
    terms["rules"].pop(drop, None)
    terms["rules"].update(add or {})
    return {**fixture_meta, "terms": json.dumps(terms, sort_keys=True)}


def test_a_journal_of_an_earlier_version_that_lacked_an_option_still_replays(tmp_path: Path) -> None:
    meta = json.loads(BEFORE_TERMS.read_text())["meta"]
    load_before_terms(tmp_path, meta=_meta_without(meta, drop="ten_card_charlie"))  # written before the option
    with Journal.open(journal_path(tmp_path)) as journal, pytest.raises(ConfigError):
        TableController(table_id="T9", rules=OLD_RULES.replace(ten_card_charlie=True), limits=OLD_LIMITS,
                        journal=journal, clock=lambda: 2e9)  # not under another value of it
    with Journal.open(journal_path(tmp_path)) as journal:  # the option's profile value (off) is the game it was
        TableController(table_id="T9", rules=OLD_RULES, limits=OLD_LIMITS, journal=journal, clock=lambda: 2e9)
        [terms] = journal.terms_entries()
        assert TableTerms.from_json(terms.body).rules == OLD_RULES  # the row names every option


def test_a_journal_with_an_option_this_version_does_not_know_is_refused(tmp_path: Path) -> None:
    meta = json.loads(BEFORE_TERMS.read_text())["meta"]
    load_before_terms(tmp_path, meta=_meta_without(meta, add={"five_card_charlie": True}))
    with Journal.open(journal_path(tmp_path)) as journal, pytest.raises(ConfigError):
        TableController(table_id="T9", rules=OLD_RULES, limits=OLD_LIMITS, journal=journal, clock=lambda: 2e9)
    rules = profile("fr-casino").to_dict() | {"five_card_charlie": True}
    with pytest.raises(JournalError):  # nor in a terms row
        TableTerms.from_json({**TableTerms.of("T1", profile("fr-casino")).to_json(), "rules": rules})
