"""The hyper black jack field's cases, odds and the bank's final result (art. 55-4 6°)."""

from __future__ import annotations

import pytest

from table_runtime.game.cards import parse_cards
from table_runtime.game.hand import Hand
from table_runtime.game.hyper import ODDS, HyperCase, bank_result, winnings_cents


def result_of(codes: str) -> HyperCase:
    bank = Hand(0, [])
    for card in parse_cards(codes):
        bank.add(card)
    return bank_result(bank.total, len(bank.cards))


def test_the_seven_cases_are_the_texts_zones_in_its_order_55_4_6() -> None:
    assert [case.value for case in HyperCase] == ["17", "18", "19", "20", "21", "blackjack", "bust"]
    assert [case.label for case in HyperCase] == ["17", "18", "19", "20", "21", "BLACK JACK", "BUST"]


def test_odds_are_the_texts_n_pour_1_55_4_6() -> None:
    # 17: 4 pour 1; 18: 5; 19: 5; 20: 4; 21: 10; BLACK JACK: 19; BUST: 2 pour 1.
    assert [ODDS[case] for case in HyperCase] == [4, 5, 5, 4, 10, 19, 2]
    # The stake is returned and paid N times: 10.00 on BLACK JACK wins 190.00.
    assert winnings_cents(HyperCase.BLACKJACK, 1000) == 19_000


@pytest.mark.parametrize(("cards", "case"), [
    ("TS 7H", HyperCase.SEVENTEEN),
    ("AS 6H", HyperCase.SEVENTEEN),  # soft 17: the bank stands (art. 55-4 « Déroulement de la partie » NOTA)
    ("5S 3H KD", HyperCase.EIGHTEEN),
    ("AS 8D", HyperCase.NINETEEN),
    ("QS KH", HyperCase.TWENTY),
    ("7S 4H TD", HyperCase.TWENTY_ONE),
    ("AS 5D 5C", HyperCase.TWENTY_ONE),  # 21 in three cards is not a black jack
    ("AS KD", HyperCase.BLACKJACK),
    ("KD AS", HyperCase.BLACKJACK),
    ("TS 6H 9D", HyperCase.BUST),
])
def test_the_bank_s_final_result_is_named_from_its_cards(cards: str, case: HyperCase) -> None:
    assert result_of(cards) is case


@pytest.mark.parametrize("cards", ["TS 6H", "AS", "5S 5H"])
def test_a_bank_still_drawing_has_no_final_result(cards: str) -> None:
    with pytest.raises(ValueError, match="not a final result"):
        result_of(cards)
