"""What a round holds, and what it answers: whose turn, where the next card goes, what the rules allow now.

The transitions that change it are in round.py (`Round`, a `RoundState`).
"""

from __future__ import annotations

from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.bank import bank_draw_target, bank_needs_card
from table_runtime.game.box import BoxState
from table_runtime.game.cards import Card
from table_runtime.game.commands import Command
from table_runtime.game.decisions import bet_problems, double_refusal, split_refusal, stand_refusal
from table_runtime.game.events import Alarm, Event, HyperFieldSettled, Payout
from table_runtime.game.hand import Hand
from table_runtime.game.held import HeldCards
from table_runtime.game.hyper import bank_result
from table_runtime.game.hyper_settlement import hyper_bank_alarm, hyper_bet_problems, hyper_payouts, ordered_payouts
from table_runtime.game.inputs import BetsLocked, HyperBet
from table_runtime.game.phases import BANK, BETTING, DEALING, IN_PLAY, INSURANCE, PLAYING, SETTLEMENT, Phase
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.game.settlement import round_payouts
from table_runtime.game.surrender import surrender_refusal
from table_runtime.game.undo import UndoEntry, undo_refusal


class RoundState:
    """One round's state: its phase, boxes, hands, bank and undo log (the table's held cards too), and what
    they answer: whose turn it is, where the next card goes, what the rules allow now. `Round` changes it."""

    def __init__(self, rules: RuleOptions, limits: TableLimits, number: int, held: HeldCards | None = None) -> None:
        self.rules = rules
        self.limits = limits
        self.number = number
        self.phase: Phase = BETTING
        self.boxes: list[BoxState] = []
        self._box_by_number: dict[int, BoxState] = {}
        self.hands: list[Hand] = []  # in play order: box order, then split order
        self.bank = Hand(0, [])
        self.deal_index = 0
        self.deal_count = 0
        self._held = HeldCards() if held is None else held  # the table's (held.py)
        self.paid_early: set[int] = set()  # id() of hands whose blackjack was paid at once (pay_blackjack_before_bank)
        self.payouts: tuple[Payout, ...] = ()  # in the settlement's order (game/hyper_settlement.py)
        self.hyper_bets: tuple[HyperBet, ...] = ()  # the stakes on the hyper black jack field (55-4 6°)
        self._undo: list[UndoEntry] = []  # undo.py
        self._cursor = 0
        self._turn: tuple[int, int] | None = None
        self._charlie = rules.ten_card_charlie
        self._hits_soft_17 = rules.dealer_hits_soft_17
        # Fixed while the round is in a phase, so computed once on entering it instead of per card:
        self._deal_order: list[Hand] = []  # the hand of each card of the deal (set by the bet lock)
        self._bank_target = 0  # bank_draw_target() while the bank plays (the hands are finished; UNDO recomputes)

    @property
    def current_hand(self) -> Hand | None:
        """The hand whose turn it is (playing phase only)."""
        if self.phase is not PLAYING or self._cursor >= len(self.hands):
            return None
        return self.hands[self._cursor]

    @property
    def turn(self) -> tuple[int, int] | None:
        """(box, hand index within the box) whose turn it is, or None."""
        hand = self.current_hand
        return None if hand is None else (hand.box, hand.index)

    def box(self, number: int) -> BoxState | None:
        return self._box_by_number.get(number)

    @property
    def held(self) -> list[tuple[Card, str]]:
        """(card, reason) of the cards this round holds (the table's HeldCards keeps them)."""
        return self._held.of_round

    @staticmethod
    def target_name(hand: Hand) -> str:
        """``boxN.handK`` or ``bank``."""
        return hand.name

    @property
    def bank_up_card(self) -> Card | None:
        return self.bank.cards[0] if self.bank.cards else None

    def bank_draw_target(self) -> int:
        """How far the bank draws once the hands are finished (bank.py)."""
        return bank_draw_target(self.hands, self.boxes, self.paid_early, self._charlie, hyper=bool(self.hyper_bets))

    @property
    def bank_must_draw(self) -> bool:
        if self.phase is not BANK:
            return False
        return bank_needs_card(self.bank, self._bank_target, self._hits_soft_17)

    def _bet_problems(self, event: BetsLocked) -> list[Event]:
        """Every reason the bets cannot be locked: the boxes' (decisions.py) and the hyper field's (55-4 6°)."""
        return [*bet_problems(event.bets, self.rules, self.limits),
                *hyper_bet_problems(event.hyper, event.bets, self.rules, self.limits)]

    def _final_payouts(self, out: list[Event]) -> tuple[Payout, ...]:
        """Every payout once the bank has finished (settlement.py), in the settlement's order with the hyper
        field's (hyper_settlement.py: the hyper stakes lost first, won last), the bank's final result named."""
        payouts = round_payouts(self.boxes, self.bank, self.paid_early, self.rules)
        if not self.hyper_bets:
            return payouts
        result = bank_result(self.bank.total, len(self.bank.cards))  # final: the bank drew to 17 for the field
        out.append(HyperFieldSettled(round=self.number, result=result,
                                     staked_cents=sum(bet.cents for bet in self.hyper_bets)))
        return ordered_payouts(payouts, hyper_payouts(self.hyper_bets, result))

    def _bank_must_draw(self) -> Alarm:
        """CONFIRM while the bank must draw; with the hyper field's reason when only the field makes it draw (every
        box decided: 55-4 6°, the bank completes its hand for the field)."""
        total = self.bank.total
        without_field = bank_draw_target(self.hands, self.boxes, self.paid_early, self._charlie)
        if self.hyper_bets and not bank_needs_card(self.bank, without_field, self._hits_soft_17):
            return hyper_bank_alarm(total, self.hyper_bets)
        return Alarm(kind=AlarmKind.BANK_MUST_DRAW, message=f"CONFIRM refused: the bank has {total} and must draw",
                     rule=citations.BANK_DRAWS, amounts=(("bank_total", total),))

    def _deal_target(self) -> Hand:
        """Box order, the bank, box order again (art. 55-4 « Déroulement de la partie »; no hole card: the houses'
        texts)."""
        return self._deal_order[self.deal_index]

    @property
    def next_card_target(self) -> str:
        """Where the next card from the shoe goes: ``boxN.handK``, ``bank`` or ``none``."""
        if self.phase is DEALING:
            return self.target_name(self._deal_target())
        hand = self.current_hand
        if hand is not None:
            return self.target_name(hand)
        if self.bank_must_draw:
            return "bank"
        return "none"

    def allowed(self) -> list[Command]:
        """The dealer commands that the rules allow now (a `StrEnum`: the snapshot keeps its plain strings)."""
        allowed = []
        hand = self.current_hand
        if hand is not None:
            if stand_refusal(hand) is None:
                allowed.append(Command.NEXT)
            if double_refusal(hand, self.rules) is None:
                allowed.append(Command.DOUBLE)
            if split_refusal(hand, self.rules, self._box_by_number.get(hand.box)) is None:
                allowed.append(Command.SPLIT)
            if self.rules.surrender and surrender_refusal(hand, self.rules, self.bank_up_card) is None:
                allowed.append(Command.SURRENDER)
        if self.phase in IN_PLAY and (undo_refusal(self._undo) is None
                                      or self._held.newest_since(len(self._undo)) is not None):
            allowed.append(Command.UNDO)
        if self.phase is INSURANCE or (self.phase is SETTLEMENT and not self._held.round_holds):
            allowed.append(Command.CONFIRM)
        if self.phase in IN_PLAY:
            allowed.append(Command.VOID)
        if self._held.cards:
            allowed.append(Command.DISCARD)
        return allowed
