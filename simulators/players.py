"""Simulated players: one who plays the computed basic strategy, and a bettor of random stakes.

`decide(round_, player)` looks at what a player at the table sees (the current
hand, the bank's up card, the buttons the rules allow) and returns the input
the dealer applies for that player: `Next` (stand), `Double`, `Split`,
`Surrender` (where the rules offer it and the chart's surrender column says so:
55-4 1° as amended in 2020), or None for a hit (the dealer draws the next card
for the hand). The Monte Carlo simulation and the demo's simulated players both
call it, and the engine's own SURRENDER settles the hand.

`RandomBettor.bets` stakes the boxes and, where the rules open the hyper black
jack field (55-4 6°), some of the hyper cases for some of the boxes.
"""

from __future__ import annotations

import random
from typing import Final

from table_runtime.game.hyper import HyperCase
from table_runtime.game.inputs import BehindBet, BetsLocked, BoxBet, Double, HyperBet, Next, Split, Surrender
from table_runtime.game.round import Round
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.strategy import Action, Strategy

Decision = Next | Double | Split | Surrender | None  # None: hit, the dealer draws a card for the hand

_STAND: Final = Next()
_GIVE_UP: Final = Surrender()
_HIT: Final = Action.HIT
_DOUBLE: Final = Action.DOUBLE
_SPLIT: Final = Action.SPLIT
_SURRENDER: Final = Action.SURRENDER
_CASES: Final = tuple(HyperCase)


class NoTurnError(ValueError):
    """`decide` was asked for a decision while no hand is playing."""


class BasicStrategyPlayer:
    """A player who plays the basic strategy computed for the rules, and never insures.

    `double` and `split` are the inputs applied for this player's doubles and
    splits (name the behind players who follow them there).
    """

    __slots__ = ("double", "name", "split", "strategy")

    def __init__(self, strategy: Strategy, *, name: str = "basic-strategy",
                 behind_following: tuple[str, ...] = ()) -> None:
        self.strategy = strategy
        self.name = name
        self.double = Double(behind_following=behind_following)
        self.split = Split(behind_following=behind_following)

    @classmethod
    def for_rules(cls, rules: RuleOptions, *, name: str = "basic-strategy") -> BasicStrategyPlayer:
        return cls(Strategy.for_rules(rules), name=name)

    @property
    def insures(self) -> bool:
        return False


def decide(round_: Round, player: BasicStrategyPlayer) -> Decision:
    """The input for the current hand of `round_`: Next, Double, Split, Surrender, or None (hit).

    A hand waiting for a card (one card after a split, a double) is a hit: the
    dealer must draw for it whatever the player would like. A surrender is only
    asked where game/surrender.py would take it: the rules offer it, the first
    two cards of an unsplit hand, the bank's card not an ace (55-4 1°).
    """
    hand = round_.current_hand
    if hand is None:
        raise NoTurnError(f"no hand is playing (phase {round_.phase})")
    cards = hand.cards
    if len(cards) < 2 or hand.doubled:
        return None
    chart = player.strategy.decide
    total, soft, up = hand.total, hand.soft, round_.bank.cards[0].value
    if len(cards) == 2:
        first = cards[0].value
        pair = first if cards[1].value == first else None
        may_surrender = round_.rules.surrender and not hand.from_split and up != 1
        action = chart(total, soft, pair, up, True, True, may_surrender)
        if action is _SURRENDER:
            return _GIVE_UP
        if action is _DOUBLE or action is _SPLIT:  # the chart wants it: do the rules offer it on this hand?
            allowed = round_.allowed()
            action = chart(total, soft, pair, up, "DOUBLE" in allowed, "SPLIT" in allowed)
    else:  # DOUBLE and SPLIT are only ever offered on the first two cards (docs/rules.md "Double", "Split")
        action = chart(total, soft, None, up, False, False)
    if action is _HIT:
        return None
    if action is _DOUBLE:
        return player.double
    if action is _SPLIT:
        return player.split
    return _STAND


class RandomBettor:
    """Stakes drawn at random in whole chips between the table minimum and `max_chips` chips.

    Owns its RNG (seed it for a reproducible demo). Each box in play gets a
    seated stake and, with probability `behind_chance`, one behind stake; with
    probability `hyper_chance` (give it only where the rules open the hyper black
    jack field, 55-4 6°) its seated player also stakes one to three cases drawn at
    random, a few chips each within the hyper limits. With both chances 0 the RNG
    draws exactly what it drew before the field existed, so a seed's rounds stay.
    """

    def __init__(self, rng: random.Random, limits: TableLimits | None = None, *, chip_cents: int = 500,
                 max_chips: int = 20, behind_chance: float = 0.0, hyper_chance: float = 0.0) -> None:
        self.rng = rng
        self.limits = limits or TableLimits()
        self.chip_cents = chip_cents
        self.max_chips = max_chips
        self.behind_chance = behind_chance
        self.hyper_chance = hyper_chance

    def stake(self) -> int:
        """One stake in cents: a whole number of chips within the table limits."""
        low = -(-self.limits.min_bet_cents // self.chip_cents)
        high = max(low, min(self.max_chips, self.limits.max_bet_cents // self.chip_cents))
        return self.rng.randint(low, high) * self.chip_cents

    def bets(self, boxes: tuple[int, ...], owners: tuple[str, ...] | None = None) -> BetsLocked:
        """Bets on `boxes` (seated by `owners`, default ``player<box>``), within the maximum per box."""
        locked = []
        for position, box in enumerate(boxes):
            owner = owners[position] if owners is not None else f"player{box}"
            seated = self.stake()
            behind: tuple[BehindBet, ...] = ()
            if self.behind_chance and self.rng.random() < self.behind_chance:
                room = self.limits.max_bet_cents - seated
                cents = min(self.stake(), room - room % self.chip_cents)
                if cents > 0:
                    behind = (BehindBet(owner=f"behind{box}", cents=cents),)
            locked.append(BoxBet(box=box, seated_cents=seated, owner=owner, behind=behind))
        hyper: list[HyperBet] = []
        if self.hyper_chance:
            for bet in locked:
                if self.rng.random() < self.hyper_chance:
                    for case in self.rng.sample(_CASES, self.rng.randint(1, 3)):
                        hyper.append(HyperBet(case=case.value, box=bet.box, cents=self.hyper_stake(), owner=bet.owner))
        return BetsLocked(bets=tuple(locked), hyper=tuple(hyper))

    def hyper_stake(self) -> int:
        """One stake on a hyper case in cents: one to four chips within the hyper limits (55-4 6°)."""
        low = max(1, -(-self.limits.hyper_min_bet_cents // self.chip_cents))
        high = max(low, min(4, self.limits.hyper_max_bet_cents // self.chip_cents))
        return self.rng.randint(low, high) * self.chip_cents
