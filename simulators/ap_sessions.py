"""One simulated player's session through the table's own round engine, scored as the table would score it.

The table (`Table`, the engine the controller runs) is dealt by the simulation's `DealingShoe` (shuffle,
burns, the cut card, a lazy Fisher-Yates draw). The subject plays boxes 1 and 2; while he watches, a flat
basic-strategy player on box 7 is dealt the round. Every event the table gives is
folded by two `ShoeState`s: the subject's eyes (his count) and the table's record (the detection's). After
each round `facts_of_round` reads the settled round as the table recorded it, and `SessionScores` folds it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from simulators.ap_players import PLAYERS, UNIT_CENTS, SimulatedPlayer
from simulators.simulation import DealingShoe
from simulators.simulation_errors import ShoeExhaustedError, SimulationError
from table_runtime.game.decisions import insurance_cents
from table_runtime.game.events import Alarm, Event
from table_runtime.game.hand import Hand
from table_runtime.game.hyper import HyperCase
from table_runtime.game.inputs import (
    BetsLocked,
    BoxBet,
    Confirm,
    Double,
    HyperBet,
    Input,
    InsurancePlaced,
    Next,
    Split,
    Void,
)
from table_runtime.game.round import BANK, DEALING, INSURANCE, PLAYING, SETTLEMENT, Round
from table_runtime.game.rules import RuleOptions
from table_runtime.game.table import Table
from table_runtime.rating.detection import DetectionSettings, SessionScores
from table_runtime.rating.round_edge import LinearEdge
from table_runtime.rating.round_facts import facts_of_round
from table_runtime.rating.shoe_state import ShoeState
from table_runtime.strategy.chart import Action, Strategy

SUBJECT = "subject"
FILLER = "filler"
FILLER_BOX = 7
_CONFIRM = Confirm()
_NEXT = Next()
_DOUBLE = Double()
_SPLIT = Split()


class _WatchedTable(Table):
    """The engine's table, every event of every input shown to the shoe folds as it happens."""

    def __init__(self, rules: RuleOptions, watchers: Sequence[ShoeState]) -> None:
        super().__init__(rules)
        self.watchers = watchers

    def apply(self, item: Input) -> list[Event]:
        events = super().apply(item)
        for watcher in self.watchers:
            watcher.apply_all(events)
        return events


@dataclass(slots=True)
class SessionResult:
    """What one session gave: the round after which it was first flagged (0: never), by which scores, and
    the money figures of the rating (cents)."""

    kind: str
    rounds: int = 0
    first_flagged: int = 0
    flag_kinds: tuple[str, ...] = ()
    theo_cents: float = 0.0  # action x the profile's house edge
    expected_loss_cents: float = 0.0  # initial stakes x minus each round's edge (basic strategy, cards left)
    net_cents: int = 0
    action_cents: int = 0
    stake_cents: int = 0
    flags_at: dict[int, tuple[str, ...]] = field(default_factory=dict)


def _play(table: Table, shoe: DealingShoe, round_: Round, player: SimulatedPlayer, basic: Strategy,
          count: float) -> None:
    apply = table.apply
    while True:
        phase = round_.phase
        if phase == PLAYING:
            hand = round_.current_hand
            assert hand is not None
            action = _choose(round_, hand, player if hand.stakes[0].owner == SUBJECT else None, basic, count)
            if action is Action.HIT:
                shoe.draw()
            else:
                events = apply(_NEXT if action is Action.STAND else _DOUBLE if action is Action.DOUBLE else _SPLIT)
                if events and type(events[0]) is Alarm:
                    raise SimulationError(f"{action.name} refused: {events[0].message}")
        elif phase in (DEALING, BANK):
            shoe.draw()
        elif phase == INSURANCE:
            if player.insures(count):
                for box in round_.boxes:
                    if box.bet.owner == SUBJECT:
                        apply(InsurancePlaced(box=box.number, cents=insurance_cents(box.bet.seated_cents)))
            apply(_CONFIRM)
        elif phase == SETTLEMENT:
            return
        else:
            raise SimulationError(f"round {round_.number} left play in phase {phase}")


