"""Cards and rule options (docs/rules.md "Values", 'Rule profiles')."""

from __future__ import annotations

import pytest

from table_runtime.errors import CardCodeError, RuleOptionError
from table_runtime.game.cards import ALL_CARDS, Card, new_shoe
from table_runtime.game.rules import PROFILES, profile, rules_from_mapping


def test_card_values_follow_000_lines_6_to_8() -> None:
    assert Card.parse("AS").value == 1
    assert Card.parse("10h").value == 10
    assert Card.parse("KD").value == 10
    assert Card.parse("7c").value == 7
    assert Card.parse("QS") is Card.parse("qs")


@pytest.mark.parametrize("text", ["", "1S", "AX", "ASS", "11H"])
def test_bad_card_text_is_a_clear_error(text: str) -> None:
    with pytest.raises(CardCodeError):
        Card.parse(text)


def test_six_decks_hold_each_card_six_times() -> None:
    shoe = new_shoe(6)
    assert len(shoe) == 312
    assert {shoe.count(card) for card in ALL_CARDS} == {6}


def test_profiles_differ_as_the_rules_table_says() -> None:
    casino, classic, online = PROFILES["fr-casino"], PROFILES["fr-classic"], PROFILES["online"]
    assert (casino.double_on, classic.double_on, online.double_on) == ("any_two", "9_10_11", "any_two")
    assert (casino.split_match, classic.split_match) == ("value", "rank")
    assert (casino.max_hands_after_split, classic.max_hands_after_split, online.max_hands_after_split) == (
        None, 3, 2)
    assert classic.pay_blackjack_before_bank and not casino.pay_blackjack_before_bank
    assert (casino.min_boxes_to_deal, classic.min_boxes_to_deal) == (1, 2)
    assert online.ten_card_charlie and online.shuffle_every_round and online.burn_cards == 0


def test_overrides_and_errors_name_the_key() -> None:
    options = rules_from_mapping({"profile": "fr-classic", "dealer_hits_soft_17": True})
    assert options.dealer_hits_soft_17 and options.double_on == "9_10_11"
    assert rules_from_mapping({"max_hands_after_split": "unlimited"}).max_hands_after_split is None
    with pytest.raises(RuleOptionError, match=r"rules\.late_surrender"):
        rules_from_mapping({"late_surrender": True})
    with pytest.raises(RuleOptionError, match=r"rules\.max_boxes_per_player"):
        rules_from_mapping({"max_boxes_per_player": 8})
    with pytest.raises(RuleOptionError, match=r"rules\.hyper_blackjack"):
        rules_from_mapping({"hyper_blackjack": "yes"})
    with pytest.raises(RuleOptionError, match=r"rules\.double_on"):
        rules_from_mapping({"double_on": "any"})
    with pytest.raises(RuleOptionError, match=r"rules\.profile"):
        profile("vegas")


def test_fr_2020_is_fr_casino_with_the_amended_options_on() -> None:
    """The arrêté of 14 May 2007 as amended (55-4 1° and 6°, 6 May 2020): each option off by default, all on in
    fr-2020, and nothing else differs from fr-casino (docs/rules.md 'Profiles')."""
    casino, amended = PROFILES["fr-casino"], PROFILES["fr-2020"]
    added = {"surrender": True, "hyper_blackjack": True, "no_behind_while_seat_vacant": True,
             "max_boxes_per_player": 2}
    for key in added:
        assert getattr(casino, key) in (False, None)
    assert amended == casino.replace(profile="fr-2020", **added)
    assert rules_from_mapping({"profile": "fr-2020", "max_boxes_per_player": "unlimited"}).max_boxes_per_player is None
