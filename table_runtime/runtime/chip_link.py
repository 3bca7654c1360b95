"""Keeps the chip watcher in step with the round: bets locked from the zones, windows, settlement.

- NO MORE BETS (the DEAL button, or the first card out of the shoe): the zones
  are locked and become `BetsLocked` (seated zone + behind zone per box).
- While a hand may double or split, its box's zones are open for exactly its
  stake; DOUBLE/SPLIT closes them and the behind zone's chips say whether the
  player behind follows. Chips added while the player stands are an alarm.
- A bank ace opens the insurance line for half of each seated stake; CONFIRM
  closes it and the chips there become `InsurancePlaced`.
- At settlement each zone must end at stake + net payout (0 when collected);
  CONFIRM checks it and a wrong zone is a `wrong_payout` alarm with the difference.
  Before that, the snapshot's `payout_check` shows the dealer, after every scan that
  changes a zone, what each zone must end at and what is on it now.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from drivers.ports import ChipsScanned, ReaderOffline
from table_runtime.chips.live import apply_reader_event
from table_runtime.chips.registry import RegisteredChip
from table_runtime.chips.watch import ChipAlarm, ChipWatcher, WatcherUseError, WindowClosed, WindowKind
from table_runtime.chips.zones import ZoneChanged
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import BehindBet, BetsLocked, BoxBet, InsurancePlaced
from table_runtime.game.round import Round
from table_runtime.runtime.controller import TableController


def game_alarm(alarm: ChipAlarm) -> Alarm:
    return Alarm(kind=alarm.kind, message=alarm.message, rule=alarm.rule, box=alarm.box, amounts=alarm.amounts)


def paid_early_zones(round_: Round) -> tuple[str, ...]:
    """The zones the dealer may settle before the round's settlement: those of the hands whose blackjack was
    paid before the bank drew (RULES.md Settlement, 002), and the insurance lines once the bank has its second
    card, which settles them (RULES.md Insurance). Settlement checks what they end at."""
    paid = [zone for box in round_.boxes if any(id(hand) in round_.paid_early for hand in box.hands)
            for zone in (f"box{box.number}", f"box{box.number}.behind")]
    if len(round_.bank.cards) >= 2:
        paid += [f"box{box.number}.insurance" for box in round_.boxes if box.insurance]
    return tuple(paid)


def dead_stakes(round_: Round) -> dict[str, int]:
    """Per zone, the stakes of busted hands: collected at once (000), before the settlement."""
    dead: dict[str, int] = {}
    for box in round_.boxes:
        for hand in box.hands:
            if hand.busted:
                for stake in hand.stakes:
                    zone = f"box{box.number}" if stake.owner == box.bet.owner else f"box{box.number}.behind"
                    dead[zone] = dead.get(zone, 0) + stake.cents
    return dead


def expected_zones(round_: Round) -> dict[str, int]:
    """What each zone must hold once the dealer has paid: stake + net payout per stake (0 when collected,
    and 0 for a blackjack paid and removed before the bank drew)."""
    expected: dict[str, int] = {}
    for box in round_.boxes:
        seated = box.bet.owner
        for zone in (f"box{box.number}", f"box{box.number}.behind", f"box{box.number}.insurance"):
            expected[zone] = 0
        for payout in round_.payouts:
            if payout.box != box.number:
                continue
            if payout.kind != "insurance" and id(box.hands[payout.hand]) in round_.paid_early:
                continue  # paid and removed at once: the zone ends empty
            if payout.kind == "insurance":
                zone = f"box{box.number}.insurance"
            elif payout.owner == seated:
                zone = f"box{box.number}"
            else:
                zone = f"box{box.number}.behind"
            expected[zone] += payout.staked_cents + payout.net_cents
    return expected


def _doubles_and_splits(round_: Round) -> int:
    """The DOUBLE and SPLIT actions the round holds (UNDO takes them back one by one)."""
    return sum(hand.doubled for hand in round_.hands) + len(round_.hands) - len(round_.boxes)


class ChipLink:
    """The bridge between one table's chip watcher and its controller."""

    def __init__(self, watcher: ChipWatcher, controller: TableController) -> None:
        self.watcher = watcher
        self.controller = controller
        self._open: dict[str, int] = {}  # zone -> box of the open double/split window
        self._insurance_open = False
        self._insurance_round = 0  # the round whose insurance window was opened
        self._settling_round = 0
        self._recovered_insurance: dict[int, int] = {}  # box -> cents on its line when a round was adopted
        self._reads: dict[str, int] = {}  # zone -> scans that read it (a recovered round waits for every zone)
        self._window_actions: list[tuple[str, ...]] = []  # zones closed by each DOUBLE/SPLIT, in order
        self._suspended_round = 0
        self._following = False
        self._again = False
        self._publish_zones()

    # ------------------------------------------------------------- readings

    def reader_event(self, event: ChipsScanned | ReaderOffline) -> None:
        """A scan (zone changes, chip and antenna alarms) or a reader gone offline."""
        if isinstance(event, ReaderOffline):
            self.controller.set_device("chips", "offline")
        else:
            for reading in event.readings:
                self._reads[reading.zone] = self._reads.get(reading.zone, 0) + 1
        changed = False
        for item in apply_reader_event(self.watcher, event):
            if isinstance(item, ZoneChanged):
                changed = True
            else:
                self.controller.raise_alarm(game_alarm(item))
        if changed:
            self._publish_zones()
            self._publish_payout_check()
        if self.watcher.phase == "betting" and self.controller.table.round_in_play:
            self.follow()  # a recovered round waits for a full read of the zones

    def use_registry(self, registry: Mapping[str, RegisteredChip]) -> None:
        """A new registry (a chip reported stolen mid-shift): the chips on the table are checked against it now."""
        for alarm in self.watcher.use_registry(registry):
            self.controller.raise_alarm(game_alarm(alarm))
        self._publish_zones()
        self._publish_payout_check()

    def _publish_zones(self) -> None:
        zones = {zone: self.watcher.total_cents(zone) for zone in self.watcher.zones}
        if self.controller.extra.get("zones") != zones:
            self.controller.extra["zones"] = zones
            self.controller.touch()

    def _publish_payout_check(self) -> None:
        """While settling, `extra["payout_check"]`: per zone whose end is checked, what is due and what
        is on it now, so a wrong payout is seen (and put right) before CONFIRM; absent otherwise.

        Every zone is checked; one that had no stake, is owed nothing and holds nothing is left out
        (a box nobody played), until chips appear on it.
        """
        check: dict[str, dict[str, int]] = {}
        if self.watcher.phase == "settling":
            for zone, due in self.watcher.expected_final.items():
                seen = self.watcher.total_cents(zone)
                if due or seen or self.watcher.locked_cents(zone):
                    check[zone] = {"due_cents": due, "seen_cents": seen}
        if check:
            if self.controller.extra.get("payout_check") != check:
                self.controller.extra["payout_check"] = check
                self.controller.touch()
        elif "payout_check" in self.controller.extra:
            del self.controller.extra["payout_check"]
            self.controller.touch()

    # ------------------------------------------------------------ the round

    def has_stakes(self) -> bool:
        """Chips on any seated zone: a card out of the shoe then means NO MORE BETS."""
        return any(self.watcher.total_cents(zone) for zone in self.watcher.zones if "." not in zone)

    def lock_bets(self, *, source: str) -> bool:
        """NO MORE BETS: the zones become the locked stakes. False when no round started."""
        if self.watcher.phase != "betting":
            return False
        snapshot = self.watcher.lock_bets(self.controller.limits)
        bets = tuple(
            BoxBet(box=stake.box, seated_cents=stake.seated_cents, owner=f"box{stake.box}",
                   behind=(BehindBet(owner=f"box{stake.box}.behind", cents=stake.behind_cents),)
                   if stake.behind_cents else ())
            for stake in snapshot.stakes if stake.seated_cents)
        self.controller.submit(BetsLocked(bets=bets), source=source)
        round_ = self.controller.table.round
        locked = round_ is not None and self.controller.table.round_in_play
        if not locked:
            self.watcher.end_round()  # refused (limits, too few boxes): the chips stay free
        # Only now: an alarm calls `follow`, which ends a lock that has no round in play yet.
        self._raise_lock_alarms(snapshot.alarms)
        return locked

    def _raise_lock_alarms(self, alarms: Iterable[ChipAlarm]) -> None:
        """What the lock found on the zones (chips out of place, behind with no seated stake...)."""
        for alarm in alarms:
            if alarm.kind not in ("bet_under_minimum", "bet_over_maximum"):  # the round checks the limits itself
                self.controller.raise_alarm(game_alarm(alarm))

    def before_double_or_split(self) -> tuple[str, ...]:
        """Close the current box's windows: the behind players who added their stake follow.

        The round changes only when the command is applied, just after: until then, the alarms
        raised here must not make `follow` judge the windows against the round of before.
        """
        following: list[str] = []
        self._following = True
        try:
            self._window_actions.append(tuple(self._open))
            for zone in list(self._open):
                verdict = self._close(zone, action=True)
                if isinstance(verdict, WindowClosed) and zone.endswith(".behind") and verdict.accepted:
                    following.append(zone)
                if isinstance(verdict, WindowClosed) and not zone.endswith(".behind") and not verdict.accepted:
                    self.controller.raise_alarm(Alarm(
                        kind="wrong_window_amount", box=verdict.box, rule="000:30, 000:35 (an equal stake is added)",
                        message=f"{zone}: the {verdict.kind} was pressed but no stake of "
                                f"{verdict.expected_cents / 100:.2f} € was added",
                        amounts=(("expected_cents", verdict.expected_cents), ("seen_cents", verdict.added_cents))))
        finally:
            self._following = False
            self._again = False
        return tuple(following)

    def insurance_inputs(self) -> list[InsurancePlaced]:
        """CONFIRM in the insurance window: the chips on each insurance segment."""
        placed = [InsurancePlaced(box=box, cents=cents) for box, cents in sorted(self._recovered_insurance.items())]
        self._recovered_insurance.clear()
        if self._insurance_open:
            self._insurance_open = False
            for zone in list(self._open):
                verdict = self._close(zone)
                box = self._box_of(zone)
                if isinstance(verdict, WindowClosed) and verdict.added_cents:
                    placed.append(InsurancePlaced(box=box, cents=verdict.added_cents))
                elif isinstance(verdict, ChipAlarm) and verdict.seen_cents and verdict.kind == "wrong_window_amount":
                    # the round refuses it with its own alarm naming the amounts
                    placed.append(InsurancePlaced(box=box, cents=verdict.seen_cents))
                elif isinstance(verdict, ChipAlarm):  # e.g. chips taken off the line during its window
                    self.controller.raise_alarm(game_alarm(verdict))
        return placed

    def verify_payouts(self) -> None:
        """CONFIRM at settlement: every zone against what the dealer had to pay or collect."""
        if self.watcher.phase != "settling":
            return
        for verdict in self.watcher.verify_payouts():
            if isinstance(verdict, ChipAlarm):
                self.controller.raise_alarm(game_alarm(verdict))

    def follow(self) -> None:
        """After every change of the round: open and close windows, start or end the settlement.

        An alarm raised here changes the table again and calls back in: that call only asks for one
        more pass, so the watcher is never driven from two places at once.
        """
        if self._following:
            self._again = True
            return
        self._following = True
        failure: WatcherUseError | None = None
        try:
            self._again = True
            while self._again:
                self._again = False
                try:
                    self._follow_once()
                except WatcherUseError as error:
                    failure = error
        finally:
            self._following = False
        if failure is not None:
            self.suspend(failure)
        # After the passes: settlement begun, reopened by UNDO or ended (close, void, suspension).
        self._publish_payout_check()

    def suspend(self, failure: Exception) -> None:
        """Chip bookkeeping out of step must never stop the table: say so, and watch again from the
        next round (the game, the journal and the shoe go on)."""
        self._open.clear()
        self._insurance_open = False
        self._recovered_insurance.clear()
        self._window_actions.clear()
        round_ = self.controller.table.round
        self._suspended_round = 0 if round_ is None else round_.number
        self.watcher.end_round()
        self.controller.raise_alarm(Alarm(
            kind="chip_watch_suspended", rule="TABLE.md What the controller must catch",
            message=f"the chip watch lost step with the round ({failure}); chips are not verified "
                    "until the next round: check the zones by eye"))
        self._publish_payout_check()

    def _follow_once(self) -> None:
        table = self.controller.table
        round_ = table.round
        if round_ is None or round_.phase in ("closed", "voided"):
            if self.watcher.phase != "betting":
                self._open.clear()
                self._insurance_open = False
                self._recovered_insurance.clear()
                self._window_actions.clear()
                self.watcher.end_round()
                self._publish_zones()
            return
        if self.watcher.phase == "betting":
            if self._suspended_round == round_.number:
                return
            self._adopt(round_)  # a round recovered from the journal: lock the zones as they stand
            if self.watcher.phase == "betting":
                return
        if self.watcher.phase == "settling" and round_.phase != "settlement":
            self.watcher.reopen()  # UNDO took the round back out of settlement
            self._settling_round = 0
        if self.watcher.phase == "locked":
            self.watcher.pay_early(paid_early_zones(round_))
            self.watcher.allow_collection(dead_stakes(round_))
            taken = _doubles_and_splits(round_)
            while len(self._window_actions) > taken:  # a double or split undone (or refused by the rules)
                for zone in self._window_actions.pop():
                    self.watcher.restore_lock(zone)
        if round_.phase == "insurance" and self._insurance_round != round_.number and self.watcher.phase == "locked":
            # Once per round: CONFIRM closes the window before the insurance is submitted, still in this phase.
            self._insurance_round = round_.number
            self._insurance_open = True
            for box in round_.boxes:
                if box.number not in self._recovered_insurance:
                    self._window(f"box{box.number}.insurance", box.number, "insurance", box.bet.seated_cents // 2)
        if round_.phase == "playing":
            self._follow_turn(round_)
        elif round_.phase in ("bank", "settlement"):
            self._close_play_windows(None)  # the last box's window closes when the bank plays
        if round_.phase == "settlement" and self.watcher.phase == "locked" and self._settling_round != round_.number:
            self._settling_round = round_.number  # before closing: a closing alarm re-enters follow()
            for zone in list(self._open):
                self._close(zone)
            known = set(self.watcher.zones)
            self.watcher.begin_settlement({z: c for z, c in expected_zones(round_).items() if z in known})

    def _adopt(self, round_: Round) -> None:
        """After a restart mid-round: once every zone has been read, lock what is there and check it."""
        if round_.phase not in ("insurance", "playing", "bank", "settlement"):
            return
        enough = self.watcher.tracker.rule.appear_scans + 1
        if any(self._reads.get(zone, 0) < enough for zone in self.watcher.zones):
            return  # a chip counts after 2 reads: wait for a full picture of the table, every reader's zones
        snapshot = self.watcher.lock_bets(self.controller.limits)
        # The doubles and splits the journal replayed: their chips are in the lock, there is nothing to restore.
        self._window_actions = [() for _ in range(_doubles_and_splits(round_))]
        self._raise_lock_alarms(snapshot.alarms)  # the zones as they stand now: chips out of place are still so
        paid_early = set(paid_early_zones(round_))  # paid, maybe removed already: no stake to compare
        dead = dead_stakes(round_)  # busted: collected at once, or not yet
        for box in round_.boxes:
            seated = sum(s.cents for hand in box.hands for s in hand.stakes if s.owner == box.bet.owner)
            behind = sum(s.cents for hand in box.hands for s in hand.stakes if s.owner != box.bet.owner)
            line = snapshot.zones.get(f"box{box.number}.insurance", 0)
            if round_.phase == "insurance" and line:
                self._recovered_insurance[box.number] = line
            insured = box.insurance or self._recovered_insurance.get(box.number, 0)
            for zone, due in ((f"box{box.number}", seated), (f"box{box.number}.behind", behind),
                              (f"box{box.number}.insurance", insured)):
                seen = snapshot.zones.get(zone)
                if (seen is not None and seen != due and seen != due - dead.get(zone, 0)
                        and round_.phase != "settlement" and zone not in paid_early):
                    self.controller.raise_alarm(Alarm(
                        kind="past_posting", box=box.number, rule="TABLE.md Power loss; past-posting",
                        message=f"{zone}: {seen / 100:.2f} € on the zone after the restart, "
                                f"the recovered round has {due / 100:.2f} € there",
                        amounts=(("expected_cents", due), ("seen_cents", seen))))
        if round_.phase == "settlement":
            # The dealer may be paying already: what the zones held at the lock is unknown; check the end.
            self._settling_round = round_.number
            known = set(self.watcher.zones)
            self.watcher.begin_settlement({z: c for z, c in expected_zones(round_).items() if z in known})

    def _close_play_windows(self, keep_box: int | None) -> None:
        for zone, owner_box in list(self._open.items()):
            if owner_box != keep_box and not zone.endswith(".insurance"):
                self._open.pop(zone, None)
                verdict = self.watcher.close_window(zone)
                # No double or split was asked: any chips added are past-posting, whatever their amount.
                added = (verdict.added_cents if isinstance(verdict, WindowClosed) else
                         verdict.seen_cents or 0 if verdict.kind == "wrong_window_amount" else 0)
                if added > 0:
                    seen = self.watcher.total_cents(zone)
                    locked = seen - added
                    self.controller.raise_alarm(Alarm(
                        kind="past_posting", box=owner_box, rule="TABLE.md past-posting",
                        message=f"{zone}: {added / 100:.2f} € added with no double or split; "
                                f"locked {locked / 100:.2f} €, now {seen / 100:.2f} €",
                        amounts=(("expected_cents", locked), ("seen_cents", seen), ("added_cents", added))))
                elif isinstance(verdict, ChipAlarm):
                    self.controller.raise_alarm(game_alarm(verdict))

    def _follow_turn(self, round_: Round) -> None:
        hand = round_.current_hand
        allowed = round_.allowed()
        box = None if hand is None or not ({"DOUBLE", "SPLIT"} & set(allowed)) else hand.box
        self._close_play_windows(box)
        if hand is None or box is None:
            return
        stakes = hand.base_stakes()
        self._window(f"box{box}", box, "double", stakes[0].cents)
        behind = sum(stake.cents for stake in stakes[1:])
        if behind:
            self._window(f"box{box}.behind", box, "double", behind)

    def _window(self, zone: str, box: int, kind: WindowKind, cents: int) -> None:
        if zone in self._open or zone not in self.watcher.zones or cents <= 0:
            return
        self.watcher.open_window(zone, kind, cents)
        self._open[zone] = box

    def _close(self, zone: str, *, action: bool = False) -> WindowClosed | ChipAlarm:
        self._open.pop(zone, None)
        verdict = self.watcher.close_window(zone, action=action)
        if isinstance(verdict, ChipAlarm) and not zone.endswith(".insurance"):
            self.controller.raise_alarm(game_alarm(verdict))
        return verdict

    @staticmethod
    def _box_of(zone: str) -> int:
        return int(zone[3:].split(".")[0])