def _choose(round_: Round, hand: Hand, player: SimulatedPlayer | None, basic: Strategy, count: float) -> Action:
    cards = hand.cards
    if len(cards) < 2 or hand.doubled:
        return Action.HIT  # the hand waits for its card
    allowed = round_.allowed()
    can_double, can_split = "DOUBLE" in allowed, "SPLIT" in allowed
    pair = cards[0].value if len(cards) == 2 and cards[1].value == cards[0].value else None
    up = round_.bank.cards[0].value
    if player is None:
        return basic.decide(hand.total, hand.soft, pair, up, can_double, can_split)
    return player.action(hand.total, hand.soft, pair, up, len(cards), can_double, can_split, count)


def play_session(kind: str, rules: RuleOptions, strategy: Strategy, linear: LinearEdge, rounds: int, seed: int,
                 checkpoints: Sequence[int], house_edge: float, settings: DetectionSettings | None = None,
                 stop_when_flagged: bool = False, scores: frozenset[str] | None = None) -> SessionResult:
    """Play `rounds` rounds of one session of a `kind` player; flags are read after each checkpoint round.

    `stop_when_flagged`: end the session at the first checkpoint with a flag (the rounds after it change
    no "flagged by round N" figure). `scores`: the scores whose flags count (default: all).
    """
    rng = random.Random(f"ap-session/{kind}/{seed}")
    player = PLAYERS[kind](strategy, random.Random(f"ap-player/{kind}/{seed}"))
    eyes, record = ShoeState(rules.decks), ShoeState(rules.decks)
    table = _WatchedTable(rules, (eyes, record))
    shoe = DealingShoe(table, rng)
    session = SessionScores(strategy, settings)
    result = SessionResult(kind=kind)
    marks = set(checkpoints)
    while result.rounds < rounds:
        if shoe.needs_new_shoe:
            shoe.new_shoe()
            player.new_shoe()
        count = record.true_count
        edge = linear.edge(record.composition)
        chance = record.bank_blackjack_chance
        stakes = player.stakes(eyes.true_count)
        bets = [BoxBet(box=box, seated_cents=cents, owner=SUBJECT) for box, cents in enumerate(stakes, start=1)]
        hyper: tuple[HyperBet, ...] = ()
        if not bets:  # the dealer deals to the other player while the subject watches
            bets.append(BoxBet(box=FILLER_BOX, seated_cents=UNIT_CENTS, owner=FILLER))
        elif rules.hyper_blackjack and (cents := player.hyper_blackjack(eyes.bank_blackjack_chance)):
            hyper = (HyperBet(case=str(HyperCase.BLACKJACK), box=bets[0].box, cents=cents, owner=SUBJECT),)
        table.apply(BetsLocked(bets=tuple(bets), hyper=hyper))
        round_ = table.round
        if round_ is None or round_.phase != DEALING:
            raise SimulationError(f"bets refused: {stakes}")
        try:
            _play(table, shoe, round_, player, strategy, eyes.true_count)
        except ShoeExhaustedError:
            table.apply(Void(by="simulation", reason="shoe exhausted"))
            continue
        facts = facts_of_round(round_, SUBJECT, shoe=table.shoe.shoe_id, true_count=count, edge=edge,
                               bank_blackjack_chance=chance)
        table.apply(_CONFIRM)
        player.settled(facts.net_cents)
        session.update(facts)
        result.rounds += 1
        result.net_cents += facts.net_cents
        result.action_cents += facts.action_cents
        result.stake_cents += facts.stake_cents
        result.theo_cents += facts.action_cents * house_edge
        result.expected_loss_cents -= facts.stake_cents * edge
        if result.rounds in marks:
            kinds = tuple(flag.score for flag in session.flags() if scores is None or flag.score in scores)
            result.flags_at[result.rounds] = kinds
            if kinds and not result.first_flagged:
                result.first_flagged = result.rounds
                result.flag_kinds = kinds
                if stop_when_flagged:
                    break
    return result
