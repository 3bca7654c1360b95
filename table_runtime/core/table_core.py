"""`TableCore`: the game table, the chip watcher and the alarm ledger, and the one transition function over them.

`apply(input)` returns every event the input caused, the chip watcher's alarms
included, so they are journaled in the same transaction; `step(input, seq)` is
the same for the input journaled at row `seq` (the round's alarms start there).
The core after a restart is the fold of its journal (core/record.py).
`decide(...)` (commands.py) turns a dealer's press into the inputs it means,
from this state alone.

While play is stopped (an open alarm of a halting kind, core/alarm_ledger.py)
no input changes the round: a card out of the shoe is counted and held with a
`play_stopped` alarm, never dealt; the chips on the zones are still followed
(the chip watch's alarms still sound: what moves on a stopped table matters to
surveillance); a shuffle or the cut card still updates the shoe's account (the
shoe is what it is); the command table refuses every command but the clearing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from table_runtime.core import commands, hyper_field
from table_runtime.core.alarm_ledger import AlarmLedger
from table_runtime.core.buy_ins import BuyIn, recorded
from table_runtime.core.chip_watch import ChipWatch
from table_runtime.core.chip_watch import Phase as ChipPhase
from table_runtime.core.hyper_field import HyperField
from table_runtime.core.inputs import SEAT_INPUT_CLASSES, CoreInput, HyperAssigned, ZoneChanged
from table_runtime.core.meters import Meters
from table_runtime.core.player_cards import PlayerCardRead, waiting_after, waiting_view
from table_runtime.core.seance import SEANCE_INPUT_CLASSES, Seances, deal_problems
from table_runtime.core.seat_changes import SEAT_CHANGE_CLASSES, SeatChanges
from table_runtime.core.seating import PlayerSeated, Seating
from table_runtime.core.shift import SHIFT_INPUT_CLASSES, Shift
from table_runtime.core.tray import is_tray_zone
from table_runtime.core.tray_reconciliation import TRAY_MOVES, TrayWatch
from table_runtime.game.events import Event, RoundClosed, RoundStarted, RoundVoided, SeanceUpdated
from table_runtime.game.inputs import BetsLocked, CardDrawn
from table_runtime.game.round import INSURANCE, SETTLEMENT
from table_runtime.game.rules import RuleOptions, TableLimits
from table_runtime.game.table import Table


class TableCore:
    """One table: the shoe and rounds (`table`), the chips on its zones (`chips`) and its alarms (`alarms`)."""

    def __init__(self, rules: RuleOptions, limits: TableLimits | None = None, *, zones: Iterable[str] = ()) -> None:
        self.table = Table(rules, limits)
        self.chips = ChipWatch(tuple(zones))
        self.alarms = AlarmLedger()
        self.hyper = HyperField()  # who owns the chips on the hyper black jack field before the deal (55-4 6°)
        self._order_warned: set[str] = set()  # zones named by a settlement_order alarm this round
        self.seats = Seating()  # who sits where, for the director's options (core/seating.py)
        self.card_waiting: PlayerCardRead | None = None  # a card read, waiting for its box (core/player_cards.py)
        self.seat_changes = SeatChanges()  # the paused boxes and the players behind (core/seat_changes.py)
        self.shoe_mark: tuple[int, int] | None = None  # the last shoe event journaled: (boot id, sequence)
        self.shift = Shift()  # the dealer on shift, and whether one is needed to deal (core/shift.py)
        self.seances = Seances()  # the séance's accounts: opener, slips, drop, tips, closer (core/seance.py)
        self.tray = TrayWatch()  # the chip tray's reconciliation (core/tray_reconciliation.py)
        self.meters = Meters()  # the lifetime meters (core/meters.py)

    @property
    def halted(self) -> str:
        """Why play is stopped, or "" while it is not (core/alarm_ledger.py)."""
        return self.alarms.halted

    def step(self, item: CoreInput, seq: int) -> list[Event]:
        """`apply` for the input journaled at row `seq`: a round it starts lists its alarms from there."""
        events = self.apply(item)
        if any(isinstance(event, RoundStarted) for event in events):
            self.alarms.round_started(seq)
        self.meters.count(events, self.table.round)
        return events

    def apply(self, item: CoreInput) -> list[Event]:
        """The one transition: the events `item` caused (chip alarms included)."""
        if isinstance(item, ZoneChanged):
            self.tray.zone_changed(item)
            if is_tray_zone(item.zone):  # the tray's rows are the house's float, never a stake (core/tray.py)
                return []
            return [*self.chips.zone_changed(item), *self._settlement_order(item.zone)]
        if isinstance(item, HyperAssigned):
            return self._hyper_assigned(item)
        if isinstance(item, BuyIn):  # money into the drop box, the chips sold out of the tray
            self.tray.sold(item.cents)
            return [recorded(item), *self.seances.buy_in(item)]  # the séance's drop (core/seance.py)
        if isinstance(item, SEANCE_INPUT_CLASSES):  # the séance's accounts: nothing of the round or the chips
            events = self.seances.apply(item)
            for event in events:  # a confirmed fill or credit, or chips changed for cash, move the tray's chips
                if isinstance(event, SeanceUpdated) and event.action in ("fill_confirmed", "credit_confirmed"):
                    (self.tray.fill if event.action == "fill_confirmed" else self.tray.credit)(event.cents)
                elif isinstance(event, SeanceUpdated) and event.action == "change_cash":
                    self.tray.sold(-event.cents)  # the player's chips into the tray: chips bought back
            return events
        if isinstance(item, SEAT_INPUT_CLASSES):
            self.seats.apply(item)
            self.seat_changes.apply(item, self.seats.players)
            if isinstance(item, PlayerSeated):
                self.card_waiting = waiting_after(self.card_waiting, item)
            return []
        if isinstance(item, PlayerCardRead):  # the card waits for the dealer's box (core/player_cards.py)
            self.card_waiting = waiting_after(self.card_waiting, item)
            return []
        if isinstance(item, SEAT_CHANGE_CLASSES):  # a pause, a move, a player behind: nothing of the game
            self.seat_changes.apply(item, self.seats.players)
            return []
        if isinstance(item, SHIFT_INPUT_CLASSES):  # a dealer's login or logout: nothing of the game
            self.shift.apply(item)
            return []
        halted = self.alarms.halted
        if halted and isinstance(item, CardDrawn):
            return self.table.hold_while_stopped(item.card, halted)
        if isinstance(item, BetsLocked) and not self.table.round_in_play:
            # The director's options (55-4, 2020): a breach refuses the lock, as the table's limits do.
            problems: list[Event] = list(self.seats.deal_problems(item, self.table.rules))
            problems += deal_problems(self.seances)  # the terms ask for an open séance (core/seance.py)
            if problems:
                return problems + (self.chips.bets_locked(self.table.round, False) if self.chips.zones else [])
        events = self.table.apply(item)
        self.seances.settled(events)  # the players' net of the séance, by settlement
        if isinstance(item, BetsLocked) and any(isinstance(event, RoundStarted) for event in events):
            self.card_waiting = None  # a card not placed by the next deal is dropped (core/player_cards.py)
            events += self.tray.round_started(zone for zone in self.chips.zones if is_tray_zone(zone))
        if any(isinstance(event, TRAY_MOVES) for event in events):  # the round's chips go through the tray
            events += self.tray.chips_moving()
        if self.table.round is not None and any(isinstance(event, RoundClosed) for event in events):
            self.tray.round_closed(self.table.round.number, self.table.round.payouts)
        if not self.chips.zones:
            return events
        round_ = self.table.round
        if isinstance(item, BetsLocked):
            started = any(isinstance(event, RoundStarted) for event in events)
            if started and self.table.rules.hyper_blackjack:  # the first card's lock (55-4 6°)
                events += hyper_field.unassigned_alarms(item.hyper, self.chips.totals())
            if started:
                self.hyper.clear()
                self._order_warned = set()
            events += self.chips.bets_locked(round_, started)
        events += self.chips.follow(round_, events)
        return events

    def _hyper_assigned(self, item: HyperAssigned) -> list[Event]:
        """A hyper assignment (commands.py checked it; a journal's row is checked again, as an alarm)."""
        refusal = hyper_field.assignment_refusal(
            item, self.table.rules, betting=self.chips.phase is ChipPhase.BETTING and not self.table.round_in_play,
            seated_cents=self.chips.total(f"box{item.box}"), zones=self.chips.zones)
        if refusal is not None:
            return [hyper_field.assignment_alarm(item, refusal)]
        self.hyper.assign(item)
        return []

    def _settlement_order(self, zone: str) -> list[Event]:
        """While settling a round with hyper stakes: the text's order of collecting and paying (55-4 6°)."""
        round_ = self.table.round
        chips = self.chips
        if chips.phase is not ChipPhase.SETTLING or round_ is None or not round_.hyper_bets:
            return []
        locks = {name: lock.cents for name, lock in chips.locks.items()}
        return list(hyper_field.settlement_order(zone, chips.expected, locks, chips.totals(), self._order_warned))

    def note_origin(self, origin: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> None:
        """A journaled step was the device message `origin` (on its last row): a shoe's (boot id, sequence) is the
        last of the shoe's events the journal holds, so that one the shoe resends after a crash between the commit
        and its ACK is acknowledged again, not taken twice (runtime/shoe_link.py)."""
        values = dict(origin)
        if values.get("device") == "shoe" and values.get("boot_id") is not None:
            self.shoe_mark = (int(values["boot_id"]), int(values["sequence"]))

    def alarm_round(self, events: Iterable[Event] = ()) -> int:
        """The round an alarm belongs to (the round's record lists it): the round in play, or the one the step's
        `events` just closed or voided (an alarm of the closing input is that round's); 0 between rounds."""
        round_ = self.table.round
        if round_ is None:
            return 0
        if self.table.round_in_play or any(isinstance(event, (RoundClosed, RoundVoided)) for event in events):
            return round_.number
        return 0

    @property
    def recovering(self) -> bool:
        """Whether a start finds a round in play (the table then says it recovered it): the phases in play are
        game/phases.py's."""
        return self.table.round_in_play

    def decide(self, name: str, args: Mapping[str, Any], *, role: str, source: str, employee: str | None = None
               ) -> commands.Decision:
        return commands.decide(self, name, args, role=role, source=source, employee=employee)

    def card_inputs(self, item: CardDrawn, source: str) -> tuple[tuple[CoreInput, str], ...]:
        return commands.card_inputs(self, item, source)

    # -- views ---------------------------------------------------------------------------------
    @property
    def turn_box(self) -> int | None:
        """The box whose turn it is (its lamp is lit), if any."""
        round_ = self.table.round
        turn = None if round_ is None else round_.turn
        return None if turn is None else turn[0]

    @property
    def waiting_for_dealer(self) -> bool:
        """The round waits on the dealer (the tower's amber): the insurance window to close, a settlement to pay
        and confirm, or cards held for a decision."""
        round_ = self.table.round
        held = bool(self.table.held_cards.cards)  # the one list: between rounds and the round's
        return held or (round_ is not None and round_.phase in (INSURANCE, SETTLEMENT))

    def snapshot_extra(self) -> dict[str, Any]:
        """What the core adds to the table snapshot: who sits where, the zone totals, and the payout check while
        settling."""
        seats = {"seats": self.seats.state(), **waiting_view(self.card_waiting), **self.seat_changes.view(),
                 **self.shift.view(),
                 **({"seance": self.seances.view()} if self.seances or self.seances.required else {}),
                 "meters": self.meters.view()}
        if not self.chips.zones:
            return seats
        extra: dict[str, Any] = {**seats, "zones": self.chips.totals()}
        if any(is_tray_zone(zone) for zone in self.chips.zones):  # the tray's rows: its float, not zones of play
            extra["zones"] = {zone: cents for zone, cents in extra["zones"].items() if not is_tray_zone(zone)}
            extra["tray"] = self.tray.view()
        if self.table.rules.hyper_blackjack:
            extra["hyper_assigned"] = self.hyper.view()
        check = self.chips.payout_check()
        if check:
            extra["payout_check"] = check
        return extra

