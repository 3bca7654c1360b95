"""Count-based departures from basic strategy: the Hi-Lo "Illustrious 18" and insurance.

The published Hi-Lo indices (multi-deck, the bank standing on soft 17): at a true count at or past the
index, a counter plays the index's action instead of the chart's. A counter in the no-hole-card game who
learned the usual list plays it as it is; detection asks only whether a player's departures from the chart
go the way these do (at the counts where they do), so the list is the reference, not the game's optimum.

A departure "at or past" the index: for an index that plays more boldly at high counts (stand, double,
split, insure) the true count is >= the index; for the ones that play more carefully at low counts (hit 12
or 13 against a small card) it is < the index (Hi-Lo: 12 v 4 stands at 0 or more, hits below 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from table_runtime.strategy.chart import Action

INSURANCE_INDEX: Final = 3.0  # Hi-Lo: insure at a true count of +3 or more (the ten share above 1/3)


@dataclass(frozen=True, slots=True)
class IndexPlay:
    """One index: the hand (total, soft, pair value or None), the bank's card (ace = 1), the index and the
    departure. `above`: the departure is played at a true count >= index, else at a true count < index."""

    name: str
    total: int
    pair: int | None
    up: int
    index: float
    action: Action
    above: bool

    def past(self, true_count: float) -> bool:
        """Whether the true count calls for this index's action."""
        return true_count >= self.index if self.above else true_count < self.index


ILLUSTRIOUS_18: Final = (
    IndexPlay("16 v T stand", 16, None, 10, 0, Action.STAND, True),
    IndexPlay("15 v T stand", 15, None, 10, 4, Action.STAND, True),
    IndexPlay("T,T v 5 split", 20, 10, 5, 5, Action.SPLIT, True),
    IndexPlay("T,T v 6 split", 20, 10, 6, 4, Action.SPLIT, True),
    IndexPlay("10 v T double", 10, None, 10, 4, Action.DOUBLE, True),
    IndexPlay("12 v 3 stand", 12, None, 3, 2, Action.STAND, True),
    IndexPlay("12 v 2 stand", 12, None, 2, 3, Action.STAND, True),
    IndexPlay("11 v A double", 11, None, 1, 1, Action.DOUBLE, True),
    IndexPlay("9 v 2 double", 9, None, 2, 1, Action.DOUBLE, True),
    IndexPlay("10 v A double", 10, None, 1, 4, Action.DOUBLE, True),
    IndexPlay("9 v 7 double", 9, None, 7, 3, Action.DOUBLE, True),
    IndexPlay("16 v 9 stand", 16, None, 9, 5, Action.STAND, True),
    IndexPlay("13 v 2 hit", 13, None, 2, -1, Action.HIT, False),
    IndexPlay("12 v 4 hit", 12, None, 4, 0, Action.HIT, False),
    IndexPlay("12 v 5 hit", 12, None, 5, -2, Action.HIT, False),
    IndexPlay("12 v 6 hit", 12, None, 6, -1, Action.HIT, False),
    IndexPlay("13 v 3 hit", 13, None, 3, -2, Action.HIT, False),
)

_BY_HAND: Final = {(play.total, play.pair, play.up): play for play in ILLUSTRIOUS_18}


def index_for(total: int, soft: bool, pair: int | None, up: int, cards: int) -> IndexPlay | None:
    """The index play that applies to this hand, if any: hard totals only; a pair index on its two cards;
    a double index only where a double is possible (two cards)."""
    if soft:
        return None
    if pair is not None and cards == 2:
        play = _BY_HAND.get((total, pair, up))
        if play is not None:
            return play
    play = _BY_HAND.get((total, None, up))
    if play is None or (play.action is Action.DOUBLE and cards != 2):
        return None
    return play


def indexed_action(basic: Action, play: IndexPlay | None, true_count: float) -> Action:
    """What a Hi-Lo counter plays: the index's action when the count calls for it, else the chart's."""
    if play is not None and play.past(true_count):
        return play.action
    return basic
