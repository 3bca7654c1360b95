"""Simulated players of known behaviour for the advantage-play bench (bench/rating.py, docs/rating.md).

Each player sees what a player at the table sees: the cards turned face up since the shuffle (his own
Hi-Lo count, kept by his own `ShoeState` fold of the table's events), his hand, the bank's card and the
decisions the rules allow. He chooses his boxes and stakes before the round, his decisions during it, and
whether he insures. What the detection reads is the table's record of what he did, never these objects.

Kinds: `flat` (one unit, basic strategy), `counter` (Hi-Lo, a 1-8 spread, the Illustrious 18 and
insurance at +3), `cover` (Hi-Lo, a 1-4 spread with random noise, the same indices), `wonger` (watches
until the true count reaches +1, plays one box, a second from +3, leaves below 0; flat stakes, basic
strategy), `chaser` (a random base stake, doubled after each loss up to 16 units, basic strategy with one
hit-or-stand decision in twenty reversed at random). Where the rules have hyper black jack (55-4 6°, the
`fr-2020` profile): `hyper` (flat on his box, basic strategy, and one unit on the BLACK JACK case whenever the
cards he has seen make it a positive bet: the bank's blackjack chance over 1/20, the case paying 19 to 1) and
`hyperfan` (the same player betting the BLACK JACK case in a random fifth of the rounds, whatever the cards).
"""

from __future__ import annotations

import random
from typing import Final

from table_runtime.game.hyper import ODDS, HyperCase
from table_runtime.rating.indexes import INSURANCE_INDEX, index_for, indexed_action
from table_runtime.strategy.chart import Action, Strategy

UNIT_CENTS: Final = 2500
KINDS: Final = ("flat", "counter", "cover", "wonger", "chaser", "hyper", "hyperfan")
COUNTERS: Final = frozenset({"counter", "cover", "wonger", "hyper"})  # the advantage players
HYPER_KINDS: Final = frozenset({"hyper", "hyperfan"})  # they need rules with hyper black jack


class SimulatedPlayer:
    """A flat bettor who plays the chart and never insures; the other kinds change one part of him."""

    kind = "flat"

    def __init__(self, strategy: Strategy, rng: random.Random) -> None:
        self.strategy = strategy
        self.rng = rng

    def stakes(self, true_count: float) -> tuple[int, ...]:
        """The initial stake of each box he plays this round (none: he watches)."""
        return (UNIT_CENTS,)

    def action(self, total: int, soft: bool, pair: int | None, up: int, cards: int, can_double: bool,
               can_split: bool, true_count: float) -> Action:
        return self.strategy.decide(total, soft, pair, up, can_double, can_split)

    def insures(self, true_count: float) -> bool:
        return False

    def hyper_blackjack(self, bank_blackjack_chance: float) -> int:
        """His stake on the hyper field's BLACK JACK case this round, from the bank's blackjack chance given the
        cards he has seen (0: none)."""
        return 0

    def settled(self, net_cents: int) -> None:
        """What the round paid him (the chaser reacts to it)."""

    def new_shoe(self) -> None:
        """The dealer shuffled (the wonger leaves)."""


class Counter(SimulatedPlayer):
    """Hi-Lo with a 1-8 spread: 1 unit below +1, then 2, 4, 6, 8 units at +1, +2, +3, +4; the indices."""

    kind = "counter"
    ramp: tuple[tuple[float, int], ...] = ((4.0, 8), (3.0, 6), (2.0, 4), (1.0, 2))

    def units(self, true_count: float) -> int:
        for count, units in self.ramp:
            if true_count >= count:
                return units
        return 1

    def stakes(self, true_count: float) -> tuple[int, ...]:
        return (self.units(true_count) * UNIT_CENTS,)

    def action(self, total: int, soft: bool, pair: int | None, up: int, cards: int, can_double: bool,
               can_split: bool, true_count: float) -> Action:
        basic = self.strategy.decide(total, soft, pair, up, can_double, can_split)
        play = index_for(total, soft, pair, up, cards)
        chosen = indexed_action(basic, play, true_count)
        if (chosen is Action.DOUBLE and not can_double) or (chosen is Action.SPLIT and not can_split):
            return basic
        return chosen

    def insures(self, true_count: float) -> bool:
        return true_count >= INSURANCE_INDEX


