"""The round state machine: one round of the no-hole-card French game, event-sourced.

`Round.apply(input, out)` takes one input (a card, a bet lock, a dealer
command), changes the round, and appends the resulting events to `out`. It
never raises on a dealer error: a card that no hand may take, a command the
rules forbid, a command in the wrong phase are alarms, and a refused command
leaves the round unchanged. Replaying the same inputs gives the same round.

Phases: betting -> dealing -> [insurance] -> playing -> bank -> settlement ->
closed, or voided from any phase after betting. Which hand takes the next card
is derived from the hands (the first one not finished), so UNDO only has to
take back the last action.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from table_runtime.game.cards import Card
from table_runtime.game.events import (
    ActionUndone,
    Alarm,
    BlackjackPaidEarly,
    CardAssigned,
    CardHeld,
    CardsDiscarded,
    Event,
    HandDoubled,
    HandSplit,
    HandStood,
    InsuranceTaken,
    Payout,
    PhaseChanged,
    RoundClosed,
    RoundSettled,
    RoundStarted,
    RoundVoided,
    TurnChanged,
)
from table_runtime.game.hand import Hand, Stake
from table_runtime.game.inputs import (
    BetsLocked,
    BoxBet,
    Confirm,
    Discard,
    Double,
    InsurancePlaced,
    Next,
    Split,
    Undo,
    Void,
)

# The phases are defined in phases.py; importable from here too, as before it existed.
from table_runtime.game.phases import BANK as BANK
from table_runtime.game.phases import BETTING as BETTING
from table_runtime.game.phases import CLOSED as CLOSED
from table_runtime.game.phases import DEALING as DEALING
from table_runtime.game.phases import IN_PLAY as IN_PLAY
from table_runtime.game.phases import INSURANCE as INSURANCE
from table_runtime.game.phases import PHASES as PHASES
from table_runtime.game.phases import PLAYING as PLAYING
from table_runtime.game.phases import SETTLEMENT as SETTLEMENT
from table_runtime.game.phases import VOIDED as VOIDED
from table_runtime.game.phases import Phase
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.game.settlement import hand_payouts, insurance_payout

# Held cards that wait for the dealer's next decision go to the next hand that
# may take a card; the others (a card no hand may take) wait for DISCARD.
WAITING_REASONS: Final = frozenset(("undo", "insurance_open"))

COMMANDS: Final = ("NEXT", "DOUBLE", "SPLIT", "UNDO", "CONFIRM", "VOID", "DISCARD")
# (Final: a mypyc build reads these as constants, not from the module's dict on every use.)

# Events are frozen values. The few that every round repeats (a phase change, a turn, a card to a hand) are
# made once and shared, like the cards themselves: building a frozen dataclass costs more than the rest of
# the step (and a mypyc build does not compile slotted dataclasses, so it pays for it too).
_PHASE_CHANGED: Final = {phase: PhaseChanged(phase=phase) for phase in PHASES}
_TURN_CHANGED: Final[dict[tuple[int, int] | None, TurnChanged]] = {None: TurnChanged(box=None, hand=None)}
_CARD_ASSIGNED: Final[dict[str, list[CardAssigned | None]]] = {}  # by target, then by Card.index


def _turn_changed(turn: tuple[int, int] | None) -> TurnChanged:
    event = _TURN_CHANGED.get(turn)
    if event is None:
        assert turn is not None
        event = _TURN_CHANGED[turn] = TurnChanged(box=turn[0], hand=turn[1])
    return event


@lru_cache(maxsize=256)
def _hand_stood(box: int, hand: int) -> HandStood:
    return HandStood(box=box, hand=hand)


@lru_cache(maxsize=1024)
def _original_stake(owner: str, cents: int) -> Stake:
    """A stake is a frozen value too: the same bets round after round share theirs."""
    return Stake(owner, cents, "original")


def _card_assigned(card: Card, target: str) -> CardAssigned:
    by_card = _CARD_ASSIGNED.get(target)
    if by_card is None:
        by_card = _CARD_ASSIGNED[target] = [None] * 52
    event = by_card[card.index]
    if event is None:
        event = by_card[card.index] = CardAssigned(card=card, target=target)
    return event


class BoxState:
    """One box in play: its bet, its hands (several after splits) and its insurance."""

    __slots__ = ("bet", "hands", "insurance", "number")

    def __init__(self, bet: BoxBet) -> None:
        self.number = bet.box
        self.bet = bet
        stakes = [_original_stake(bet.owner, bet.seated_cents)]
        for behind in bet.behind:
            stakes.append(_original_stake(behind.owner, behind.cents))
        self.hands = [Hand(bet.box, stakes)]
        self.insurance = 0


class Round:
    """One round, from the bet lock to the closing CONFIRM; owns every card and stake of it."""

    def __init__(self, rules: RuleOptions, limits: TableLimits, number: int) -> None:
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
        self.held: list[tuple[Card, str]] = []
        self.paid_early: set[int] = set()  # id() of hands whose blackjack was paid at once (002:62)
        self.payouts: tuple[Payout, ...] = ()
        self._undo: list[tuple[str, Hand, Hand | None, int]] = []
        self._cursor = 0
        self._turn: tuple[int, int] | None = None
        self._charlie = rules.ten_card_charlie
        # Fixed while the round is in a phase, so computed once on entering it instead of per card:
        self._deal_order: list[Hand] = []  # the hand of each card of the deal (set by the bet lock)
        self._bank_target = 0  # bank_draw_target() while the bank plays (the hands are finished; UNDO recomputes)

    # ----------------------------------------------------------------- queries

    @property
    def current_hand(self) -> Hand | None:
        """The hand whose turn it is (playing phase only)."""
        if self.phase != PLAYING or self._cursor >= len(self.hands):
            return None
        return self.hands[self._cursor]

    @property
    def turn(self) -> tuple[int, int] | None:
        """(box, hand index within the box) whose turn it is, or None."""
        hand = self.current_hand
        return None if hand is None else (hand.box, hand.index)

    def box(self, number: int) -> BoxState | None:
        return self._box_by_number.get(number)

    @staticmethod
    def target_name(hand: Hand) -> str:
        """``boxN.handK`` or ``bank``."""
        return hand.name

    @staticmethod
    def _renumber(box: BoxState) -> None:
        """After a split (or its undo) the hands of `box` after it move: their positions and names follow."""
        for index, hand in enumerate(box.hands):
            hand.index = index
            hand.name = f"box{box.number}.hand{index}"

    @property
    def bank_up_card(self) -> Card | None:
        return self.bank.cards[0] if self.bank.cards else None

    def bank_draw_target(self) -> int:
        """0: the bank draws nothing; 2: its second card only; 17: it draws to 17 (RULES.md 'The bank')."""
        charlie = self._charlie
        waiting = False
        for hand in self.hands:
            if hand.busted or hand.charlie(charlie):
                continue
            if hand.blackjack:
                waiting = waiting or id(hand) not in self.paid_early
                continue
            return 17
        if waiting or any(box.insurance for box in self.boxes):
            return 2
        return 0

    @property
    def bank_must_draw(self) -> bool:
        if self.phase != BANK:
            return False
        return self._bank_needs_card(self._bank_target)

    def _bank_needs_card(self, target: int) -> bool:
        bank = self.bank
        if target == 0:
            return False
        if len(bank.cards) < 2:
            return True
        if target == 2:
            return False
        total = bank.total
        if total < 17:
            return True  # 000:16
        return total == 17 and self.rules.dealer_hits_soft_17 and bank.soft  # 000:17 NOTA: stands by default

    @property
    def next_card_target(self) -> str:
        """Where the next card from the shoe goes: ``boxN.handK``, ``bank`` or ``none``."""
        if self.phase == DEALING:
            return self.target_name(self._deal_target())
        hand = self.current_hand
        if hand is not None:
            return self.target_name(hand)
        if self.bank_must_draw:
            return "bank"
        return "none"

    def allowed(self) -> list[str]:
        """The dealer commands that the rules allow now."""
        allowed = []
        hand = self.current_hand
        if hand is not None:
            if self._stand_refusal(hand) is None:
                allowed.append("NEXT")
            if self._double_refusal(hand) is None:
                allowed.append("DOUBLE")
            if self._split_refusal(hand) is None:
                allowed.append("SPLIT")
        if self._undo and self.phase in IN_PLAY and not (self._undo[-1][0] == "card" and self._undo[-1][3]):
            allowed.append("UNDO")
        if self.phase == INSURANCE or (self.phase == SETTLEMENT and not self.held):
            allowed.append("CONFIRM")
        if self.phase in IN_PLAY:
            allowed.append("VOID")
        if self.held:
            allowed.append("DISCARD")
        return allowed

    # ------------------------------------------------------------------ inputs

    def lock(self, event: BetsLocked, out: list[Event]) -> None:
        """No more bets: check the limits and start the deal, or raise alarms and stay in betting."""
        if self.phase != BETTING:
            out.append(_wrong_phase("BetsLocked", self.phase))
            return
        problems = _bet_problems(event.bets, self.rules, self.limits)
        if problems:
            out.extend(problems)
            return
        self.boxes = [BoxState(bet) for bet in sorted(event.bets, key=lambda bet: bet.box)]
        self._box_by_number = {box.number: box for box in self.boxes}
        self.hands = [box.hands[0] for box in self.boxes]
        self._deal_order = [*self.hands, self.bank, *self.hands]  # box order, the bank, box order (000:10)
        self.deal_count = len(self._deal_order)
        out.append(RoundStarted(round=self.number, boxes=tuple(box.number for box in self.boxes),
                                total_cents=sum(box.bet.total_cents for box in self.boxes)))
        self._set_phase(DEALING, out)

    def card(self, card: Card, out: list[Event]) -> None:
        """A card out of the shoe: to the hand that must take it, or held with an alarm."""
        phase = self.phase
        if phase in (DEALING, PLAYING) or (phase == BANK and self._bank_needs_card(self._bank_target)):
            self._route(card, out)
            return
        if phase == INSURANCE:
            self._hold(card, "insurance_open", out, Alarm(
                kind="insurance_open",
                message=f"card {card} drawn while the insurance window is open: CONFIRM closes it first",
                rule="TABLE.md A round step 3; 000:25"))
        elif phase in (BANK, SETTLEMENT):
            bank = self.bank
            where = ("has busted" if bank.busted else
                     "draws no card: no stake is left to compare" if len(bank.cards) < 2 else
                     f"must stand on {bank.total}")
            self._hold(card, "bank_must_stand", out, Alarm(
                kind="bank_must_stand",
                message=f"card {card} drawn for the bank, which {where} ({' '.join(map(str, bank.cards))})",
                rule="RULES.md The bank; 000:15, 000:17", amounts=(("bank_total", bank.total),)))
        else:
            self._hold(card, "no_hand", out, Alarm(
                kind="card_no_hand",
                message=f"card {card} drawn in phase {phase}: no hand may take a card",
                rule="TABLE.md What the controller must catch: dealer draw errors"))

    def insurance(self, event: InsurancePlaced, out: list[Event]) -> None:
        box = self.box(event.box)
        expected = box.bet.seated_cents // 2 if box is not None else 0
        refusal = None
        if self.phase != INSURANCE:
            refusal = f"insurance is only offered on a bank ace, before play (phase is {self.phase})"
        elif box is None:
            refusal = f"box {event.box} has no bet in this round"
        elif box.insurance:
            refusal = f"box {event.box} is already insured for {box.insurance} cents"
        elif event.cents != expected:
            refusal = f"insurance on box {event.box} must be half the stake: {expected} cents, not {event.cents}"
        if refusal is not None:
            out.append(Alarm(kind="insurance_refused", message=refusal, rule="000:26 (half the initial stake)",
                             box=event.box, amounts=(("expected_cents", expected), ("seen_cents", event.cents))))
            return
        assert box is not None
        box.insurance = event.cents
        out.append(InsuranceTaken(box=box.number, cents=event.cents))

    def command(self, command: Next | Double | Split | Undo | Confirm | Void | Discard, out: list[Event]) -> None:
        if isinstance(command, Next):
            self._stand(out)
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

    def _deal_target(self) -> Hand:
        """Box order, the bank, box order again (000:10; no hole card: 002:34)."""
        return self._deal_order[self.deal_index]

    def _route(self, card: Card, out: list[Event]) -> None:
        """Give `card` to the hand that must take it now (the phase allows a card)."""
        phase = self.phase
        dealing = phase == DEALING
        if dealing:
            hand = self._deal_order[self.deal_index]
            self.deal_index += 1
        elif phase == PLAYING:
            hand = self.hands[self._cursor]
        else:
            hand = self.bank
        hand.add(card)
        self._undo.append(("card", hand, None, dealing))
        out.append(_card_assigned(card, hand.name))
        if dealing:
            if self.deal_index == self.deal_count:
                self._after_deal(out)
        elif phase != PLAYING or hand.finished(self._charlie):
            self._advance(out)
        # else: the hand that took the card keeps the turn, announced when it got it: nothing moves

    def _hold(self, card: Card, reason: str, out: list[Event], alarm: Alarm) -> None:
        self.held.append((card, reason))
        out.append(alarm)
        out.append(CardHeld(card=card, reason=reason))

    def _drain(self, out: list[Event]) -> None:
        """Held cards that waited for the dealer's decision go where the next card goes."""
        while self.held and self.held[0][1] in WAITING_REASONS:
            if not (self.phase in (DEALING, PLAYING) or self.bank_must_draw):
                return
            card, _ = self.held.pop(0)
            self._route(card, out)

    def _after_deal(self, out: list[Event]) -> None:
        up = self.bank.cards[0]
        if up.is_ace:
            self._set_phase(INSURANCE, out)  # 000:25
            return
        if self.rules.pay_blackjack_before_bank:
            for hand in self.hands:
                if hand.blackjack:
                    self.paid_early.add(id(hand))
                    out.append(BlackjackPaidEarly(box=hand.box, hand=0))
        self._start_play(out)

    def _start_play(self, out: list[Event]) -> None:
        self._cursor = 0
        self._set_phase(PLAYING, out)
        self._advance(out)

    def _advance(self, out: list[Event]) -> None:
        """Move the turn past finished hands; then the bank; then settlement."""
        if self.phase == PLAYING:
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
        if self.phase == BANK and not self._bank_needs_card(self._bank_target):
            self._settle(out)

    def _announce_turn(self, out: list[Event]) -> None:
        turn = self.turn
        if turn != self._turn:
            self._turn = turn
            out.append(_turn_changed(turn))

    def _set_phase(self, phase: Phase, out: list[Event]) -> None:
        if phase != self.phase:
            self.phase = phase
            out.append(_PHASE_CHANGED[phase])

    def _settle(self, out: list[Event]) -> None:
        bank = self.bank
        bank_blackjack = bank.blackjack
        bank_total = bank.total
        payouts: list[Payout] = []
        rules = self.rules
        paid_early = self.paid_early
        for box in self.boxes:
            if box.insurance:
                payouts.append(insurance_payout(box.number, box.bet.owner, box.insurance, bank_blackjack))
            for index, hand in enumerate(box.hands):
                payouts.extend(hand_payouts(hand, index, bank_total=bank_total, bank_blackjack=bank_blackjack,
                                            paid_early=id(hand) in paid_early, rules=rules))
        self.payouts = tuple(payouts)
        self._set_phase(SETTLEMENT, out)
        out.append(RoundSettled(round=self.number, bank_total=bank_total, bank_blackjack=bank_blackjack,
                                payouts=self.payouts))

    # --------------------------------------------------------------- commands

    def _refuse(self, command: str, reason: str, out: list[Event], rule: str, box: int | None = None) -> None:
        out.append(Alarm(kind="command_refused", message=f"{command} refused: {reason}", rule=rule, box=box))

    def _stand_refusal(self, hand: Hand) -> str | None:
        if len(hand.cards) < 2:
            return "the hand is waiting for its second card"
        if hand.doubled:
            return "a doubled hand must take exactly one card (000:35)"
        return None

    def _double_refusal(self, hand: Hand) -> str | None:
        rules = self.rules
        if len(hand.cards) != 2 or hand.doubled:
            return "a double is only on the first two cards (000:35)"
        if hand.split_aces:
            return "split aces take one card each (000:32)"
        if hand.from_split and not rules.double_after_split:
            return "no double after a split under these rules"
        if rules.double_on == "9_10_11" and hand.total not in (9, 10, 11):
            return f"doubles only on 9, 10 or 11 under these rules (001:34, 002:48); the hand has {hand.total}"
        return None

    def _split_refusal(self, hand: Hand) -> str | None:
        rules = self.rules
        if len(hand.cards) != 2 or hand.doubled:
            return "a split needs a pair as the first two cards (000:30)"
        first, second = hand.cards
        if rules.split_match == "rank" and first.rank != second.rank:
            return f"{first} and {second} are not identical (002:54)"
        if first.value != second.value:
            return f"{first} and {second} are not of the same value (000:30)"
        if hand.split_aces:
            return "split aces are not split again (000:32)"
        limit = rules.max_hands_after_split
        box = self.box(hand.box)
        if limit is not None and box is not None and len(box.hands) >= limit:
            return f"the box already has {len(box.hands)} hands, the limit under these rules"
        return None

    def _current_or_refuse(self, command: str, out: list[Event]) -> Hand | None:
        hand = self.current_hand
        if hand is None:
            self._refuse(command, f"no hand is playing (phase {self.phase})", out, "TABLE.md A round step 4")
        return hand

    def _stand(self, out: list[Event]) -> None:
        hand = self._current_or_refuse("NEXT", out)
        if hand is None:
            return
        refusal = self._stand_refusal(hand)
        if refusal is not None:
            self._refuse("NEXT", refusal, out, "000:12", hand.box)
            return
        hand.stood = True
        self._undo.append(("stand", hand, None, 0))
        number, index = hand.box, hand.index
        out.append(_hand_stood(number, index))
        self._advance(out)
        self._drain(out)

    def _double(self, command: Double, out: list[Event]) -> None:
        hand = self._current_or_refuse("DOUBLE", out)
        if hand is None:
            return
        refusal = self._double_refusal(hand)
        if refusal is not None:
            self._refuse("DOUBLE", refusal, out, "RULES.md Player decisions (Double); 000:35", hand.box)
            return
        added, declined = _matching_stakes(hand, command.behind_following, "double")
        hand.stakes.extend(added)
        hand.doubled = True
        self._undo.append(("double", hand, None, len(added)))
        number, index = hand.box, hand.index
        out.append(HandDoubled(box=number, hand=index, added_cents=sum(stake.cents for stake in added),
                               behind_declined=tuple(declined)))
        self._drain(out)

    def _split(self, command: Split, out: list[Event]) -> None:
        hand = self._current_or_refuse("SPLIT", out)
        if hand is None:
            return
        refusal = self._split_refusal(hand)
        if refusal is not None:
            self._refuse("SPLIT", refusal, out, "RULES.md Player decisions (Split); 000:30-32", hand.box)
            return
        stakes, declined = _matching_stakes(hand, command.behind_following, "split")
        aces = hand.cards[0].is_ace
        new = Hand(hand.box, stakes, from_split=True, split_aces=aces)
        new.add(hand.pop())
        was = (hand.from_split, hand.split_aces)
        hand.from_split = True
        hand.split_aces = aces
        box = self.box(hand.box)
        assert box is not None
        box.hands.insert(box.hands.index(hand) + 1, new)
        self._renumber(box)
        self.hands.insert(self.hands.index(hand) + 1, new)
        self._undo.append(("split", hand, new, was[0] * 1 + was[1] * 2))
        number, index = hand.box, hand.index
        out.append(HandSplit(box=number, hand=index, new_hand=index + 1,
                             added_cents=sum(stake.cents for stake in stakes), behind_declined=tuple(declined)))
        self._drain(out)

    def _undo_last(self, command: Undo, out: list[Event]) -> None:
        if self.phase not in IN_PLAY or not self._undo:
            self._refuse("UNDO", "nothing to take back in this round", out, "TABLE.md Corrections and recall")
            return
        if self._undo[-1][0] == "card" and self._undo[-1][3]:
            self._refuse("UNDO", "the deal order is fixed (000:10): VOID the round for a misdeal", out,
                         "TABLE.md Corrections and recall")
            return
        action, hand, other, count = self._undo.pop()
        target = self.target_name(hand)
        card = None
        if action == "card":
            card = hand.pop()
            self.held.insert(0, (card, "undo"))
        elif action == "stand":
            hand.stood = False
        elif action == "double":
            del hand.stakes[len(hand.stakes) - count:]
            hand.doubled = False
        else:
            assert other is not None
            hand.add(other.pop())
            hand.from_split = bool(count & 1)
            hand.split_aces = bool(count & 2)
            box = self.box(hand.box)
            assert box is not None
            box.hands.remove(other)
            self._renumber(box)
            self.hands.remove(other)
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
        if phase == INSURANCE:
            self._start_play(out)
            self._drain(out)
        elif phase == SETTLEMENT:
            if self.held:
                cards = " ".join(str(card) for card, _ in self.held)
                self._refuse("CONFIRM", f"held cards {cards} must be assigned or discarded first", out,
                             "TABLE.md Corrections and recall")
                return
            self._set_phase(CLOSED, out)
            out.append(RoundClosed(round=self.number))
        elif phase == BANK:
            out.append(Alarm(kind="bank_must_draw",
                             message=f"CONFIRM refused: the bank has {self.bank.total} and must draw",
                             rule="RULES.md The bank; 000:16", amounts=(("bank_total", self.bank.total),)))
        else:
            self._refuse("CONFIRM", f"nothing to confirm in phase {phase}", out, "TABLE.md A round")

    def _void(self, command: Void, out: list[Event]) -> None:
        if self.phase not in IN_PLAY:
            self._refuse("VOID", f"no round in play (phase {self.phase})", out, "TABLE.md Corrections and recall")
            return
        self.payouts = ()
        self._set_phase(VOIDED, out)
        out.append(RoundVoided(round=self.number, by=command.by, reason=command.reason))

    def _discard(self, command: Discard, out: list[Event]) -> None:
        if not self.held:
            self._refuse("DISCARD", "no held card", out, "TABLE.md Corrections and recall")
            return
        cards = tuple(card for card, _ in self.held)
        self.held.clear()
        out.append(CardsDiscarded(cards=cards, by=command.by))


