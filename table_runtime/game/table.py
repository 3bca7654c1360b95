"""The table: the shoe and the sequence of rounds. `replay(inputs)` rebuilds it exactly.

This is the single entry point of the pure core: `Table.apply(input)` returns
the events that input caused. The runtime journals the input first, then
applies it, then journals the events.
"""

from __future__ import annotations

from collections.abc import Iterable

from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.cards import Card
from table_runtime.game.commands import Command
from table_runtime.game.events import Alarm, CardBurned, CardsDiscarded, CutCardSeen, Event, ShoeStarted
from table_runtime.game.held import HeldCards
from table_runtime.game.inputs import (
    BetsLocked,
    CardDrawn,
    Confirm,
    CutCardReached,
    Discard,
    Double,
    Input,
    InsurancePlaced,
    Next,
    ShoeShuffled,
    Split,
    Surrender,
    Undo,
    Void,
)
from table_runtime.game.phases import BETTING, CLOSED, IN_PLAY, Phase
from table_runtime.game.refusals import NO_HELD_CARD, RefusalReason
from table_runtime.game.round import Round
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.game.shoe_count import ShoeAccount

PLAY_STOPPED = "play_stopped"  # why a card is held: drawn while play is stopped
STOPPED_RULE = citations.PLAY_STOPPED


