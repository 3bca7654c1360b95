"""The demo table with no transports: the simulated dealer's hands feed the controller directly.

Used by `table-runtime demo --fast`: the same controller, journal, game and
recovery as the live table, with the seeded shoe of the simulated firmware
drawn in-process instead of over a pty, so thousands of rounds run in seconds.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from simulators.dealer import Acknowledge, Draw, Insure, Intent, Lock, Press, Shuffle, SimulatedDealer
from simulators.seance_dealer import SeanceDealer, SeanceStep
from simulators.shoe_firmware import shuffled_shoe
from simulators.simulation_errors import SimulationError
from table_runtime.core.alarm_ledger import needs_supervisor
from table_runtime.core.commands import command_input
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.cards import Card
from table_runtime.game.commands import Command
from table_runtime.game.events import Alarm, Event, RoundClosed, RoundSettled, RoundVoided
from table_runtime.game.inputs import (
    CardDrawn,
    CutCardReached,
    InsurancePlaced,
    ShoeShuffled,
)
from table_runtime.game.shoe_count import shoe_id_of, shoe_number_of
from table_runtime.runtime.controller import TableController


class DirectShoe:
    """The seeded shoes of the simulated firmware, drawn in-process; resumable like the firmware."""

    def __init__(self, *, seed: int, decks: int, cut_cards_behind: int, shoe_number: int = 0,
                 cards_drawn: int = 0) -> None:
        self.seed = seed
        self.decks = decks
        self.cut_cards_behind = cut_cards_behind
        self.shoe_number = shoe_number
        self.cards: list[Card] = shuffled_shoe(seed, shoe_number, decks) if shoe_number else []
        self.cards_drawn = cards_drawn

    def shuffle(self) -> str:
        self.shoe_number += 1
        self.cards = shuffled_shoe(self.seed, self.shoe_number, self.decks)
        self.cards_drawn = 0
        return shoe_id_of(self.shoe_number)

    def draw(self) -> tuple[Card, bool]:
        """The next card, and whether the cut card came out right after it."""
        card = self.cards[self.cards_drawn]
        self.cards_drawn += 1
        cut_position = len(self.cards) - self.cut_cards_behind
        return card, self.cut_cards_behind > 0 and self.cards_drawn == cut_position


@dataclass
class RunSummary:
    """What a demo run did: rounds closed, alarms raised by kind, net per box in cents (players' side)."""

    rounds: int = 0
    alarms: dict[str, int] = field(default_factory=dict)
    net_by_box: dict[int, int] = field(default_factory=dict)
    recovered: bool = False
    players_net_by_seance: dict[int, int] = field(default_factory=dict)  # the players' net the demo counted


def refusal_in(events: list[Event]) -> str | None:
    """The message of the first command the table refused among `events`, or None."""
    return next((event.message for event in events
                 if isinstance(event, Alarm) and event.kind == AlarmKind.COMMAND_REFUSED), None)


class FastTable:
    """Runs rounds as fast as the controller and the journal allow."""

    def __init__(self, controller: TableController, *, seed: int, error_rate: float = 0.05,
                 seance_rounds: int = 0) -> None:
        self.controller = controller
        table = controller.table
        rules = table.rules
        self.shoe = DirectShoe(seed=seed, decks=rules.decks, cut_cards_behind=rules.cut_card_depth,
                               shoe_number=shoe_number_of(table.shoe.shoe_id), cards_drawn=table.shoe.dealt)
        self.dealer = SimulatedDealer(table, random.Random(f"dealer:{seed}:{controller.journal.last_seq}"),
                                      error_rate=error_rate)
        self.summary = RunSummary(recovered=controller.recovered)
        # The séances every `seance_rounds` rounds (0: none): the dealer's tray, fills, tips, buy-ins.
        self.seance = SeanceDealer(random.Random(f"seance:{seed}:{controller.journal.last_seq}"),
                                   rounds=seance_rounds, min_bet_cents=controller.table.limits.min_bet_cents,
                                   boxes=rules.boxes) if seance_rounds else None

    def run(self, rounds: int, *, on_round: Callable[[RunSummary], None] | None = None) -> RunSummary:
        steps_left = 1000 * max(rounds, 1)
        while self.summary.rounds < rounds:
            steps_left -= 1
            if steps_left < 0:
                raise SimulationError(f"the demo table made no progress: {self.summary.rounds} of {rounds} "
                                      "rounds in 1,000 steps a round")  # pragma: no cover - a bug guard
            intent = self.dealer.next_intent(self.controller.table)
            if self.seance is not None and isinstance(intent, Lock):  # between rounds, before the bets lock
                self._seance_steps(self.seance.steps(self.controller.core.seances))
            events = self.act(intent)
            self.dealer.saw(intent, refusal_in(events))
            for event in events:
                if isinstance(event, (RoundClosed, RoundVoided)):
                    self.summary.rounds += 1
                    if on_round is not None:
                        on_round(self.summary)
                elif isinstance(event, RoundSettled):
                    for payout in event.payouts:
                        self.summary.net_by_box[payout.box] = self.summary.net_by_box.get(payout.box, 0) + \
                            payout.net_cents
                    self._settled(sum(payout.net_cents for payout in event.payouts))
        if self.seance is not None and self.controller.core.seances.current is not None \
                and not self.controller.table.round_in_play:
            self._seance_steps([self.seance.close()])  # the demo's end closes its séance
        self.summary.alarms = dict(self.controller.alarms.counts)
        return self.summary

    def _settled(self, players_net_cents: int) -> None:
        """A round's settlement as the demo counts it: the dealer's tray, and the players' net of the séance."""
        if self.seance is None:
            return
        self.seance.settled(players_net_cents)
        current = self.controller.core.seances.current
        if current is not None:
            nets = self.summary.players_net_by_seance
            nets[current.number] = nets.get(current.number, 0) + players_net_cents

    def _seance_steps(self, steps: list[SeanceStep]) -> None:
        """The séance's commands, given on the display as the dealer or the supervisor; a refusal is a bug of the
        demo, never a loop. The identity the table asks for after a buy-in is recorded at once."""
        assert self.seance is not None
        for step in steps:
            reply = self.controller.press(step.command, dict(step.args), role=step.role, source="display")
            if not reply["ok"]:
                raise SimulationError(f"the simulated dealer's {step.command} was refused: {reply['message']}")
            self.seance.took(step)
            if step.command == Command.BUY_IN:
                self._seance_steps(self.seance.identities(self.controller.core.seances, self.controller.alarms.active))

    def act(self, intent: Intent) -> list[Event]:
        submit = self.controller.submit
        if isinstance(intent, Draw):
            card, cut = self.shoe.draw()
            events = submit(CardDrawn(card=card), source="shoe")
            if cut:
                events += submit(CutCardReached(), source="shoe")
            return events
        if isinstance(intent, Press):
            item = command_input(Command(intent.command), by="dealer", behind_following=intent.behind_following)
            return submit(item, source="panel")  # the dealer's players say who follows: no chips here
        if isinstance(intent, Lock):
            return submit(intent.bets, source="chips")
        if isinstance(intent, Insure):
            return submit(InsurancePlaced(box=intent.box, cents=intent.cents), source="chips")
        if isinstance(intent, Shuffle):
            return submit(ShoeShuffled(shoe_id=self.shoe.shuffle()), source="shoe")
        if isinstance(intent, Acknowledge):
            for alarm in self.controller.alarms.active:  # the pit supervisor of the demo clears the serious ones
                by = "supervisor" if needs_supervisor(str(alarm["kind"])) else "dealer"
                self.controller.acknowledge(int(alarm["id"]), by=by)
            return []
        raise TypeError(intent)  # pragma: no cover
