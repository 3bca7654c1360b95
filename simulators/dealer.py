"""The simulated dealer and the players at the demo table.

`SimulatedDealer.next_intent(table)` looks at the table as the dealer sees it
and says what the dealer's hands do next: shuffle, draw a card, lock the
bets the players placed, press a button, pay out. It keeps no memory of the
round beyond a queue of planned corrections, so a restarted demo picks up the
round from the journal where it stopped. Sometimes it errs (a card too many,
CONFIRM too early, a card for a bank that must stand) and then corrects itself,
so the display and the feed show alarms and corrections.

Whatever the table holds, it has a way on: a card no hand may take (one seen
too often, from a shoe the journal does not know) goes to the discard rack,
the alarms go to whoever may acknowledge them. The hands that carry its intents
out tell it (`saw`) when the table refused one; the same intent refused
`MAX_REFUSALS` times in a row stops the demo with the reason, never a loop.
"""

from __future__ import annotations

import dataclasses
import random
from collections import deque
from dataclasses import dataclass

from simulators.players import BasicStrategyPlayer, RandomBettor, decide
from table_runtime.errors import TableError
from table_runtime.game.held import WAITING_REASONS
from table_runtime.game.inputs import BetsLocked, Double, Split, Surrender
from table_runtime.game.round import Round
from table_runtime.game.table import Table

MAX_REFUSALS = 3  # the same intent refused this many times in a row: the dealer stops instead of looping


class DealerStuckError(TableError, RuntimeError):
    """The table refused the simulated dealer's same intent again and again: the demo stops, saying why."""

    def __init__(self, intent: object, refusal: str, times: int) -> None:
        super().__init__(f"the simulated dealer stopped: {_name(intent)} refused {times} times in a row ({refusal})")
        self.intent = intent
        self.refusal = refusal
        self.times = times


def _name(intent: object) -> str:
    return intent.command if isinstance(intent, Press) else type(intent).__name__


@dataclass(frozen=True, slots=True)
class Shuffle:
    """Load and shuffle a new shoe."""


@dataclass(frozen=True, slots=True)
class Draw:
    """Pull the next card out of the shoe."""


@dataclass(frozen=True, slots=True)
class Lock:
    """The players' chips are down: NO MORE BETS."""

    bets: BetsLocked


@dataclass(frozen=True, slots=True)
class Insure:
    box: int
    cents: int


@dataclass(frozen=True, slots=True)
class Press:
    """A dealer button: NEXT, DOUBLE, SPLIT, UNDO, CONFIRM, DISCARD."""

    command: str
    behind_following: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Acknowledge:
    """The dealer acknowledges every alarm on the banner."""


Intent = Shuffle | Draw | Lock | Insure | Press | Acknowledge


