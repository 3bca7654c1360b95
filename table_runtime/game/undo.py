"""What UNDO takes back: the round's last action, a card, a stand, a double, a split or a surrender, one at a time.

docs/rules.md "Corrections and recall". The round appends an entry per action as it
happens; UNDO reverses the newest on the hands, and the round then derives
the phase and the turn from the hands again. A card of the deal is not taken
back: the deal order is fixed (art. 55-4 « Déroulement de la partie »), a misdeal is VOIDed.
"""

from __future__ import annotations

from typing import Final

from table_runtime.game.box import BoxState
from table_runtime.game.cards import Card
from table_runtime.game.hand import Hand
from table_runtime.game.refusals import Refusal, RefusalReason

UndoEntry = tuple[str, Hand, Hand | None, int]
"""(action, hand, the new hand of a split, a number): for a card whether it was dealt (1) or drawn in play (0);
for a double how many stakes it added; for a split the hand's from_split (1) and split_aces (2) before it."""

CARD: Final = "card"
STAND: Final = "stand"
DOUBLE: Final = "double"
SPLIT: Final = "split"
SURRENDER: Final = "surrender"  # a surrendered hand plays on (game/surrender.py)


NOTHING_TO_UNDO: Final = Refusal(RefusalReason.NOTHING_TO_UNDO, "nothing to take back in this round")


def undo_refusal(log: list[UndoEntry]) -> Refusal | None:
    """Why UNDO cannot take back the newest entry of `log`, or None."""
    if not log:
        return NOTHING_TO_UNDO
    action, _, _, dealt = log[-1]
    if action == CARD and dealt:
        return Refusal(RefusalReason.DEAL_ORDER_FIXED, "the deal order is fixed (art. 55-4 « Déroulement de la "
                                                       "partie »): VOID the round for a misdeal")
    return None


def take_back(log: list[UndoEntry], hands: list[Hand], boxes: dict[int, BoxState]) -> tuple[str, Card | None]:
    """Reverse the newest entry of `log` (undo_refusal said None) on `hands` (the round's, in play order) and the
    boxes; the action, and the card taken off its hand (it is held) when the action was a card."""
    action, hand, other, number = log.pop()
    card = None
    if action == CARD:
        card = hand.pop()
    elif action == STAND:
        hand.stood = False
    elif action == DOUBLE:
        del hand.stakes[len(hand.stakes) - number:]
        hand.doubled = False
    elif action == SURRENDER:
        hand.surrendered = False
    else:
        assert other is not None
        hand.add(other.pop())
        hand.from_split = bool(number & 1)
        hand.split_aces = bool(number & 2)
        box = boxes[hand.box]
        box.hands.remove(other)
        box.renumber()
        hands.remove(other)
    return action, card
