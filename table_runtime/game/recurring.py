"""The events and stakes that every round repeats, made once and shared.

Events are frozen values, like the cards. Building a frozen dataclass costs
more than the rest of a step (and a mypyc build does not compile slotted
dataclasses, so it pays for it too), so a phase change, a turn, a card to a
hand, a stand and an original stake are built the first time and shared after
(bench/README.md, "Doing less per round"). Equal events are then often the same
object; nothing relies on it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from table_runtime.game.cards import Card
from table_runtime.game.events import CardAssigned, HandStood, PhaseChanged, TurnChanged
from table_runtime.game.hand import Stake
from table_runtime.game.phases import PHASES

PHASE_CHANGED: Final = {phase: PhaseChanged(phase=phase) for phase in PHASES}
_TURN_CHANGED: Final[dict[tuple[int, int] | None, TurnChanged]] = {None: TurnChanged(box=None, hand=None)}
_CARD_ASSIGNED: Final[dict[str, list[CardAssigned | None]]] = {}  # by target, then by Card.index


def turn_changed(turn: tuple[int, int] | None) -> TurnChanged:
    event = _TURN_CHANGED.get(turn)
    if event is None:
        assert turn is not None
        event = _TURN_CHANGED[turn] = TurnChanged(box=turn[0], hand=turn[1])
    return event


@lru_cache(maxsize=256)
def hand_stood(box: int, hand: int) -> HandStood:
    return HandStood(box=box, hand=hand)


@lru_cache(maxsize=1024)
def original_stake(owner: str, cents: int) -> Stake:
    """A stake is a frozen value too: the same bets round after round share theirs."""
    return Stake(owner, cents, "original")


def card_assigned(card: Card, target: str) -> CardAssigned:
    by_card = _CARD_ASSIGNED.get(target)
    if by_card is None:
        by_card = _CARD_ASSIGNED[target] = [None] * 52
    event = by_card[card.index]
    if event is None:
        event = by_card[card.index] = CardAssigned(card=card, target=target)
    return event
