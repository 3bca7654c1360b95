"""The table's terms as its journal holds them (core/terms.py): read by every reader, written by the one writer's
start, and the one constructor of the table a reader folds the rows into; and the record of a closed round.

A journal holds its terms as `terms` rows (docs/journal.md "The terms row"): the first row of a new journal, and
one more each time the zones or the house limits changed between two starts. A journal written before terms rows
kept them in its `meta` table only: the first start of this version on it checks them as before and writes them
as its terms row (after the rows written under them: they are the terms of every row before it too).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from table_runtime.core.journal_rows import TermsRow, row_to_json
from table_runtime.core.record import starting_core
from table_runtime.core.table_core import TableCore
from table_runtime.core.terms import TableTerms
from table_runtime.errors import ConfigError, JournalError, TableError
from table_runtime.game.inputs import SCHEMA_VERSION
from table_runtime.game.rules import TableLimits, rules_from_mapping
from table_runtime.game.snapshot import payout_dict
from table_runtime.game.table import Table
from table_runtime.journal import Checkpoint, Journal, JournalEntry
from table_runtime.journal.audit import ReadOnlyRows

__all__ = ["journal_terms", "round_record", "settle_terms", "table_core"]

META_TERMS = "terms"  # the meta key a journal written before terms rows kept its terms under


class TermsSource(Protocol):
    """What the terms are read from: a `Journal`, or the audit's read-only rows (journal/audit.py)."""

    @property
    def path(self) -> Path: ...

    def terms_entries(self) -> list[JournalEntry]: ...

    def get_meta(self, key: str) -> str | None: ...


def _meta_terms(journal: TermsSource) -> TableTerms | None:
    """The terms a journal written before terms rows kept in its meta (no zones: it did not keep them)."""
    stored = journal.get_meta(META_TERMS)
    if stored is None:
        return None
    try:
        terms = json.loads(stored)
        return TableTerms.of(str(terms["table_id"]), rules_from_mapping(terms["rules"]),
                             TableLimits(**terms["limits"]))
    except (ValueError, KeyError, TypeError, TableError) as error:
        raise JournalError(f"{journal.path}: the terms in its meta are unreadable: {error}") from error


def journal_terms(journal: TermsSource, at: int | None = None) -> TableTerms | None:
    """The terms of the journal's row `at` (None: of its last row): the last terms row at or before it, else its
    first terms row (the rows of an older journal before its first one were written under it), else the terms of
    a journal not yet started by this version (in its meta); None for a journal that holds none (a new one)."""
    rows = journal.terms_entries()
    if not rows:
        return _meta_terms(journal)
    chosen = rows[0]
    for entry in rows:
        if at is not None and entry.seq > at:
            break
        chosen = entry
    try:
        return TermsRow.from_json(chosen.body).terms
    except JournalError as error:
        raise JournalError(f"{journal.path}: row {chosen.seq}: {error}") from error


def file_terms(path: Path) -> TableTerms:
    """The terms of the journal file at `path` at its last row, read on a read-only connection of its own (the
    readers in processes of their own: the rating worker, the audit); a `JournalError` when it holds none."""
    rows = ReadOnlyRows(path)
    try:
        terms = journal_terms(rows)
    finally:
        rows.close()
    if terms is None:
        raise JournalError(f"{path}: the journal does not say which terms it was played under")
    return terms


def table_core(journal: TermsSource, checkpoint: Checkpoint | None = None, *, default: TableTerms | None = None
               ) -> TableCore:
    """The one constructor of the table a reader folds this journal's rows into: under the journal's own terms
    (at the checkpoint's row; `default`: those of a journal that holds none), fresh (`checkpoint` None: the fold
    starts at the first row) or as `checkpoint` left it. A `JournalError` for a journal with no terms or a
    checkpoint this program cannot read."""
    terms = journal_terms(journal, None if checkpoint is None else checkpoint.seq) or default
    if terms is None:
        raise JournalError(f"{journal.path}: the journal holds no terms (no table has started on it)")
    if checkpoint is None:
        return starting_core(terms)
    try:
        return starting_core(terms, checkpoint.state)
    except JournalError as error:
        raise JournalError(f"the checkpoint at row {checkpoint.seq} is unreadable: {error}") from error


def settle_terms(journal: Journal, configured: TableTerms, *, ts: float, by: str | None = None) -> TableTerms:
    """The one writer's start: the journal replays only under the terms it was written with. A new journal gets
    `configured` as its first row; one whose last terms are the same game gets a new terms row only if its zones or
    house limits changed; an older journal (terms in its meta) is checked as before, then gets its terms row.
    Other rules, limits or table id: a `ConfigError` (use a new data directory). `by`: who changed the
    configuration (an employee id), written into the terms row when one is written."""
    rows = journal.terms_entries()
    if rows:
        last = journal_terms(journal)
        assert last is not None
        if not last.same_game(configured):
            raise _other_terms(journal, json.dumps(rows[-1].body, sort_keys=True))
        if last == configured:
            return configured
    else:
        stored = journal.get_meta(META_TERMS)
        if stored is not None and not _same_terms(stored, configured):
            raise _other_terms(journal, stored)
    journal.append(*row_to_json(TermsRow(terms=configured, by=by)), ts=ts)
    return configured


def _other_terms(journal: Journal, stored: str) -> ConfigError:
    return ConfigError("rules", f"{journal.path} was written under other terms ({stored}); "
                                "use a new data directory for new rules, limits or table id")


def _legacy_limits(limits: TableLimits) -> dict[str, int]:
    """The limits as a journal's meta kept them: the hyper field's only where they differ from the default."""
    kept = {"min_bet_cents": limits.min_bet_cents, "max_bet_cents": limits.max_bet_cents}
    defaults = TableLimits()
    for key in ("hyper_min_bet_cents", "hyper_max_bet_cents"):
        if getattr(limits, key) != getattr(defaults, key):
            kept[key] = getattr(limits, key)
    return kept


def _same_terms(stored: str, configured: TableTerms) -> bool:
    """The terms in an older journal's meta, written by a version that may have known fewer rule options: the same
    game when every option it did not know is at its profile's value (a new option's default keeps the old game)."""
    try:
        old = json.loads(stored)
        old_rules = rules_from_mapping(old["rules"])
    except (ValueError, KeyError, TypeError, TableError):  # unreadable, or an option this version lacks
        return False
    return (old.get("table_id") == configured.table_id and old.get("limits") == _legacy_limits(configured.limits)
            and old_rules == configured.rules)


def round_record(table: Table, table_id: str, seq: int, *, started_seq: int,
                 alarms: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The `RoundRecord` of the round that closed at row `seq` (the feed's `rounds` message, recall's record);
    `alarms` are the round's alarms as the record lists them."""
    round_ = table.round
    assert round_ is not None
    return {
        "type": "RoundRecord", "schema_version": SCHEMA_VERSION, "seq": seq, "round": round_.number,
        "table_id": table_id, "shoe_id": table.shoe.shoe_id, "result": round_.phase,
        "started_seq": started_seq, "closed_seq": seq,
        "bank": [card.code for card in round_.bank.cards],
        "boxes": [{"box": box.number, "owner": box.bet.owner, "seated_cents": box.bet.seated_cents,
                   "behind": [{"owner": b.owner, "cents": b.cents} for b in box.bet.behind],
                   "hands": [[card.code for card in hand.cards] for hand in box.hands]}
                  for box in round_.boxes],
        "payouts": [payout_dict(payout) for payout in round_.payouts],
        "alarms": list(alarms),  # as the round's record lists them (core/alarm_ledger.py `as_recorded`)
    }