def _matching_stakes(hand: Hand, behind_following: tuple[str, ...], kind: str) -> tuple[list[Stake], list[str]]:
    """A double or a split adds, for the seated player and each behind player who follows, a stake equal to
    their base stake on `hand` (000:30, 000:35); the behind players who do not follow are named."""
    following = set(behind_following)
    matching: list[Stake] = []
    declined: list[str] = []
    for position, stake in enumerate(hand.base_stakes()):
        if position == 0 or stake.owner in following:
            matching.append(Stake(stake.owner, stake.cents, kind))
        else:
            declined.append(stake.owner)
    return matching, declined


def _wrong_phase(what: str, phase: Phase) -> Alarm:
    return Alarm(kind="command_refused", message=f"{what} refused: the round is in phase {phase}",
                 rule="TABLE.md A round")


def _bet_problems(bets: tuple[BoxBet, ...], rules: RuleOptions, limits: TableLimits) -> list[Event]:
    """Every reason the bets cannot be locked, each an alarm naming the box and the amounts."""
    problems: list[Event] = []
    seen: set[int] = set()
    for bet in bets:
        if not 1 <= bet.box <= rules.boxes or bet.box in seen:
            problems.append(Alarm(kind="bet_refused", message=f"box {bet.box} is not a free box of 1..{rules.boxes}",
                                  rule="000:2", box=bet.box))
            continue
        seen.add(bet.box)
        total = bet.total_cents
        if bet.seated_cents < limits.min_bet_cents or (bet.behind and any(b.cents <= 0 for b in bet.behind)):
            problems.append(Alarm(
                kind="bet_under_minimum", box=bet.box, rule="002:31 (posted minimum)",
                message=f"box {bet.box}: seated stake {bet.seated_cents} cents is under the minimum "
                        f"{limits.min_bet_cents}",
                amounts=(("seated_cents", bet.seated_cents), ("min_cents", limits.min_bet_cents))))
        if total > limits.max_bet_cents:
            problems.append(Alarm(
                kind="bet_over_maximum", box=bet.box, rule="000:3 (seated + behind within the maximum)",
                message=f"box {bet.box}: {total} cents (seated + behind) is over the maximum {limits.max_bet_cents}",
                amounts=(("total_cents", total), ("max_cents", limits.max_bet_cents))))
    if len(seen) < rules.min_boxes_to_deal and not problems:
        problems.append(Alarm(
            kind="too_few_boxes", rule="002:29 (option min_boxes_to_deal)",
            message=f"{len(seen)} box(es) in play; these rules need at least {rules.min_boxes_to_deal} to deal",
            amounts=(("boxes", len(seen)), ("min_boxes", rules.min_boxes_to_deal))))
    return problems
