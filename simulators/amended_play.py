"""The 2020 amendments in the Monte Carlo: surrender by the strategy (55-4 1°) and the hyper black jack
field (55-4 6°), played around the round engine until the live table's own commands exist.

Surrender: a hand the chart gives up stands in the engine (it takes no card, as a surrendered hand) and
is booked at minus half its stake. Without hyper chips the bank may then draw where the live table, with
nothing left on the boxes to settle, would not: later rounds' cards move, no expected value does.

Hyper black jack: with hyper chips on the field the bank completes its hand even when every box has
busted; the engine stops drawing for the bank once nothing on the boxes is left to settle, so the Monte
Carlo draws the bank's missing cards itself, off the same shoe, by the engine's own drawing rule
(`bank_needs_card`), and names the result with `game/hyper.py`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from simulators.players import BasicStrategyPlayer
from table_runtime.game.bank import TO_17, bank_needs_card
from table_runtime.game.cards import Card
from table_runtime.game.hand import Hand
from table_runtime.game.hyper import ODDS, HyperCase, bank_result
from table_runtime.game.round import Round
from table_runtime.strategy import Action

_SURRENDER: Final = Action.SURRENDER
CASES: Final = tuple(HyperCase)


def gives_up(round_: Round, player: BasicStrategyPlayer) -> bool:
    """Whether the current hand surrenders now: its first two cards, unsplit, the bank's card not an ace
    (55-4 1°), and the chart says so. The caller checks that the rules offer surrender."""
    hand = round_.current_hand
    if hand is None or len(hand.cards) != 2 or hand.from_split or hand.doubled:
        return False
    up = round_.bank.cards[0].value
    if up == 1:
        return False
    first = hand.cards[0].value
    pair = first if hand.cards[1].value == first else None
    action = player.strategy.decide(hand.total, hand.soft, pair, up, False, False, True)
    return action is _SURRENDER


def complete_bank(round_: Round, draw_aside: Callable[[], Card], hits_soft_17: bool) -> HyperCase:
    """The bank's final result, drawing (off the shoe, not through the engine) the cards it still needs."""
    bank = Hand(0, [])
    for card in round_.bank.cards:
        bank.add(card)
    while bank_needs_card(bank, TO_17, hits_soft_17):
        bank.add(draw_aside())
    return bank_result(bank.total, len(bank.cards))


def parse_cases(text: str) -> tuple[HyperCase, ...]:
    """`all`, `none`, or cases separated by commas (17, 18, 19, 20, 21, blackjack, bust)."""
    if text == "all":
        return CASES
    if text == "none":
        return ()
    cases = []
    for part in text.split(","):
        try:
            cases.append(HyperCase(part.strip().lower()))
        except ValueError:
            names = ", ".join(case.value for case in CASES)
            raise ValueError(f"{part!r} is not a hyper black jack case (all, none, or {names})") from None
    return tuple(dict.fromkeys(cases))


def field_net(result: HyperCase, cases: Iterable[HyperCase], units: int = 1) -> int:
    """Net of `units` on each of `cases` when the bank's result is `result` (winnings N pour 1)."""
    return sum(units * ODDS[case] if case is result else -units for case in cases)


def hyper_document(counts: Sequence[int], cases: Sequence[HyperCase]) -> dict[str, Any]:
    """The bank's final results counted over rounds (in the order of HyperCase), and what one unit on each
    case returned: EV p (N + 1) - 1 with its standard error (N + 1) sqrt(p (1 - p) / rounds), rounds being
    the samples. `net_units`: one unit on each of `cases` every round."""
    rounds = sum(counts)
    chances = {case: count / rounds if rounds else 0.0 for case, count in zip(CASES, counts, strict=True)}
    return {
        "cases_bet": [case.value for case in cases],
        "rounds": rounds,
        "net_units": sum(counts[CASES.index(case)] * (ODDS[case] + 1) - rounds for case in cases),
        "bank_final_result": {case.value: p for case, p in chances.items()},
        "ev": {case.value: p * (ODDS[case] + 1) - 1 for case, p in chances.items()},
        "stderr": {case.value: (ODDS[case] + 1) * math.sqrt(p * (1 - p) / rounds) if rounds else math.nan
                   for case, p in chances.items()},
    }