class CoverCounter(Counter):
    """Hi-Lo with a 1-4 spread (1 unit below +2, then 2, 3, 4 at +2, +3, +4), one step up or down at random
    in a third of the rounds; the indices."""

    kind = "cover"
    ramp = ((4.0, 4), (3.0, 3), (2.0, 2))

    def stakes(self, true_count: float) -> tuple[int, ...]:
        units = self.units(true_count)
        if self.rng.random() < 1 / 3:
            units = max(1, units + self.rng.choice((-1, 1)))
        return (units * UNIT_CENTS,)


class Wonger(SimulatedPlayer):
    """Watches until +1, then plays one box of 2 units, a second box from +3; leaves below 0."""

    kind = "wonger"

    def __init__(self, strategy: Strategy, rng: random.Random) -> None:
        super().__init__(strategy, rng)
        self.playing = False

    def stakes(self, true_count: float) -> tuple[int, ...]:
        if true_count >= 1.0:
            self.playing = True
        elif true_count < 0.0:
            self.playing = False
        if not self.playing:
            return ()
        return (2 * UNIT_CENTS, 2 * UNIT_CENTS) if true_count >= 3.0 else (2 * UNIT_CENTS,)

    def new_shoe(self) -> None:
        self.playing = False


class LossChaser(SimulatedPlayer):
    """A base stake of 1 to 3 units at random; after a loss the last stake doubled (at most 16 units); one
    hit-or-stand decision in twenty the other way than the chart, whatever the count (a careless player)."""

    kind = "chaser"

    def __init__(self, strategy: Strategy, rng: random.Random) -> None:
        super().__init__(strategy, rng)
        self.next_cents = self.base()

    def base(self) -> int:
        return self.rng.randint(1, 3) * UNIT_CENTS

    def stakes(self, true_count: float) -> tuple[int, ...]:
        return (self.next_cents,)

    def action(self, total: int, soft: bool, pair: int | None, up: int, cards: int, can_double: bool,
               can_split: bool, true_count: float) -> Action:
        chosen = self.strategy.decide(total, soft, pair, up, can_double, can_split)
        if chosen in (Action.HIT, Action.STAND) and self.rng.random() < 0.05:
            return Action.STAND if chosen is Action.HIT else Action.HIT
        return chosen

    def settled(self, net_cents: int) -> None:
        if net_cents < 0:
            self.next_cents = min(2 * self.next_cents, 16 * UNIT_CENTS)
        elif net_cents > 0:
            self.next_cents = self.base()


class HyperPlayer(SimulatedPlayer):
    """Flat on his box; one unit on the BLACK JACK case whenever it is a positive bet for the cards left."""

    kind = "hyper"

    def hyper_blackjack(self, bank_blackjack_chance: float) -> int:
        return UNIT_CENTS if bank_blackjack_chance * (ODDS[HyperCase.BLACKJACK] + 1) > 1.0 else 0


class HyperFan(SimulatedPlayer):
    """Flat on his box; one unit on the BLACK JACK case in a random fifth of the rounds."""

    kind = "hyperfan"

    def hyper_blackjack(self, bank_blackjack_chance: float) -> int:
        return UNIT_CENTS if self.rng.random() < 0.2 else 0


PLAYERS: Final[dict[str, type[SimulatedPlayer]]] = {
    "flat": SimulatedPlayer, "counter": Counter, "cover": CoverCounter, "wonger": Wonger, "chaser": LossChaser,
    "hyper": HyperPlayer, "hyperfan": HyperFan,
}
