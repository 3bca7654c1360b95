"""Properties of the round machine over random rounds (hypothesis).

- Legal play never raises, always ends settled, replay equals live at every step,
  and every stake is paid exactly staked x the ratio of its outcome (docs/rules.md "Settlement").
- Illegal inputs give alarms; a refused command leaves the state unchanged; every card
  drawn is counted out of the shoe, and one no hand may take is held, not lost.
"""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from table_runtime.game.cards import new_shoe
from table_runtime.game.events import Alarm, CardAssigned, CardBurned, CardHeld, Event, Payout
from table_runtime.game.inputs import (
    BehindBet,
    BetsLocked,
    BoxBet,
    CardDrawn,
    Confirm,
    Discard,
    Double,
    Input,
    InsurancePlaced,
    Next,
    ShoeShuffled,
    Split,
    Surrender,
    Undo,
    Void,
)
from table_runtime.game.rules import PROFILES, RuleOptions
from table_runtime.game.snapshot import table_snapshot
from table_runtime.game.table import Table, replay

RATIOS = {"blackjack": Fraction(3, 2), "win": Fraction(1), "charlie": Fraction(1), "push": Fraction(0),
          "lose": Fraction(-1), "bust": Fraction(-1), "insurance_win": Fraction(2), "insurance_lose": Fraction(-1),
          "surrender": Fraction(-1, 2)}


def check_payout(payout: Payout, rules: RuleOptions) -> None:
    exact = payout.staked_cents * RATIOS[payout.outcome]
    if payout.outcome == "blackjack":
        # rounded down to the cent (and to the house chip), never up, and said in the note
        assert payout.net_cents <= exact < payout.net_cents + max(1, rules.blackjack_round_down_cents)
        assert (payout.net_cents == exact) == (payout.note == "")
    elif payout.outcome == "surrender":
        # half the stake back (55-4 1°, 2020): a half cent goes to the house, never silently
        assert payout.net_cents <= exact < payout.net_cents + 1 and rules.surrender
        assert (payout.net_cents == exact) == (payout.note == "")
    elif payout.note:
        assert payout.outcome == "push" and rules.bank_blackjack_takes == "original_only"
    else:
        assert payout.net_cents == exact


def legal_round(rng: random.Random, rules: RuleOptions, boxes: int) -> tuple[Table, list[Input]]:
    """One whole round with random legal decisions, checking replay at every step."""
    shoe = new_shoe(rules.decks)
    rng.shuffle(shoe)
    cards = iter(shoe)
    table = Table(rules)
    inputs: list[Input] = [ShoeShuffled(shoe_id="S")]
    table.apply(inputs[0])
    for _ in range(rules.burn_cards):
        inputs.append(CardDrawn(card=next(cards)))
        table.apply(inputs[-1])
    numbers = sorted(rng.sample(range(1, 8), max(boxes, rules.min_boxes_to_deal)))
    bets = tuple(
        BoxBet(box=n, seated_cents=rng.choice([500, 1000, 2500, 1500, 1001]), owner=f"p{n}",
               behind=tuple(BehindBet(owner=f"b{n}{k}", cents=rng.choice([500, 700]))
                            for k in range(rng.randint(0, 2))))
        for n in numbers)
    inputs.append(BetsLocked(bets=bets))
    table.apply(inputs[-1])
    steps = 0
    while True:
        steps += 1
        assert steps < 400
        round_ = table.round
        assert round_ is not None
        phase = round_.phase
        item: Input
        if phase == "settlement":
            break
        if phase == "insurance":
            uninsured = [box for box in round_.boxes if not box.insurance]
            if uninsured and rng.random() < 0.5:
                box = rng.choice(uninsured)
                item = InsurancePlaced(box=box.number, cents=box.bet.seated_cents // 2)
            else:
                item = Confirm()
        elif phase == "playing":
            choices: list[Input] = [CardDrawn(card=next(cards))]
            allowed = round_.allowed()
            hand = round_.current_hand
            assert hand is not None
            behind = tuple(s.owner for s in hand.base_stakes()[1:] if rng.random() < 0.5)
            if "NEXT" in allowed:
                choices.append(Next())
            if "DOUBLE" in allowed:
                choices.append(Double(behind_following=behind))
            if "SPLIT" in allowed:
                choices += [Split(behind_following=behind)] * 2
            if "SURRENDER" in allowed:
                choices.append(Surrender())
            item = rng.choice(choices)
        else:
            item = CardDrawn(card=next(cards))
        inputs.append(item)
        events = table.apply(item)
        assert not [e for e in events if isinstance(e, Alarm)], events
        if rng.random() < 0.2:
            assert table_snapshot(replay(rules, inputs)) == table_snapshot(table)
    return table, inputs


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32), boxes=st.integers(1, 7), profile=st.sampled_from(sorted(PROFILES)),
       h17=st.booleans(), original_only=st.booleans())
