"""The round: one round of the no-hole-card French game, from the bet lock to the closing CONFIRM.

The table (table.py) hands each input to the round's method for it: `lock`
(the bets), `card` (a card out of the shoe), `insurance`, `command` (a dealer
command). Each changes the round and appends the events it caused to `out`.
None raises on a dealer error: a card that no hand may take, a command the
rules forbid, a command in the wrong phase are alarms, and a refused command
leaves the round unchanged. The round is rebuilt after a restart by replaying
the journaled inputs (the events journaled beside them are what the feed,
the display and recall read, never folded back into state): the same inputs
give the same round.

What the round holds and answers (whose turn, the next card's hand, the
commands allowed) is in round_state.py; the phases in phases.py; what the
rules allow a hand in decisions.py; what the bank draws in bank.py; what UNDO
takes back in undo.py; held cards in held.py (the table's one list). Which
hand takes the next card is derived from the hands (the first one not
finished), so UNDO only has to take back the last action.
"""

from __future__ import annotations

from typing import Final

from table_runtime.game import citations, refusals
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.bank import bank_needs_card, why_bank_stands
from table_runtime.game.box import BoxState
from table_runtime.game.cards import Card
from table_runtime.game.commands import ROUND_COMMANDS
from table_runtime.game.decisions import (
    double_refusal,
    insurance_cents,
    insurance_fault,
    matching_stakes,
    split_refusal,
    stand_refusal,
)
from table_runtime.game.events import (
    ActionUndone,
    Alarm,
    BlackjackPaidEarly,
    CardsDiscarded,
    Event,
    HandDoubled,
    HandSplit,
    HandSurrendered,
    InsuranceTaken,
    RoundClosed,
    RoundSettled,
    RoundStarted,
    RoundVoided,
)
from table_runtime.game.hand import Hand
from table_runtime.game.held import INSURANCE_OPEN
from table_runtime.game.inputs import (
    BetsLocked,
    Confirm,
    Discard,
    Double,
    InsurancePlaced,
    Next,
    Split,
    Surrender,
    Undo,
    Void,
)

# The phases are defined in phases.py; importable from here too, as before it existed.
from table_runtime.game.phases import BANK as BANK
from table_runtime.game.phases import BETTING, Phase
from table_runtime.game.phases import CLOSED as CLOSED
from table_runtime.game.phases import DEALING as DEALING
from table_runtime.game.phases import IN_PLAY as IN_PLAY
from table_runtime.game.phases import INSURANCE as INSURANCE
from table_runtime.game.phases import PLAYING as PLAYING
from table_runtime.game.phases import SETTLEMENT as SETTLEMENT
from table_runtime.game.phases import VOIDED as VOIDED
from table_runtime.game.recurring import PHASE_CHANGED, card_assigned, hand_stood, turn_changed
from table_runtime.game.round_state import RoundState
from table_runtime.game.settlement import early_blackjack_payouts
from table_runtime.game.surrender import RULE as SURRENDER_RULE
from table_runtime.game.surrender import returned_cents, surrender_refusal
from table_runtime.game.undo import CARD, DOUBLE, NOTHING_TO_UNDO, SPLIT, STAND, SURRENDER, take_back, undo_refusal

COMMANDS: Final = ROUND_COMMANDS  # defined once, in game/commands.py (Final: a constant to a mypyc build)


