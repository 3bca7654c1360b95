"""The command table: who may press each command, and what input it becomes, from the core's state alone.

`decide(core, name, args, role=..., source=...)` is pure: it reads the table and the
chip watcher and returns a `Decision`: inputs to journal and apply (`Submit`), an
alarm to acknowledge (`Acknowledge`), nothing to do (`Done`) or a refusal saying why
(`Refused`). The shell journals and applies what it says, then acts. Before anything else
the arguments keep the bounds of every input (core/input_bounds.py: no row the floor cannot store).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from table_runtime.core import hyper_field
from table_runtime.core.alarm_ledger import needs_supervisor
from table_runtime.core.buy_ins import buy_in_of, buy_in_refusal, buy_in_text
from table_runtime.core.chip_watch import Phase as ChipPhase
from table_runtime.core.input_bounds import args_problem
from table_runtime.core.inputs import CoreInput
from table_runtime.core.player_cards import seat_card_input
from table_runtime.core.seat_changes import SEAT_CHANGE_COMMANDS, seat_change, seat_change_text
from table_runtime.core.seating import DEAL_REFUSALS, SEAT_COMMANDS, PlayerSeated, seat_input
from table_runtime.errors import CardCodeError
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.cards import Card
from table_runtime.game.commands import Command, Role
from table_runtime.game.events import Alarm, Event, RoundStarted
from table_runtime.game.inputs import (
    BehindBet,
    BetsLocked,
    BoxBet,
    CardDrawn,
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
from table_runtime.game.refusals import Refusal, RefusalReason
from table_runtime.game.round import INSURANCE

if TYPE_CHECKING:
    from table_runtime.core.table_core import TableCore

ACTING: Final = frozenset({Role.DEALER, Role.SUPERVISOR})

# Who may press each command (the pit's view is read-only).
COMMAND_ROLES: Final[dict[Command, frozenset[Role]]] = {
    command: frozenset({Role.SUPERVISOR}) if command == Command.VOID else ACTING for command in Command
}

REFUSED_RULE = "TABLE.md A round"

# Refusals that are alarms wherever the command came from (the panel's always are): the pit must see them.
ALARMED_REFUSALS: Final = frozenset({RefusalReason.HYPER_UNASSIGNED})


def panel_role(command: str) -> Role:
    """Who acts when a panel button is pressed: VOID is held with the supervisor's key."""
    return Role.SUPERVISOR if command == Command.VOID else Role.DEALER


@dataclass(frozen=True, slots=True)
class Submit:
    """Journal and apply these inputs (each with its source) as one step."""

    command: Command
    inputs: tuple[tuple[CoreInput, str], ...]
    message: str = ""


@dataclass(frozen=True, slots=True)
class Acknowledge:
    alarm_id: int
    by: str
    employee: str | None = None  # the supervisor (or dealer) by name, where a staff registry rules the table


@dataclass(frozen=True, slots=True)
class Done:
    message: str


@dataclass(frozen=True, slots=True)
class Refused:
    message: str
    reason: RefusalReason


Decision = Submit | Acknowledge | Done | Refused


ROUND_INPUTS: Final = frozenset({Command.NEXT, Command.DOUBLE, Command.SPLIT, Command.UNDO, Command.CONFIRM,
                                  Command.VOID, Command.DISCARD, Command.SURRENDER})


def command_input(command: Command, *, by: str, behind_following: tuple[str, ...] = (),
                  reason: str = "misdeal") -> CoreInput:
    """The round's input for one of `ROUND_INPUTS` (`behind_following`: the behind players who match a DOUBLE
    or SPLIT; `by`: who acts, for UNDO, DISCARD and VOID)."""
    if command == Command.DOUBLE:
        return Double(behind_following=behind_following)
    if command == Command.SPLIT:
        return Split(behind_following=behind_following)
    simple: dict[Command, CoreInput] = {
        Command.NEXT: Next(), Command.CONFIRM: Confirm(), Command.UNDO: Undo(by=by), Command.DISCARD: Discard(by=by),
        Command.VOID: Void(by=by, reason=reason), Command.SURRENDER: Surrender(),
    }
    return simple[command]


def refusal_alarm(message: str, reason: str) -> Alarm:
    """A refused panel button: the panel has no screen, so the refusal is shown as an alarm (with its code)."""
    return Alarm(kind=AlarmKind.COMMAND_REFUSED, message=message, rule=REFUSED_RULE, reason=reason)


def bets_from_zones(core: TableCore) -> BetsLocked:
    """NO MORE BETS: the stakes on the zones (seated + behind per box with a seated stake)."""
    chips = core.chips
    bets = []
    for box in sorted({int(zone[3:].split(".")[0]) for zone in chips.zones if zone.startswith("box")}):
        seated, behind = chips.total(f"box{box}"), chips.total(f"box{box}.behind")
        if seated:
            bets.append(BoxBet(box=box, seated_cents=seated, owner=f"box{box}",
                               behind=(BehindBet(owner=f"box{box}.behind", cents=behind),) if behind else ()))
    return BetsLocked(bets=tuple(bets), hyper=core.hyper.bets())  # the hyper stakes as the dealer assigned them


