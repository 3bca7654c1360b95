"""The hyper black jack cases (55-4 6°): the bank's final result names one case, and the odds pay it."""

from __future__ import annotations

import pytest

from table_runtime.game.cards import parse_cards
from table_runtime.game.hyper import HYPER_ODDS, HyperCase, bank_final_result, hyper_net_cents


@pytest.mark.parametrize(("cards", "case"), [
    ("TS 7H", HyperCase.SEVENTEEN), ("AS 6H", HyperCase.SEVENTEEN), ("9S 9H", HyperCase.EIGHTEEN),
    ("5S 4H TD", HyperCase.NINETEEN), ("KS QH", HyperCase.TWENTY), ("7S 7H 7D", HyperCase.TWENTY_ONE),
    ("AS KH", HyperCase.BLACKJACK), ("KH AS", HyperCase.BLACKJACK), ("5S 6H TD", HyperCase.TWENTY_ONE),
    ("TS 6H 9D", HyperCase.BUST),
])
def test_the_bank_final_result_names_one_case_55_4_6(cards: str, case: HyperCase) -> None:
    assert bank_final_result(parse_cards(cards)) is case


@pytest.mark.parametrize("cards", ["TS 6H", "AS 5H", "TS"])
def test_a_bank_under_17_has_no_final_result(cards: str) -> None:
    assert bank_final_result(parse_cards(cards)) is None


def test_the_odds_are_the_texts_pour_1_net_of_the_stake() -> None:
    assert {case.value: odds for case, odds in HYPER_ODDS.items()} == {
        "17": 4, "18": 5, "19": 5, "20": 4, "21": 10, "blackjack": 19, "bust": 2}
    assert hyper_net_cents(HyperCase.TWENTY_ONE, 1000, HyperCase.TWENTY_ONE) == 10_000
    assert hyper_net_cents(HyperCase.BUST, 1000, HyperCase.BUST) == 2000
    assert hyper_net_cents(HyperCase.BUST, 1000, HyperCase.TWENTY) == -1000