class Round(RoundState):
    """One round, from the bet lock to the closing CONFIRM: the transitions (what each input changes)."""

    # ------------------------------------------------------------------ inputs

    def lock(self, event: BetsLocked, out: list[Event]) -> None:
        """No more bets: check the limits and start the deal, or raise alarms and stay in betting."""
        if self.phase is not BETTING:
            out.append(_wrong_phase("BetsLocked", self.phase))
            return
        problems = self._bet_problems(event)
        if problems:
            out.extend(problems)
            return
        self.boxes = [BoxState(bet) for bet in sorted(event.bets, key=lambda bet: bet.box)]
        self._box_by_number = {box.number: box for box in self.boxes}
        self.hyper_bets = event.hyper
        self.hands = [box.hands[0] for box in self.boxes]
        # box order, the bank, box order (art. 55-4 « Déroulement de la partie »)
        self._deal_order = [*self.hands, self.bank, *self.hands]
        self.deal_count = len(self._deal_order)
        out.append(RoundStarted(round=self.number, boxes=tuple(box.number for box in self.boxes),
                                total_cents=sum(box.bet.total_cents for box in self.boxes)))
        self._set_phase(DEALING, out)

    def card(self, card: Card, out: list[Event]) -> None:
        """A card out of the shoe: to the hand that must take it, or held with an alarm."""
        phase = self.phase
        if phase is DEALING or phase is PLAYING or (
                phase is BANK and bank_needs_card(self.bank, self._bank_target, self._hits_soft_17)):
            self._route(card, out)
            return
        if phase is INSURANCE:
            self.hold(card, INSURANCE_OPEN, out, Alarm(
                kind=AlarmKind.INSURANCE_OPEN,
                message=f"card {card} drawn while the insurance window is open: CONFIRM closes it first",
                rule=citations.ROUND_INSURANCE))
        elif phase is BANK or phase is SETTLEMENT:
            bank = self.bank
            self.hold(card, "bank_must_stand", out, Alarm(
                kind=AlarmKind.BANK_MUST_STAND,
                message=f"card {card} drawn for the bank, which {why_bank_stands(bank)} "
                        f"({' '.join(map(str, bank.cards))})",
                rule=citations.BANK_STANDS, amounts=(("bank_total", bank.total),)))
        else:
            self.hold(card, "no_hand", out, Alarm(
                kind=AlarmKind.CARD_NO_HAND,
                message=f"card {card} drawn in phase {phase}: no hand may take a card",
                rule=citations.DRAW_ERRORS))

    def insurance(self, event: InsurancePlaced, out: list[Event]) -> None:
        box = self.box(event.box)
        expected = insurance_cents(box.bet.seated_cents) if box is not None else 0
        refusal = insurance_fault(self.phase is INSURANCE, self.phase, event.box, box, event.cents)
        if refusal is not None:
            out.append(Alarm(kind=AlarmKind.INSURANCE_REFUSED, message=refusal, rule=citations.INSURANCE_HALF,
                             box=event.box, amounts=(("expected_cents", expected), ("seen_cents", event.cents))))
            return
        assert box is not None
        box.insurance = event.cents
        out.append(InsuranceTaken(box=box.number, cents=event.cents))

    def command(self, command: Next | Double | Split | Surrender | Undo | Confirm | Void | Discard,
                out: list[Event]) -> None:
        if isinstance(command, Next):
            self._stand(out)
        elif isinstance(command, Surrender):
            self._surrender(out)
        elif isinstance(command, Double):
            self._double(command, out)
        elif isinstance(command, Split):
            self._split(command, out)
        elif isinstance(command, Undo):
            self._undo_last(command, out)
        elif isinstance(command, Confirm):
            self._confirm(out)
        elif isinstance(command, Void):
            self._void(command, out)
        else:
            self._discard(command, out)

    # ---------------------------------------------------------------- routing

    def _route(self, card: Card, out: list[Event]) -> None:
        """Give `card` to the hand that must take it now (the phase allows a card)."""
        phase = self.phase
        dealing = phase is DEALING
        if dealing:
            hand = self._deal_order[self.deal_index]
            self.deal_index += 1
        elif phase is PLAYING:
            hand = self.hands[self._cursor]
        else:
            hand = self.bank
        hand.add(card)
        self._undo.append((CARD, hand, None, dealing))
        out.append(card_assigned(card, hand.name))
        if dealing:
            if self.deal_index == self.deal_count:
                self._after_deal(out)
        elif phase is not PLAYING or hand.finished(self._charlie):
            self._advance(out)
        # else: the hand that took the card keeps the turn, announced when it got it: nothing moves

    def hold(self, card: Card, reason: str, out: list[Event], alarm: Alarm) -> None:
        """Hold `card` for this round, with the alarm that says why."""
        self._held.hold(card, reason, alarm, out, len(self._undo))

    def _drain(self, out: list[Event]) -> None:
        """Held cards that waited for the dealer's decision go where the next card goes."""
        held = self._held
        if len(held.cards) == held.loose:
            return
        while (card := held.next_waiting()) is not None:
            phase = self.phase
            if not (phase is DEALING or phase is PLAYING or self.bank_must_draw):
                return
            held.take_waiting()
            self._route(card, out)

    def _after_deal(self, out: list[Event]) -> None:
        up = self.bank.cards[0]
        if up.is_ace:
            self._set_phase(INSURANCE, out)  # art. 55-4 « Assurance »
            return
        if self.rules.pay_blackjack_before_bank:
            for hand in self.hands:
                if hand.blackjack:
                    self.paid_early.add(id(hand))
                    paid = early_blackjack_payouts(hand, self.rules)
                    out.append(BlackjackPaidEarly(box=hand.box, hand=0, staked_cents=hand.stake_total(),
                                                  cents=sum(payout.net_cents for payout in paid)))
        self._start_play(out)

    def _start_play(self, out: list[Event]) -> None:
        self._cursor = 0
        self._set_phase(PLAYING, out)
        self._advance(out)

    def _advance(self, out: list[Event]) -> None:
        """Move the turn past finished hands; then the bank; then settlement."""
        if self.phase is PLAYING:
            hands = self.hands
            charlie = self._charlie
            cursor = self._cursor
            while cursor < len(hands) and hands[cursor].finished(charlie):
                cursor += 1
            self._cursor = cursor
            if cursor < len(hands):
                self._announce_turn(out)
                return
            self._announce_turn(out)
            self._set_phase(BANK, out)
            self._bank_target = self.bank_draw_target()
        if self.phase is BANK and not bank_needs_card(self.bank, self._bank_target, self._hits_soft_17):
            self._settle(out)

    def _announce_turn(self, out: list[Event]) -> None:
        turn = self.turn
        if turn != self._turn:
            self._turn = turn
            out.append(turn_changed(turn))

    def _set_phase(self, phase: Phase, out: list[Event]) -> None:
        if phase is not self.phase:
            self.phase = phase
            out.append(PHASE_CHANGED[phase])

    def _settle(self, out: list[Event]) -> None:
        bank = self.bank
        self.payouts = self._final_payouts(out)
        self._set_phase(SETTLEMENT, out)
        out.append(RoundSettled(round=self.number, bank_total=bank.total, bank_blackjack=bank.blackjack,
                                payouts=self.payouts))

    # --------------------------------------------------------------- commands

    def _refuse(self, command: str, refusal: refusals.Refusal, out: list[Event], rule: str,
                box: int | None = None) -> None:
        out.append(Alarm(kind=AlarmKind.COMMAND_REFUSED, message=f"{command} refused: {refusal.text}", rule=rule,
                         box=box, reason=refusal.reason))

    def _current_or_refuse(self, command: str, out: list[Event]) -> Hand | None:
        hand = self.current_hand
        if hand is None:
            self._refuse(command, refusals.no_hand_playing(self.phase), out, citations.IN_TURN)
        return hand

    def _stand(self, out: list[Event]) -> None:
        hand = self._current_or_refuse("NEXT", out)
        if hand is None:
            return
        refusal = stand_refusal(hand)
        if refusal is not None:
            self._refuse("NEXT", refusal, out, citations.PLAYER_STANDS, hand.box)
            return
        hand.stood = True
        self._end_turn(hand, STAND, hand_stood(hand.box, hand.index), out)

    def _surrender(self, out: list[Event]) -> None:
        """SURRENDER on the hand whose turn it is (what the rules allow: game/surrender.py): refused, or the hand is
        given up, settled at once (`HandSurrendered`) and the turn moves on, as after a stand (UNDO takes it back)."""
        hand = self.current_hand
        refusal = refusals.no_hand_playing(self.phase) if hand is None else surrender_refusal(
            hand, self.rules, self.bank_up_card)
        if refusal is not None:
            self._refuse("SURRENDER", refusal, out, SURRENDER_RULE, None if hand is None else hand.box)
            return
        assert hand is not None
        hand.surrendered = True
        self._end_turn(hand, SURRENDER, HandSurrendered(
            box=hand.box, hand=hand.index, staked_cents=hand.stake_total(),
            returned_cents=sum(returned_cents(stake.cents) for stake in hand.stakes)), out)

    def _end_turn(self, hand: Hand, kind: str, event: Event, out: list[Event]) -> None:
        """The current `hand` is done by a decision (`kind`: a stand, a surrender, undone by UNDO as one)."""
        self._undo.append((kind, hand, None, 0))
        out.append(event)
        self._advance(out)
        self._drain(out)

    def _double(self, command: Double, out: list[Event]) -> None:
        hand = self._current_or_refuse("DOUBLE", out)
        if hand is None:
            return
        refusal = double_refusal(hand, self.rules)
        if refusal is not None:
            self._refuse("DOUBLE", refusal, out, citations.DOUBLE, hand.box)
            return
        added, declined = matching_stakes(hand, command.behind_following, "double")
        hand.stakes.extend(added)
        hand.doubled = True
        self._undo.append((DOUBLE, hand, None, len(added)))
        out.append(HandDoubled(box=hand.box, hand=hand.index, added_cents=sum(stake.cents for stake in added),
                               behind_declined=tuple(declined)))
        self._drain(out)

    def _split(self, command: Split, out: list[Event]) -> None:
        hand = self._current_or_refuse("SPLIT", out)
        if hand is None:
            return
        refusal = split_refusal(hand, self.rules, self._box_by_number.get(hand.box))
        if refusal is not None:
            self._refuse("SPLIT", refusal, out, citations.SPLIT, hand.box)
            return
        stakes, declined = matching_stakes(hand, command.behind_following, "split")
        aces = hand.cards[0].is_ace
        new = Hand(hand.box, stakes, from_split=True, split_aces=aces)
        new.add(hand.pop())
        was = (hand.from_split, hand.split_aces)
        hand.from_split = True
        hand.split_aces = aces
        box = self.box(hand.box)
        assert box is not None
        box.hands.insert(box.hands.index(hand) + 1, new)
        box.renumber()
        self.hands.insert(self.hands.index(hand) + 1, new)
        self._undo.append((SPLIT, hand, new, was[0] * 1 + was[1] * 2))
        number, index = hand.box, hand.index
        out.append(HandSplit(box=number, hand=index, new_hand=index + 1,
                             added_cents=sum(stake.cents for stake in stakes), behind_declined=tuple(declined)))
        self._drain(out)

    def _undo_last(self, command: Undo, out: list[Event]) -> None:
        if self.phase in IN_PLAY and self._held.newest_since(len(self._undo)) is not None:
            # The newest thing that happened is a card no hand took (one too many for the bank...): UNDO takes
            # that card back, off the table as DISCARD would, and leaves the hands as they are.
            out.append(CardsDiscarded(cards=(self._held.take_newest(),), by=command.by))
            return
        refusal = undo_refusal(self._undo) if self.phase in IN_PLAY else NOTHING_TO_UNDO
        if refusal is not None:
            self._refuse("UNDO", refusal, out, citations.CORRECTIONS)
            return
        target = self._undo[-1][1].name
        action, card = take_back(self._undo, self.hands, self._box_by_number)
        if card is not None:
            self._held.hold_undone(card)
        self.payouts = ()
        out.append(ActionUndone(action=action, target=target, card=card, by=command.by))
        self._recompute(out)

    def _recompute(self, out: list[Event]) -> None:
        """After UNDO: the phase and turn follow from the cards again."""
        charlie = self._charlie
        cursor = 0
        while cursor < len(self.hands) and self.hands[cursor].finished(charlie):
            cursor += 1
        self._cursor = cursor
        if cursor < len(self.hands):
            self._set_phase(PLAYING, out)
            self._announce_turn(out)
        else:
            self._set_phase(BANK, out)
            self._bank_target = self.bank_draw_target()
            self._announce_turn(out)
            self._advance(out)

    def _confirm(self, out: list[Event]) -> None:
        phase = self.phase
        if phase is INSURANCE:
            self._start_play(out)
            self._drain(out)
        elif phase is SETTLEMENT:
            if self._held.round_holds:
                cards = " ".join(str(card) for card, _ in self._held.of_round)
                self._refuse("CONFIRM", refusals.cards_held(cards), out, citations.CORRECTIONS)
                return
            self._set_phase(CLOSED, out)
            out.append(RoundClosed(round=self.number))
        elif phase is BANK:
            out.append(self._bank_must_draw())
        else:
            self._refuse("CONFIRM", refusals.nothing_to_confirm(phase), out, citations.ROUND)

    def _void(self, command: Void, out: list[Event]) -> None:
        if self.phase not in IN_PLAY:
            self._refuse("VOID", refusals.not_in_play(self.phase), out, citations.CORRECTIONS)
            return
        self.payouts = ()
        self._set_phase(VOIDED, out)
        out.append(RoundVoided(round=self.number, by=command.by, reason=command.reason))

    def _discard(self, command: Discard, out: list[Event]) -> None:
        if not self._held.round_holds:
            self._refuse("DISCARD", refusals.NO_HELD_CARD, out, citations.CORRECTIONS)
            return
        cards = self._held.discard_round()
        out.append(CardsDiscarded(cards=cards, by=command.by))


def _wrong_phase(what: str, phase: Phase) -> Alarm:
    return Alarm(kind=AlarmKind.COMMAND_REFUSED, message=f"{what} refused: the round is in phase {phase}",
                 rule=citations.ROUND, reason=refusals.RefusalReason.WRONG_PHASE)

