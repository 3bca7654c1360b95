"""The shoe fold: the Hi-Lo count of the cards turned face up, the exact cards left, over the engine's events."""

from __future__ import annotations

import random
from itertools import permutations

from table_runtime.game.cards import Card, new_shoe
from table_runtime.game.events import ActionUndone, CardAssigned, ShoeStarted
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Next, ShoeShuffled, Undo
from table_runtime.game.rules import PROFILES
from table_runtime.game.table import Table
from table_runtime.rating.shoe_state import ShoeState, hi_lo


def test_hi_lo_tags_low_cards_plus_high_cards_minus() -> None:
    tags = {rank: hi_lo(Card.parse(rank + "S")) for rank in "A23456789TJQK"}
    assert tags == {"A": -1, "2": 1, "3": 1, "4": 1, "5": 1, "6": 1, "7": 0, "8": 0, "9": 0,
                    "T": -1, "J": -1, "Q": -1, "K": -1}
    assert sum(hi_lo(card) for card in new_shoe(6)) == 0  # a balanced count


def test_the_fold_of_a_real_round_counts_the_face_up_cards_and_knows_the_burns() -> None:
    rules = PROFILES["fr-casino"]
    table = Table(rules)
    state = ShoeState(rules.decks)
    cards = new_shoe(rules.decks)
    random.Random(3).shuffle(cards)
    drawn = iter(cards)
    state.apply_all(table.apply(ShoeShuffled(shoe_id="S1")))
    burns = [next(drawn) for _ in range(rules.burn_cards)]
    for card in burns:
        state.apply_all(table.apply(CardDrawn(card=card)))
    assert state.running_count == 0 and state.burned == 5 and state.cards_left == 307
    state.apply_all(table.apply(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="p"),))))
    face_up: list[Card] = []
    while table.round is not None and table.round.phase in ("dealing", "playing", "bank"):
        if table.round.phase == "playing" and table.round.current_hand is not None \
                and len(table.round.current_hand.cards) >= 2:
            state.apply_all(table.apply(Next()))
            continue
        card = next(drawn)
        face_up.append(card)
        state.apply_all(table.apply(CardDrawn(card=card)))
    assert len(face_up) >= 3
    assert state.running_count == sum(hi_lo(card) for card in face_up)
    assert state.seen == len(face_up)
    # the counter cannot see the burns: they are still in his unseen decks; the table took them out
    assert state.unseen_decks == (312 - len(face_up)) / 52
    assert state.true_count == state.running_count / ((312 - len(face_up)) / 52)
    expected = [24] * 9 + [96]
    for card in burns + face_up:
        expected[card.value - 1] -= 1
    assert state.composition == tuple(expected)
    state.apply(ShoeStarted(shoe_id="S2", burn_cards=5))
    assert state.composition == (24,) * 9 + (96,) and state.running_count == 0 and state.seen == 0


def test_the_bank_blackjack_chance_is_the_chance_of_an_ace_and_a_ten_in_two_cards_left() -> None:
    state = ShoeState(1)
    for card in new_shoe(1):
        if card.value not in (1, 10, 5):
            state.apply(CardAssigned(card=card, target="box1.hand0"))
    left = [1] * 4 + [10] * 16 + [5] * 4  # what is left, counted out by brute force
    pairs = [(a, b) for a, b in permutations(range(len(left)), 2)]
    brute = sum(1 for a, b in pairs if {left[a], left[b]} == {1, 10}) / len(pairs)
    assert abs(state.bank_blackjack_chance - brute) < 1e-12
    # a full six-deck shoe: 2 x 24 x 96 / (312 x 311), under 1/20: the BLACK JACK case at 19 to 1 loses
    full = ShoeState(6)
    assert abs(full.bank_blackjack_chance - 2 * 24 * 96 / (312 * 311)) < 1e-15
    assert full.bank_blackjack_chance * 20 < 1


def test_a_card_taken_back_by_undo_and_assigned_again_counts_once() -> None:
    rules = PROFILES["fr-casino"].replace(burn_cards=0)
    table = Table(rules)
    state = ShoeState(rules.decks)
    state.apply_all(table.apply(ShoeShuffled(shoe_id="S1")))
    state.apply_all(table.apply(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="p"),
                                                 BoxBet(box=2, seated_cents=1000, owner="q")))))
    for code in ("2H", "3H", "9S", "4H", "5H"):  # box1 2 4, box2 3 5, bank 9
        state.apply_all(table.apply(CardDrawn(card=Card.parse(code))))
    state.apply_all(table.apply(CardDrawn(card=Card.parse("6H"))))  # a hit for box 1 ...
    events = table.apply(Undo(by="dealer"))  # ... meant for box 2: taken back, held
    assert any(isinstance(event, ActionUndone) for event in events)
    state.apply_all(events)
    state.apply_all(table.apply(Next()))  # box 1 stands: the held six goes to box 2
    round_ = table.round
    assert round_ is not None and [str(card) for card in round_.hands[1].cards] == ["3H", "5H", "6H"]
    assert state.seen == 6 and state.running_count == 5  # 2 3 4 5 6 +1 each, 9 zero: the six once
    assert state.composition[5] == 23