def card_inputs(core: TableCore, item: CardDrawn, source: str) -> tuple[tuple[CoreInput, str], ...]:
    """A card out of the shoe; the first one of a round, with stakes on the zones and no bets locked, locks
    them first (TABLE.md A round step 1: NO MORE BETS, or the first card out of the shoe)."""
    table, chips = core.table, core.chips
    if (chips.zones and chips.phase is ChipPhase.BETTING and not table.round_in_play and table.shoe.loaded
            and not table.shoe.burns_left and chips.has_stakes() and not core.halted):
        return ((bets_from_zones(core), "first card"), (item, source))
    return ((item, source),)


def decide(core: TableCore, name: str, args: Mapping[str, Any], *, role: str, source: str,
           employee: str | None = None) -> Decision:
    """What a press of `name` by `role` means now (the open alarms are the core's ledger). `employee`: who acts,
    as the staff registry knows him (checked by the shell: his badge or his own PIN); where a registry rules the
    table (core/shift.py) a supervisor's action without one (the shared PIN, the panel's VOID chord) is refused."""
    try:
        command = Command(name)
    except ValueError:
        return Refused(f"unknown command {name!r}", RefusalReason.UNKNOWN_COMMAND)
    if role not in COMMAND_ROLES[command]:
        if role == Role.PIT:
            return Refused("pit view is read-only", RefusalReason.READ_ONLY)
        return Refused(f"{command} needs the supervisor", RefusalReason.NEEDS_SUPERVISOR)
    if role == Role.SUPERVISOR and employee is None and core.shift.required:
        return Refused(f"{command} needs the supervisor's own badge or PIN: the shared supervisor PIN is not "
                       "accepted where the staff registry rules the table", RefusalReason.NEEDS_OWN_CREDENTIAL)
    out_of_bounds = args_problem(args)
    if out_of_bounds is not None:
        return Refused(f"{command} refused: {out_of_bounds}", RefusalReason.INPUT_OUT_OF_BOUNDS)
    halted = core.halted
    if halted and command != Command.ACK_ALARM:
        return Refused(f"{command} refused: play is stopped: {halted}", RefusalReason.PLAY_STOPPED)
    table = core.table
    round_ = table.round
    if command == Command.BUY_IN:  # at any time, in a round or between: a buy-in is not a bet
        waiting = None if core.card_waiting is None else core.card_waiting.player  # BUY_IN {"card": true}
        problem = buy_in_refusal(args, max_cents=table.limits.buy_in_max_cents, boxes=table.rules.boxes,
                                 card_waiting=waiting)
        if problem is not None:
            return Refused(f"{command} refused: {problem.text}", problem.reason)
        buy_in = buy_in_of(args, by=role, card_waiting=waiting)
        return Submit(command, ((buy_in, source),), f"{buy_in_text(buy_in)} recorded")
    if command == Command.DEAL:
        if not core.chips.zones:
            return Refused("no chip reader: bets cannot be locked from the zones", RefusalReason.NO_CHIP_READER)
        if core.chips.phase is not ChipPhase.BETTING or table.round_in_play:
            return Done("bets not locked: a round is in play")
        no_dealer = core.shift.deal_refusal()
        if no_dealer is not None:
            return Refused(f"DEAL refused: {no_dealer.text}", no_dealer.reason)
        unassigned = hyper_field.deal_refusal(core.hyper, core.chips.totals()) if table.rules.hyper_blackjack else None
        if unassigned is not None:  # 55-4 6°
            return Refused(f"DEAL refused: {unassigned.text}", unassigned.reason)
        return Submit(command, ((bets_from_zones(core), source),))
    if command == Command.HYPER_ASSIGN:
        return _hyper_assign(core, args, role, source)
    if command == Command.ACK_ALARM:
        alarm_id = args.get("id", 0)
        if isinstance(alarm_id, bool) or not isinstance(alarm_id, int):
            return Refused("ACK_ALARM needs the alarm id", RefusalReason.NO_SUCH_ALARM)
        alarm = core.alarms.get(alarm_id)
        kind = None if alarm is None else alarm.kind
        if kind is None:
            return Refused("no such alarm", RefusalReason.NO_SUCH_ALARM)
        if role != Role.SUPERVISOR and needs_supervisor(kind):
            return Refused(f"alarm {alarm_id} ({kind}) needs the supervisor PIN", RefusalReason.NEEDS_SUPERVISOR)
        return Acknowledge(alarm_id, by=role, employee=employee)
    if command == Command.MANUAL_CARD:
        try:
            card = Card.parse(str(args.get("card", "")))
        except CardCodeError as error:
            return Refused(str(error), RefusalReason.BAD_CARD)
        return Submit(command, card_inputs(core, CardDrawn(card=card, manual=True, by=role), source),
                      f"{card} entered by hand")
    if command in (Command.DOUBLE, Command.SPLIT):
        hand = None if round_ is None else round_.current_hand
        following = () if hand is None else tuple(
            verdict.zone for verdict in core.chips.verdicts(hand.box)
            if verdict.zone.endswith(".behind") and verdict.accepted)
        return Submit(command, ((command_input(command, by=role, behind_following=following), source),))
    if command == Command.SEAT_CARD:  # the card read waiting, placed on a box (core/player_cards.py)
        by_card = seat_card_input(core.card_waiting, args, by=role, boxes=table.rules.boxes)
        if not isinstance(by_card, Refusal):
            by_card = core.seats.seat_refusal(by_card, _staked_in_play(core), table.rules) or by_card
        if isinstance(by_card, Refusal):
            return Refused(by_card.text, by_card.reason)
        return Submit(command, ((by_card, source),), f"{command} box{by_card.box}")
    if command in SEAT_COMMANDS:  # who sits where (core/seating.py)
        seat = seat_input(command, args, by=role, boxes=table.rules.boxes)
        if isinstance(seat, PlayerSeated):  # in a round, its stakes are fixed: DEAL cannot see this one
            seat = core.seats.seat_refusal(seat, _staked_in_play(core), table.rules) or seat
        if isinstance(seat, Refusal):
            return Refused(seat.text, seat.reason)
        return Submit(command, ((seat, source),), f"{command} box{seat.box}")
    if command in SEAT_CHANGE_COMMANDS:  # a pause, a move, a player behind (core/seat_changes.py)
        change = seat_change(command, args, by=role, boxes=table.rules.boxes, players=core.seats.players,
                             changes=core.seat_changes)
        if isinstance(change, Refusal):
            return Refused(f"{command} refused: {change.text}", change.reason)
        return Submit(command, ((change, source),), seat_change_text(change))
    if command == Command.CONFIRM and round_ is not None and round_.phase == INSURANCE:
        # The chips on the lines and the CONFIRM that closes them are one step: a crash keeps all or none.
        placed = tuple((InsurancePlaced(box=box, cents=cents), "chips")
                       for box, cents in sorted(core.chips.insurance_lines().items()))
        return Submit(command, (*placed, (Confirm(), source)))
    why = args.get("reason", "misdeal")  # VOID's reason, journaled: text (its bounds were checked above)
    return Submit(command, ((command_input(command, by=role, reason=why if isinstance(why, str) else "misdeal"),
                             source),))


