"""The rule options that name a choice (`double_on`, `split_match`, `bank_blackjack_takes`) are enums, and every
text users read or the journal keeps still says the plain strings it said before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_runtime.errors import RuleOptionError
from table_runtime.game.rules import (
    PROFILES,
    BankBlackjackTakes,
    DoubleOn,
    SplitMatch,
    TableLimits,
    load_rules,
    profile,
    rules_from_mapping,
)
from table_runtime.journal import Journal, encode_body, journal_path
from table_runtime.runtime.controller import TableController


def test_a_toml_value_becomes_its_member_and_a_bad_one_names_the_key_and_the_choices(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text('[rules]\nprofile = "fr-casino"\ndouble_on = "9_10_11"\nsplit_match = "rank"\n'
                    'bank_blackjack_takes = "original_only"\n', encoding="utf-8")
    options = load_rules(path)
    assert options.double_on is DoubleOn.NINE_TEN_ELEVEN
    assert options.split_match is SplitMatch.RANK
    assert options.bank_blackjack_takes is BankBlackjackTakes.ORIGINAL_ONLY
    assert options == profile("fr-casino").replace(double_on=DoubleOn.NINE_TEN_ELEVEN, split_match="rank",
                                                   bank_blackjack_takes=BankBlackjackTakes.ORIGINAL_ONLY)
    with pytest.raises(RuleOptionError) as bad:
        rules_from_mapping({"split_match": "suit"})
    assert bad.value.key == "rules.split_match"
    assert "'suit' is not one of ('value', 'rank')" in str(bad.value)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_to_dict_gives_plain_strings_as_the_rules_command_prints_them(name: str) -> None:
    options = profile(name).to_dict()
    for key in ("double_on", "split_match", "bank_blackjack_takes"):
        assert type(options[key]) is str
    text = json.dumps(options, indent=2)
    assert f'"double_on": "{profile(name).double_on.value}"' in text


def test_a_journal_keeps_its_terms_as_the_strings_and_restarts_under_them(tmp_path: Path) -> None:
    rules = profile("fr-classic")
    for _ in range(2):  # the second start compares the stored terms with the ones it runs under
        with Journal.open(journal_path(tmp_path)) as journal:
            TableController(table_id="T1", rules=rules, limits=TableLimits(), journal=journal, clock=lambda: 1.0)
    with Journal.open(journal_path(tmp_path)) as journal:
        [terms] = journal.terms_entries()  # the journal's terms row (docs/journal.md "The terms row"), once
    stored = encode_body(terms.body)
    assert '"double_on":"9_10_11"' in stored and '"split_match":"rank"' in stored
    assert '"bank_blackjack_takes":"all"' in stored