def test_legal_rounds_settle_and_money_balances(
    seed: int, boxes: int, profile: str, h17: bool, original_only: bool
) -> None:
    rules = PROFILES[profile].replace(dealer_hits_soft_17=h17,
                                      bank_blackjack_takes="original_only" if original_only else "all")
    rng = random.Random(seed)
    table, inputs = legal_round(rng, rules, boxes)
    round_ = table.round
    assert round_ is not None and round_.phase == "settlement"
    assert table_snapshot(replay(rules, inputs)) == table_snapshot(table)
    staked = sum(box.bet.total_cents + box.insurance for box in round_.boxes)
    staked += sum(s.cents for hand in round_.hands for s in hand.stakes if s.kind != "original")
    assert sum(p.staked_cents for p in round_.payouts) == staked
    for payout in round_.payouts:
        check_payout(payout, rules)
    assert len(round_.payouts) == sum(len(hand.stakes) for hand in round_.hands) + sum(
        1 for box in round_.boxes if box.insurance)
    assert table.apply(Confirm())[-1].__class__.__name__ == "RoundClosed"


ANY_INPUT = st.one_of(
    st.builds(Next), st.builds(Double), st.builds(Split), st.builds(Undo), st.builds(Confirm),
    st.builds(Void), st.builds(Discard), st.builds(Surrender),
    st.builds(InsurancePlaced, box=st.integers(0, 8), cents=st.integers(0, 3000)),
    st.builds(BetsLocked, bets=st.lists(
        st.builds(BoxBet, box=st.integers(0, 8), seated_cents=st.integers(0, 600_000)), max_size=3
    ).map(tuple)),
    st.just("card"),
)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32), script=st.lists(ANY_INPUT, max_size=60), profile=st.sampled_from(sorted(PROFILES)))
def test_random_inputs_never_raise_and_refusals_change_nothing(seed: int, script: list[object], profile: str) -> None:
    rules = PROFILES[profile]
    rng = random.Random(seed)
    shoe = new_shoe(rules.decks)
    rng.shuffle(shoe)
    table = Table(rules)
    table.apply(ShoeShuffled(shoe_id="S"))
    inputs: list[Input] = [ShoeShuffled(shoe_id="S")]
    for step in script:
        item: Input = CardDrawn(card=shoe.pop()) if step == "card" else step  # type: ignore[assignment]
        before = table_snapshot(table)
        dealt_before = table.shoe.dealt
        events: list[Event] = table.apply(item)
        inputs.append(item)
        if not isinstance(item, CardDrawn) and events and all(isinstance(e, Alarm) for e in events):
            assert table_snapshot(table) == before, item  # a refused command changes nothing
        if isinstance(item, CardDrawn):
            assert table.shoe.dealt == dealt_before + 1  # every card is counted out of the shoe
            # ...and goes somewhere: burned, to a hand or the bank, or held for the dealer
            assert any(isinstance(e, (CardBurned, CardAssigned, CardHeld)) and e.card == item.card for e in events)
    assert table_snapshot(table) == table_snapshot(replay(rules, inputs))


def test_card_no_hand_can_take_is_held_until_discarded() -> None:
    rules = PROFILES["online"]
    table = Table(rules)
    table.apply(ShoeShuffled(shoe_id="S"))
    shoe = new_shoe(6)
    events = table.apply(CardDrawn(card=shoe[0]))
    assert [type(e).__name__ for e in events] == ["Alarm", "CardHeld"]
    assert table_snapshot(table)["held_cards"] == [shoe[0].code]
    assert table.shoe.dealt == 1
    assert "DISCARD" in table_snapshot(table)["allowed"]
    table.apply(Discard())
    assert table_snapshot(table)["held_cards"] == []