class SimulatedDealer:
    """Deals by the table's procedure (docs/rules.md "The table's procedure") for basic-strategy players with random
    stakes."""

    def __init__(self, table: Table, rng: random.Random, *, error_rate: float = 0.05,
                 insurance_rate: float = 0.1, behind_chance: float = 0.25, hyper_chance: float = 0.3) -> None:
        self.rng = rng
        self.error_rate = error_rate
        self.insurance_rate = insurance_rate
        self.player = BasicStrategyPlayer.for_rules(table.rules)
        # Where the rules open the hyper black jack field (55-4 6°), some seated players stake a few of its cases.
        self.bettor = RandomBettor(rng, table.limits, behind_chance=behind_chance,
                                   hyper_chance=hyper_chance if table.rules.hyper_blackjack else 0.0)
        self._planned: deque[Intent] = deque()
        self._insurance_asked: set[tuple[int, int]] = set()
        self._refused: Intent | None = None
        self._refusals = 0

    def saw(self, intent: Intent, refusal: str | None) -> None:
        """What the table made of `intent`: None when it took it, else the refusal's message.

        Raises `DealerStuckError` once the same intent was refused `MAX_REFUSALS` times in a row.
        """
        if refusal is None:
            self._refused, self._refusals = None, 0
            return
        self._refusals = self._refusals + 1 if intent == self._refused else 1
        self._refused = intent
        self._planned.clear()  # a correction planned for a table that did not follow is no longer right
        if self._refusals >= MAX_REFUSALS:
            raise DealerStuckError(intent, refusal, self._refusals)

    def _erring(self) -> bool:
        return self.error_rate > 0 and self.rng.random() < self.error_rate

    def next_intent(self, table: Table) -> Intent:
        if self._planned:
            return self._planned.popleft()
        round_ = table.round
        shoe = table.shoe
        if table.stray or (round_ is not None and round_.held and round_.phase != "playing"):
            return Press("DISCARD")
        if round_ is None or round_.phase in ("closed", "voided"):
            if not shoe.loaded or shoe.cut_card_reached or (table.rules.shuffle_every_round and shoe.rounds):
                return Shuffle()
            if shoe.burns_left:
                return Draw()
            return self._bets(table)
        return self._in_round(table, round_)

    def _bets(self, table: Table) -> Intent:
        rules = table.rules
        count = self.rng.randint(rules.min_boxes_to_deal, rules.boxes)
        boxes = tuple(sorted(self.rng.sample(range(1, rules.boxes + 1), count)))
        bets = self.bettor.bets(boxes)
        if rules.no_behind_while_seat_vacant and count < rules.boxes:
            # The director forbids playing behind while a seat is vacant (55-4 as amended in 2020): the players
            # standing behind wait for a full table rather than have the deal refused.
            bets = dataclasses.replace(bets, bets=tuple(dataclasses.replace(bet, behind=()) for bet in bets.bets))
        return Lock(bets)

    def _in_round(self, table: Table, round_: Round) -> Intent:
        phase = round_.phase
        if phase == "dealing":
            return Draw()
        if phase == "insurance":
            for box in round_.boxes:
                key = (round_.number, box.number)
                if key not in self._insurance_asked:
                    self._insurance_asked.add(key)
                    half = box.bet.seated_cents // 2
                    if half % 100 == 0 and self.rng.random() < self.insurance_rate:  # payable in whole-euro chips
                        return Insure(box.number, half)
            return Press("CONFIRM")
        if phase == "playing":
            return self._play(round_)
        if phase == "bank":
            if self._erring():
                return Press("CONFIRM")  # too early: the bank must still draw (an alarm)
            return Draw()
        if phase == "settlement":
            if round_.held:
                return Press("DISCARD")
            if self._erring():
                self._planned.extend([Press("DISCARD"), Acknowledge(), Press("CONFIRM")])
                return Draw()  # a card for a bank that must stand (an alarm), then discarded
            self._planned.append(Press("CONFIRM"))
            return Acknowledge()
        return Press("CONFIRM")

    def _play(self, round_: Round) -> Intent:
        hand = round_.current_hand
        assert hand is not None
        if round_.held:
            if all(reason in WAITING_REASONS for _, reason in round_.held) and "NEXT" in round_.allowed():
                return Press("NEXT")  # the held card (after UNDO) goes to the next hand
            return Press("DISCARD")  # a card no hand may take (seen too often), or a hand that may not stand
        decision = decide(round_, self.player)
        following = tuple(stake.owner for stake in hand.base_stakes()[1:] if self.rng.random() < 0.7)
        if decision is None:
            return Draw()
        if isinstance(decision, Double):
            return Press("DOUBLE", following)
        if isinstance(decision, Split):
            return Press("SPLIT", following)
        if isinstance(decision, Surrender):  # the players behind undergo it (game/surrender.py)
            return Press("SURRENDER")
        if self._erring():
            self._planned.append(Press("UNDO"))
            return Draw()  # the player stood but the dealer drew: UNDO, then NEXT gives it to the next hand
        return Press("NEXT")
