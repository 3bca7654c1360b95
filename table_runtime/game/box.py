"""One box in play: its bet, its hands (several after splits) and its insurance."""

from __future__ import annotations

from table_runtime.game.hand import Hand
from table_runtime.game.inputs import BoxBet
from table_runtime.game.recurring import original_stake


class BoxState:
    """One box of the round: the bet locked on it, its hands in split order, and the insurance it took."""

    __slots__ = ("bet", "hands", "insurance", "number")

    def __init__(self, bet: BoxBet) -> None:
        self.number = bet.box
        self.bet = bet
        stakes = [original_stake(bet.owner, bet.seated_cents)]
        for behind in bet.behind:
            stakes.append(original_stake(behind.owner, behind.cents))
        self.hands = [Hand(bet.box, stakes)]
        self.insurance = 0

    def renumber(self) -> None:
        """After a split (or its undo) the hands after it move: their positions and names follow."""
        for index, hand in enumerate(self.hands):
            hand.index = index
            hand.name = f"box{self.number}.hand{index}"