def _staked_in_play(core: TableCore) -> set[int]:
    """The boxes with a seated stake in the round in play (none between rounds)."""
    round_ = core.table.round
    if round_ is None or not core.table.round_in_play:
        return set()
    return {box.number for box in round_.boxes if box.bet.seated_cents > 0}


def _hyper_assign(core: TableCore, args: Mapping[str, Any], role: str, source: str) -> Decision:
    """HYPER_ASSIGN {case, box, cents, behind}: whose the stake on a hyper case is (core/hyper_field.py)."""
    item = hyper_field.assignment_of(args, by=role)
    if isinstance(item, Refusal):
        return Refused(f"HYPER_ASSIGN refused: {item.text}", item.reason)
    chips = core.chips
    refusal = hyper_field.assignment_refusal(
        item, core.table.rules, betting=chips.phase is ChipPhase.BETTING and not core.table.round_in_play,
        seated_cents=chips.total(f"box{item.box}"), zones=chips.zones)
    if refusal is not None:
        return Refused(f"HYPER_ASSIGN refused: {refusal.text}", refusal.reason)
    who = f"box {item.box}{' (behind)' if item.behind else ''}"
    return Submit(Command.HYPER_ASSIGN, ((item, source),),
                  f"hyper {item.case}: {hyper_field.euros(item.cents)} assigned to {who}")


def result(decision: Submit, events: list[list[Event]]) -> dict[str, Any]:
    """What the dealer is told once the inputs are applied: refusals by the rules arrive as alarms."""
    flat = [event for step in events for event in step]
    refusals = [event for event in flat if isinstance(event, Alarm) and event.kind == AlarmKind.COMMAND_REFUSED]
    if refusals:
        return {"ok": False, "message": refusals[0].message, "reason": refusals[0].reason, "alarmed": True}
    if decision.command == Command.DEAL:
        locked = any(isinstance(event, RoundStarted) for event in flat)
        director = [event for event in flat if isinstance(event, Alarm) and event.kind in DEAL_REFUSALS]
        if director and not locked:  # the director's options (core/seating.py): DEAL refused until corrected
            return {"ok": False, "message": f"bets not locked: {director[0].message}",
                    "reason": DEAL_REFUSALS[AlarmKind(director[0].kind)], "alarmed": True}
        return {"ok": True, "message": "bets locked" if locked else "bets not locked: see the alarms"}
    return {"ok": True, "message": decision.message or f"{decision.command} done", "alarmed": False}