class Table:
    """The shoe account, the current round, and cards that came out between rounds."""

    def __init__(self, rules: RuleOptions, limits: TableLimits | None = None) -> None:
        self.rules = rules
        self.limits = limits or TableLimits()
        self.shoe = ShoeAccount(rules.decks)
        self.round: Round | None = None
        self.rounds_started = 0
        self.held_cards = HeldCards()  # every card out of the shoe that no hand took, the round's too (held.py)

    @property
    def phase(self) -> Phase:
        return BETTING if self.round is None else self.round.phase

    @property
    def stray(self) -> list[tuple[Card, str]]:
        """(card, reason) of the cards held with no round in play to take them."""
        return self.held_cards.between_rounds

    @property
    def next_card_target(self) -> str:
        """Where the next card out of the shoe goes: ``burn``, ``boxN.handK``, ``bank`` or ``none``."""
        shoe = self.shoe
        if shoe.loaded and shoe.burns_left:
            return "burn"
        round_ = self.round
        if round_ is None or round_.phase not in IN_PLAY:
            return "none"
        return round_.next_card_target

    def allowed(self) -> list[Command]:
        """The dealer commands that the rules allow now (DISCARD whenever a card is held)."""
        if self.round is not None:
            return self.round.allowed()
        return [Command.DISCARD] if self.held_cards.cards else []

    @property
    def round_in_play(self) -> bool:
        return self.round is not None and self.round.phase in IN_PLAY

    def apply(self, item: Input) -> list[Event]:
        out: list[Event] = []
        if isinstance(item, CardDrawn):
            self._card(item, out)
        elif isinstance(item, (Next, Double, Split, Surrender, Undo, Confirm, Void)):
            if self.round is None:
                out.append(Alarm(kind=AlarmKind.COMMAND_REFUSED, rule=citations.ROUND,
                                 message=f"{type(item).__name__.upper()} refused: no round",
                                 reason=RefusalReason.NO_ROUND))
            else:
                self.round.command(item, out)
        elif isinstance(item, Discard):
            self._discard(item, out)
        elif isinstance(item, BetsLocked):
            self._lock(item, out)
        elif isinstance(item, InsurancePlaced):
            if self.round is None:
                out.append(Alarm(kind=AlarmKind.INSURANCE_REFUSED,
                                 rule=citations.INSURANCE_IN_ROUND,
                                 message=f"insurance of {item.cents} cents on box {item.box} refused: no round in play",
                                 box=item.box, amounts=(("seen_cents", item.cents),)))
            else:
                self.round.insurance(item, out)
        elif isinstance(item, ShoeShuffled):
            self._shuffle(item, out)
        elif isinstance(item, CutCardReached):
            self.shoe.cut_card_reached = True
            out.append(CutCardSeen())
        return out

    def _card(self, item: CardDrawn, out: list[Event]) -> None:
        card = item.card
        shoe = self.shoe
        round_ = self.round
        in_play = round_ is not None and round_.phase in IN_PLAY
        if not shoe.loaded:
            self._stray(card, "no_shoe", out, Alarm(
                kind=AlarmKind.NO_SHOE, message=f"card {card} drawn before a shuffled shoe was reported",
                rule=citations.SHOE_INTEGRITY))
            return
        if not shoe.take(card):
            alarm = Alarm(kind=AlarmKind.CARD_OVERCOUNT, rule=citations.decks(shoe.decks),
                          message=f"card {card} seen {shoe.seen(card) + 1} times; the shoe holds {shoe.decks}",
                          amounts=(("seen", shoe.seen(card) + 1), ("held_by_shoe", shoe.decks)))
            if in_play:
                assert round_ is not None
                round_.hold(card, "overcount", out, alarm)
            else:
                self._stray(card, "overcount", out, alarm)
            return
        if shoe.burns_left:
            shoe.burns_left -= 1
            out.append(CardBurned(card=card, burns_left=shoe.burns_left))
            return
        if in_play:
            assert round_ is not None
            round_.card(card, out)
            return
        self._stray(card, "no_bets", out, Alarm(
            kind=AlarmKind.CARD_NO_HAND, message=f"card {card} drawn with no bets locked: no hand may take it",
            rule=citations.BETS_LOCKED))

    def hold_while_stopped(self, card: Card, why: str) -> list[Event]:
        """A card out of the shoe while play is stopped (core/alarm_ledger.py): counted in the shoe's account (the
        count check still holds) and held with an alarm, dealt to no hand; DISCARD takes it once play resumes."""
        out: list[Event] = []
        if self.shoe.loaded:
            self.shoe.take(card)  # one more than the shoe holds is still one more card out of it
        alarm = Alarm(kind=AlarmKind.PLAY_STOPPED, rule=STOPPED_RULE,
                      message=f"card {card} drawn while play is stopped ({why}): held, dealt to no hand")
        round_ = self.round
        if round_ is not None and round_.phase in IN_PLAY:
            round_.hold(card, PLAY_STOPPED, out, alarm)
        else:
            self._stray(card, PLAY_STOPPED, out, alarm)
        return out

    def _stray(self, card: Card, reason: str, out: list[Event], alarm: Alarm) -> None:
        self.held_cards.hold_between_rounds(card, reason, alarm, out)

    def _discard(self, item: Discard, out: list[Event]) -> None:
        held = self.held_cards
        if held.loose and not held.round_holds:  # the round's held cards go first
            out.append(CardsDiscarded(cards=held.discard_between_rounds(), by=item.by))
        elif self.round is not None:
            self.round.command(item, out)
        else:
            out.append(Alarm(kind=AlarmKind.COMMAND_REFUSED, message=f"DISCARD refused: {NO_HELD_CARD.text}",
                             rule=citations.CORRECTIONS, reason=NO_HELD_CARD.reason))

    def _lock(self, item: BetsLocked, out: list[Event]) -> None:
        if self.round_in_play:
            assert self.round is not None
            out.append(Alarm(kind=AlarmKind.COMMAND_REFUSED, rule=citations.BETS_LOCKED,
                             message=f"bets refused: round {self.round.number} is still in phase {self.round.phase}",
                             reason=RefusalReason.WRONG_PHASE))
            return
        shoe = self.shoe
        reason = None
        if not shoe.loaded:
            reason = "no shoe has been shuffled and loaded"
        elif shoe.cut_card_reached:
            reason = "the cut card came out: a new shoe first (house option cut_card_depth)"
        elif self.rules.shuffle_every_round and shoe.rounds:
            reason = "these rules shuffle after every round (house option shuffle_every_round)"
        if reason is not None:
            out.append(Alarm(kind=AlarmKind.NEW_SHOE_NEEDED, message=f"bets refused: {reason}",
                             rule=citations.SHOE_FOR_ROUND))
            return
        candidate = Round(self.rules, self.limits, self.rounds_started + 1, self.held_cards)
        candidate.lock(item, out)
        if candidate.phase is not BETTING:
            self.held_cards.new_round()
            self.round = candidate
            self.rounds_started += 1
            shoe.rounds += 1

    def _shuffle(self, item: ShoeShuffled, out: list[Event]) -> None:
        if self.round_in_play:
            out.append(Alarm(kind=AlarmKind.SHUFFLE_MID_ROUND,
                             rule=citations.NEW_SHOE_AFTER_ROUND,
                             message=f"shoe {item.shoe_id} loaded while round {self.rounds_started} is in play"))
        self.shoe.start(item.shoe_id, self.rules.burn_cards)
        out.append(ShoeStarted(shoe_id=item.shoe_id, burn_cards=self.rules.burn_cards))

    @property
    def round_closed(self) -> bool:
        return self.round is not None and self.round.phase is CLOSED


def replay(rules: RuleOptions, inputs: Iterable[Input], limits: TableLimits | None = None) -> Table:
    """The table after `inputs`, applied in order from a fresh start."""
    table = Table(rules, limits)
    for item in inputs:
        table.apply(item)
    return table
