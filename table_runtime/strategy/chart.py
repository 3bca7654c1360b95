"""The computed basic strategy as flat lookup tables, and the decision API.

`Strategy.decide` is the simulator's hot path: two list look-ups, no
allocation. Up cards and pairs are given by blackjack value, an ace being 1
(as `Card.value`).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Final

from table_runtime.game.rules import RuleOptions
from table_runtime.strategy.terms import PlayTerms

UP_VALUES: Final = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)  # chart column order: 2..9, T, A
CHART_WIDTH: Final = 11  # index by value 0..10


class Action(IntEnum):
    """A player decision."""

    HIT = 0
    STAND = 1
    DOUBLE = 2
    SPLIT = 3
    SURRENDER = 4  # 55-4 1° (2020): only when the caller says the hand may surrender


_HIT: Final = Action.HIT
_STAND: Final = Action.STAND
_DOUBLE: Final = Action.DOUBLE
_SPLIT: Final = Action.SPLIT
_SURRENDER: Final = Action.SURRENDER


def cell_index(total: int, soft: bool, up_value: int) -> int:
    return ((total + 32) if soft else total) * CHART_WIDTH + up_value


_REMEMBERED: dict[PlayTerms, Strategy] = {}  # strategies kept by their user, by terms (`Strategy.remember`)


class Strategy:
    """The total-dependent strategy of one set of play terms.

    Owns three tables: the first decision of a hand that may still double,
    hit-or-stand for a hand that may not, and split-or-not per pair value; and,
    where the rules offer surrender, surrender-or-not per two-card total and per pair.
    Build it with `Strategy.for_rules(options)` (computed once per set of terms).
    """

    __slots__ = ("_first", "_hit_stand", "_pair_surrender", "_split", "_surrender", "terms")

    def __init__(self, terms: PlayTerms, hits: Sequence[bool], doubles: Sequence[bool],
                 splits: Sequence[bool], surrenders: Sequence[bool] = (),
                 pair_surrenders: Sequence[bool] = ()) -> None:
        """`hits`/`doubles`/`surrenders` are indexed by `cell_index`, `splits`/`pair_surrenders` by
        pair value * 11 + up value; no surrender table: the hand never surrenders."""
        self.terms = terms
        self._hit_stand: list[Action] = [_HIT if hit else _STAND for hit in hits]
        self._first: list[Action] = [
            _DOUBLE if double else plain for double, plain in zip(doubles, self._hit_stand, strict=True)
        ]
        self._split: list[bool] = list(splits)
        self._surrender: list[bool] = list(surrenders) or [False] * len(self._first)
        self._pair_surrender: list[bool] = list(pair_surrenders) or [False] * len(self._split)

    @classmethod
    def for_rules(cls, options: RuleOptions | PlayTerms) -> Strategy:
        """The strategy for `RuleOptions` (or `PlayTerms`), computed once per terms and cached (or as `remember`
        was given it)."""
        from table_runtime.strategy.solver import solve  # solver imports this module

        terms = options if isinstance(options, PlayTerms) else PlayTerms.from_options(options)
        known = _REMEMBERED.get(terms)
        return known if known is not None else solve(terms).strategy

    @staticmethod
    def remember(strategy: Strategy) -> None:
        """Take `strategy` as the one of its terms from now on, without solving them: one this program computed
        before and kept (the rating worker's models, runtime/rating_worker.py: solving costs about a second)."""
        _REMEMBERED[strategy.terms] = strategy

    @property
    def tables(self) -> dict[str, list[bool]]:
        """The strategy's tables as `Strategy(terms, **tables)` takes them back."""
        return {"hits": [action is _HIT for action in self._hit_stand],
                "doubles": [action is _DOUBLE for action in self._first], "splits": list(self._split),
                "surrenders": list(self._surrender), "pair_surrenders": list(self._pair_surrender)}

    def decide(self, total: int, soft: bool, pair_rank_value: int | None, up_value: int,
               can_double: bool, can_split: bool, can_surrender: bool = False) -> Action:
        """The action for a hand of `total` (soft when an ace counts 11) against `up_value`.

        `pair_rank_value`: the value (ace = 1) of a two-card pair that the rules let
        split (same value, or same rank under split_match='rank'), else None.
        `can_double`/`can_split`/`can_surrender`: what the rules allow for this hand right now
        (surrender: the first two cards of an unsplit hand, the bank's card not an ace, 55-4 1°).
        """
        if can_surrender:
            if pair_rank_value is not None:
                if self._pair_surrender[pair_rank_value * CHART_WIDTH + up_value]:
                    return _SURRENDER
            elif self._surrender[((total + 32) if soft else total) * CHART_WIDTH + up_value]:
                return _SURRENDER
        if can_split and pair_rank_value is not None and self._split[pair_rank_value * CHART_WIDTH + up_value]:
            return _SPLIT
        index = ((total + 32) if soft else total) * CHART_WIDTH + up_value
        if can_double:
            return self._first[index]
        return self._hit_stand[index]

    def letter(self, total: int, soft: bool, up_value: int, surrender: bool = True) -> str:
        """The chart letter of a two-card total: H, S, D (else hit) or Ds (else stand); surrendered
        cells are Rh (surrender, else hit) or Rs (surrender, else stand), unless `surrender` is False."""
        index = cell_index(total, soft, up_value)
        plain = "H" if self._hit_stand[index] is _HIT else "S"
        if surrender and self._surrender[index]:
            return "R" + plain.lower()
        if self._first[index] is _DOUBLE:
            return "D" if plain == "H" else "Ds"
        return plain

    def splits(self, pair_value: int, up_value: int) -> bool:
        return self._split[pair_value * CHART_WIDTH + up_value]

    def surrenders(self, total: int, soft: bool, up_value: int) -> bool:
        """Whether a two-card total (not a pair) surrenders against `up_value` where the rules allow it."""
        return self._surrender[cell_index(total, soft, up_value)]

    def pair_surrenders(self, pair_value: int, up_value: int) -> bool:
        return self._pair_surrender[pair_value * CHART_WIDTH + up_value]

