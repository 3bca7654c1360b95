"""The terms a journal was written under (table id, rules, limits), kept beside it so it replays only under them,
and the record of a closed round built from the table."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from table_runtime.errors import ConfigError, TableError
from table_runtime.game.inputs import SCHEMA_VERSION
from table_runtime.game.rules import RuleOptions, TableLimits, rules_from_mapping
from table_runtime.game.snapshot import payout_dict
from table_runtime.game.table import Table
from table_runtime.journal import Journal


def stored_terms(journal: Journal) -> tuple[str, RuleOptions, TableLimits] | None:
    """The table id, rules and limits a journal was written under (None for a new journal)."""
    stored = journal.get_meta("terms")
    if stored is None:
        return None
    terms = json.loads(stored)
    return (terms["table_id"], RuleOptions.from_dict(terms["rules"]), TableLimits(**terms["limits"]))


def _limits_dict(limits: TableLimits) -> dict[str, int]:
    """The limits as the terms keep them: the hyper field's only where they differ from the default, so the
    terms of a journal written before they existed stay the same."""
    kept = {"min_bet_cents": limits.min_bet_cents, "max_bet_cents": limits.max_bet_cents}
    defaults = TableLimits()
    for key in ("hyper_min_bet_cents", "hyper_max_bet_cents"):
        if getattr(limits, key) != getattr(defaults, key):
            kept[key] = getattr(limits, key)
    return kept


def check_terms(journal: Journal, table_id: str, rules: RuleOptions, limits: TableLimits) -> None:
    """The journal replays only under the rules it was written with: keep them beside it."""
    terms = json.dumps({"table_id": table_id, "rules": rules.to_dict(), "limits": _limits_dict(limits)},
                       sort_keys=True)
    stored = journal.get_meta("terms")
    if stored is None:
        journal.set_meta("terms", terms)
    elif stored != terms and not _same_terms(stored, table_id, rules, limits):
        raise ConfigError("rules", f"{journal.path} was written under other terms ({stored}); "
                          "use a new data directory for new rules, limits or table id")


def _same_terms(stored: str, table_id: str, rules: RuleOptions, limits: TableLimits) -> bool:
    """Terms written by an earlier version, which knew fewer rule options: the same game when every option
    it did not know is at its profile's value (a new option's default keeps the old game)."""
    try:
        old = json.loads(stored)
        old_rules = rules_from_mapping(old["rules"])
    except (ValueError, KeyError, TypeError, TableError):  # unreadable, or an option this version lacks
        return False
    return old.get("table_id") == table_id and old.get("limits") == _limits_dict(limits) and old_rules == rules


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
