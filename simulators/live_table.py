"""The demo table on real transports: the simulated dealer's hands work the simulated devices.

The shoe firmware runs on a pty and the real serial driver reads it; the chip
reader is simulated behind a pyusb backend and read by the real pyusb driver;
the dealer's buttons are gpiozero mock pins pressed and released. The
runtime (`TableApp`) sees only devices, exactly as on a table. Every action
waits until the runtime has seen its effect, so the demo never races ahead.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import random
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drivers.chip_reader import ReaderSettings, UsbChipReader
from drivers.dealer_panel import GpioDealerPanel
from drivers.shoe import SerialShoe
from firmware_bridge.rfid import Tag
from simulators.dealer import Acknowledge, Draw, Insure, Intent, Lock, Press, Shuffle, SimulatedDealer
from simulators.demo_tray import DemoChips, tray_action, tray_rows
from simulators.player_card import SimulatedCardReader
from simulators.rfid_backend import SIM_PRODUCT_ID, SIM_VENDOR_ID, RfidBackend, SimulatedReader
from simulators.rfid_chips import CASINO_ID as CASINO_ID  # re-exported: the bench and benchmarks import them here
from simulators.rfid_chips import ChipIssuer
from simulators.rfid_chips import ChipTray as ChipTray
from simulators.seance_dealer import SeanceDealer, SeanceStep
from simulators.shoe import SimulatedShoe
from simulators.simulation_errors import SimulationError
from simulators.staff import SUPERVISOR, DealerRotation
from table_runtime.chips.edge import ZoneReporter
from table_runtime.chips.registry import ChipRegistry
from table_runtime.config import PanelPins, zone_names
from table_runtime.core.alarm_ledger import needs_supervisor
from table_runtime.core.hyper_field import hyper_due, settlement_step
from table_runtime.core.zones_due import expected_zones
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.cards import Card
from table_runtime.game.commands import Command
from table_runtime.game.hyper_settlement import SETTLEMENT_STEPS, hyper_zone
from table_runtime.game.inputs import HyperBet
from table_runtime.game.shoe_count import shoe_number_of
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController

DEMO_PINS = PanelPins(deal=5, next=6, double=13, split=19, undo=26, confirm=21, surrender=14,
                      box_lamps=(17, 27, 22, 23, 24, 25, 12), tower_green=16, tower_amber=20, tower_red=4,
                      buzzer=18, debounce_seconds=0.02, void_hold_seconds=3.0)


class TableDevices(abc.ABC):
    """The simulated devices of one demo table as the dealer's hands reach them, and the real drivers that read them.

    `LiveDevices` holds them in this process; `simulators.device_link.RemoteDevices` reaches them in a devices
    process of their own, which outlives a kill -9 of the runtime.
    """

    zones: list[str]
    tray_rows: tuple[str, ...] = ()  # the chip tray's rows on the reader (simulators/demo_tray.py); none: no tray
    antennas: dict[int, str]
    reporter: ZoneReporter
    pin_factory: object
    pins: PanelPins
    shoe_link: Path
    backend: object  # a pyusb backend (usb.backend.IBackend) on which the reader is found

    @abc.abstractmethod
    def start(self) -> None:
        """The devices are switched on."""

    @abc.abstractmethod
    def stop(self) -> None:
        """The devices are switched off (the demo ended normally)."""

    @abc.abstractmethod
    def draw(self) -> Card:
        """The dealer pulls the next card out of the shoe."""

    @abc.abstractmethod
    def shuffle(self) -> None:
        """The dealer loads a new shoe, shuffled."""

    @abc.abstractmethod
    def put(self, zone: str, cents: int) -> list[Tag]:
        """Chips worth `cents` from the tray onto `zone`: the chips placed."""

    @abc.abstractmethod
    def clear(self, zone: str) -> list[Tag]:
        """Every chip on `zone` back to the tray: the chips taken."""

    @abc.abstractmethod
    def zone_chips(self) -> dict[str, list[Tag]]:
        """The chips lying on each zone now."""

    def pay(self, zone: str, cents: int) -> list[Tag]:
        """Chips worth `cents` from the dealer's tray onto `zone` (a payout); without a tray read, as `put`."""
        return self.put(zone, cents)

    def collect(self, zone: str) -> list[Tag]:
        """Every chip on `zone` into the dealer's tray (a losing stake); without a tray read, as `clear`."""
        return self.clear(zone)

    def at_tray(self, action: str, cents: int = 0) -> dict[str, Any]:
        """The dealer's move at a tray read by RFID (simulators/demo_tray.py `tray_action`)."""
        raise SimulationError("this demo table reads no chip tray")

    def app(self, controller: TableController, **extra: object) -> TableApp:
        shoe = SerialShoe(str(self.shoe_link), heartbeat_timeout=3.0)
        reader = UsbChipReader(ReaderSettings(vendor_id=SIM_VENDOR_ID, product_id=SIM_PRODUCT_ID,
                                              antenna_zones=self.antennas, name="demo-reader", scan_interval=0.05),
                               backend=self.backend)
        panel = GpioDealerPanel(self.pins, pin_factory=self.pin_factory)
        return TableApp(controller, shoe=shoe, panel=panel, readers=[reader],
                        chips=self.reporter, **extra)  # type: ignore[arg-type]


def demo_reporter(zones: list[str], data_dir: Path, registry_csv: str) -> ZoneReporter:
    """The readers' edge of the demo table (debounce, registry check) against the chip float's registry export,
    imported into DATA_DIR/chips.db."""
    registry = ChipRegistry(data_dir / "chips.db")
    try:
        registry.import_text(registry_csv, source="demo chip float")
        return ZoneReporter(zones, registry=registry.snapshot(), casino_id=CASINO_ID)
    finally:
        registry.close()


class LiveDevices(TableDevices):
    """The simulated devices of one demo table in this process (they stop with it)."""

    def __init__(self, controller: TableController, *, seed: int, data_dir: Path, pin_factory: object,
                 tray: bool = False) -> None:
        table = controller.table
        rules = table.rules
        self.shoe_sim = SimulatedShoe(seed=seed, shoe_number=max(1, shoe_number_of(table.shoe.shoe_id)),
                                      cards_already_drawn=table.shoe.dealt if table.shoe.loaded else 0,
                                      cut_cards_behind=rules.cut_card_depth, announce=False)
        self.shoe_link = self.shoe_sim.link
        self.zones = list(zone_names(rules.boxes, hyper=rules.hyper_blackjack))
        self.tray_rows = tray_rows() if tray else ()
        self.antennas = {index + 1: zone for index, zone in enumerate((*self.zones, *self.tray_rows))}
        self.reader_sim = SimulatedReader(self.antennas, antennas=len(self.antennas) + 1, seed=seed)
        self.backend = RfidBackend([self.reader_sim])
        issuer = ChipIssuer(CASINO_ID, seed=seed)
        self.tray = ChipTray(issuer)
        # The tray read by RFID, the players' chips and the cash desk's (simulators/demo_tray.py), all issued now
        self.chips = DemoChips(self.reader_sim, issuer) if tray else None
        self.reporter = demo_reporter([*self.zones, *self.tray_rows], data_dir, issuer.csv(delimiter=","))
        self.pin_factory = pin_factory
        self.pins = DEMO_PINS

    def start(self) -> None:
        self.shoe_sim.start()

    def stop(self) -> None:
        self.shoe_sim.stop()

    def draw(self) -> Card:
        return self.shoe_sim.draw()

    def shuffle(self) -> None:
        self.shoe_sim.shuffle()

    def put(self, zone: str, cents: int) -> list[Tag]:
        if self.chips is not None:
            return self.chips.stake(zone, cents)
        chips = self.tray.take(cents)
        self.reader_sim.place(zone, *chips)
        return chips

    def clear(self, zone: str) -> list[Tag]:
        if self.chips is not None:
            return self.chips.to_player(zone)
        chips = self.reader_sim.take_all(zone)
        self.tray.give_back(chips)
        return chips

    def pay(self, zone: str, cents: int) -> list[Tag]:
        return self.put(zone, cents) if self.chips is None else self.chips.pay(zone, cents)

    def collect(self, zone: str) -> list[Tag]:
        return self.clear(zone) if self.chips is None else self.chips.collect(zone)

    def at_tray(self, action: str, cents: int = 0) -> dict[str, Any]:
        if self.chips is None:
            return super().at_tray(action, cents)
        return tray_action(self.chips, action, cents)

    def zone_chips(self) -> dict[str, list[Tag]]:
        return {zone: self.reader_sim.chips(zone) for zone in self.zones}


class LiveHands:
    """What the simulated dealer and players do with their hands, on the simulated devices."""

    def __init__(self, app: TableApp, devices: TableDevices, rng: random.Random, *, error_rate: float,
                 buy_in_cents: int = 0, card_reader: SimulatedCardReader | None = None) -> None:
        self.app = app
        self.card_reader = card_reader  # the table's player card reader (a player swipes his card at a new shoe)
        self.buy_in_cents = buy_in_cents  # the players' buy-in the dealer records at each new shoe (0: none)
        self.devices = devices
        self.rng = rng
        self.error_rate = error_rate
        self.controller = app.controller
        # What lies on the zones: after a restart, whatever the devices kept there; an empty zone is known to be
        # empty too, so the dealer waits until the table has read it so before CONFIRM checks it.
        self.zone_chips: dict[str, list[Tag]] = defaultdict(list)
        self.short = 0  # what the dealer paid short in the round's settlement (handed over after CONFIRM)
        for zone, chips in devices.zone_chips().items():
            self.zone_chips[zone] = chips

    async def until(self, what: str, condition: Callable[[], bool], seconds: float = 10.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while True:
            await self.controller.writer.settled()  # the table as the journal has it, no step half done
            if condition():
                return
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError(f"the table did not see: {what}")
            with contextlib.suppress(TimeoutError):
                await self.app.wait_for_change(min(left, 0.5))

    # chips -------------------------------------------------------------------------------
    def _zone_total(self, zone: str) -> int:
        return self.controller.core.chips.total(zone)

    def _expected_totals(self) -> dict[str, int]:
        return {zone: sum(chip.denomination_cents or 0 for chip in chips) for zone, chips in self.zone_chips.items()}

    async def settle_zones(self) -> None:
        expected = self._expected_totals()
        await self.until("the chips on the zones", lambda: all(self._zone_total(z) == c for z, c in expected.items()))

    def put(self, zone: str, cents: int) -> None:
        self.zone_chips[zone].extend(self.devices.put(zone, cents))

    def clear(self, zone: str) -> None:
        self.devices.clear(zone)
        self.zone_chips[zone] = []

    def pay(self, zone: str, cents: int) -> None:
        self.zone_chips[zone].extend(self.devices.pay(zone, cents))

    def collect(self, zone: str) -> None:
        self.devices.collect(zone)
        self.zone_chips[zone] = []

    async def settle_tray(self) -> None:
        """Until the table has read the tray whole as it lies (its chips by UID): a dealer who racks chips lets
        the readers see them before he deals or counts (core/tray.py). Nothing without a tray read."""
        if not self.devices.tray_rows:
            return
        rows: dict[str, list[str]] = (await asyncio.to_thread(self.devices.at_tray, "read"))["rows"]
        lying = {uid for uids in rows.values() for uid in uids}
        await self.until("the tray read whole", lambda: set(self.controller.core.tray.chips) == lying
                         and all(row in self.controller.core.tray.rows for row in rows))

    async def tray_counted(self) -> dict[str, int]:
        """The tray by denomination as the table read it, once read as it lies: the count of a séance's open or
        close by the tray (`source` tray, docs/accounts.md)."""
        await self.settle_tray()
        return {str(cents): number for cents, number in self.controller.core.tray.by_denomination().items()}

    def top_up(self, zone: str, cents: int) -> None:
        """Put what `zone` lacks to hold `cents` (a restarted dealer may find the stake already there)."""
        have = self._expected_totals().get(zone, 0)
        if have > cents:
            self.clear(zone)
            have = 0
        if cents > have:
            self.put(zone, cents - have)

    # buttons -----------------------------------------------------------------------------
    async def press(self, command: str) -> None:
        """A panel button (pressed and released on its mock pin), or a touch on the display."""
        seq = self.controller.last_seq
        if command not in self.devices.pins.buttons:
            await self.app.command(command, {}, role="dealer")
            await self.until(f"the {command} touch", lambda: self.controller.last_seq > seq)
            return
        pin = self.devices.pins.buttons[command]
        factory = self.devices.pin_factory
        panel = self.app.panel
        assert isinstance(panel, GpioDealerPanel), "the live table's hands press the runtime's mock-pin panel"
        # Each edge held until the panel has taken it, as a hand: a press right after a release is a bounce to
        # the panel's debounce, judged only when the loop gets to it (lost if already over by then).
        factory.pin(pin).drive_low()  # type: ignore[attr-defined]
        async with asyncio.timeout(10):
            await panel.wait_for_press(command)
        factory.pin(pin).drive_high()  # type: ignore[attr-defined]
        async with asyncio.timeout(10):
            await panel.wait_for_release(command)
        await self.until(f"the {command} button", lambda: self.controller.last_seq > seq)

    # the dealer's intents ------------------------------------------------------------------
    async def act(self, intent: Intent) -> None:
        controller = self.controller
        table = controller.table
        if isinstance(intent, Draw):
            dealt = table.shoe.dealt
            await asyncio.to_thread(self.devices.draw)
            await self.until("the card from the shoe", lambda: table.shoe.dealt > dealt)
        elif isinstance(intent, Shuffle):
            shoe_id = table.shoe.shoe_id
            await asyncio.to_thread(self.devices.shuffle)
            await self.until("the new shoe", lambda: table.shoe.shoe_id != shoe_id and table.shoe.loaded)
            if self.buy_in_cents:  # the players change cash for chips as the new shoe starts: the table's drop
                await self.app.command("BUY_IN", {"cents": self.buy_in_cents}, role="dealer")
                if self.devices.tray_rows:  # the chips sold come out of the tray
                    await asyncio.to_thread(self.devices.at_tray, "sell", self.buy_in_cents)
            if self.card_reader is not None:
                await self.seat_by_card(self.card_reader)
        elif isinstance(intent, Lock):
            stakes = {zone: 0 for zone, chips in self.zone_chips.items() if chips}  # left from before a restart
            for bet in intent.bets.bets:
                stakes[f"box{bet.box}"] = bet.seated_cents
                if bet.behind:
                    stakes[f"box{bet.box}.behind"] = sum(behind.cents for behind in bet.behind)
            hyper = [bet for bet in intent.bets.hyper if hyper_zone(bet.case) in self.devices.zones]
            for stake in hyper:  # the players' chips on the shared hyper field, one pile per case (55-4 6°)
                stakes[hyper_zone(stake.case)] = stakes.get(hyper_zone(stake.case), 0) + stake.cents
            for zone, cents in stakes.items():
                self.top_up(zone, cents)
            await self.settle_zones()
            await self.settle_tray()  # the tray as the last round and the séance left it, read before the lock
            await self.assign_hyper(hyper)
            await self.press("DEAL")
        elif isinstance(intent, Insure):
            self.top_up(f"box{intent.box}.insurance", intent.cents)
            await self.settle_zones()
        elif isinstance(intent, Press):
            await self._press(intent)
        elif isinstance(intent, Acknowledge):
            for alarm in controller.alarms.active:  # the pit supervisor of the demo clears the serious ones
                args = {"id": alarm["id"]}
                if not needs_supervisor(str(alarm["kind"])):
                    await self.app.command("ACK_ALARM", args, role="dealer")
                elif self.app.staff is not None:  # the staff registry: the supervisor by name (simulators/staff.py)
                    await self.app.staff.command_by("ACK_ALARM", args, role="supervisor",
                                                    employee=SUPERVISOR.employee_id)
                else:
                    await self.app.command("ACK_ALARM", args, role="supervisor")

    async def assign_hyper(self, hyper: list[HyperBet]) -> None:
        """The dealer says on the display whose each case's chips are (HYPER_ASSIGN), before DEAL: the table
        refuses the deal while a case's chips are nobody's (core/hyper_field.py)."""
        for bet in hyper:  # answered once journaled; a refusal is on the banner, and DEAL then says what is wrong
            await self.app.command("HYPER_ASSIGN", {"case": bet.case, "box": bet.box, "cents": bet.cents},
                                   role="dealer")

    async def rotate(self, rotation: DealerRotation, card_reader: SimulatedCardReader) -> None:
        """The next dealer takes the table when his turn comes: his badge at the table's reader pushes the dealer
        on shift (runtime/staff_desk.py)."""
        controller = self.controller
        relief = rotation.due()
        if relief is None or controller.core.shift.dealer == relief.employee_id:
            return
        await asyncio.to_thread(card_reader.swipe, relief.badge)  # a badge reader types the number alone
        await self.until(f"dealer {relief.employee_id} on shift",
                         lambda: controller.core.shift.dealer == relief.employee_id)

    async def seat_by_card(self, card_reader: SimulatedCardReader) -> None:
        """A rated player swipes his card at the table's reader; the dealer taps his box on the display."""
        controller = self.controller
        number = f"4000{card_reader.swiped % 12:04d}"  # twelve regulars come and go
        box = 1 + self.rng.randrange(controller.rules.boxes)
        await asyncio.to_thread(card_reader.swipe, number, track=2)
        await self.until("the player card read", lambda: controller.core.card_waiting is not None)
        await self.app.command("SEAT_CARD", {"box": box}, role="dealer")

    async def _press(self, intent: Press) -> None:
        round_ = self.controller.table.round
        if intent.command in ("DOUBLE", "SPLIT") and round_ is not None and round_.current_hand is not None:
            hand = round_.current_hand
            box = round_.box(hand.box)
            assert box is not None
            stakes = hand.base_stakes()
            # the box's stakes so far plus the one added (a restarted dealer may have added it before the kill)
            seated = sum(stake.cents for other in box.hands for stake in other.stakes if stake.owner == box.bet.owner)
            behind = sum(stake.cents for other in box.hands for stake in other.stakes if stake.owner != box.bet.owner)
            self.top_up(f"box{hand.box}", seated + stakes[0].cents)
            following = sum(stake.cents for stake in stakes[1:] if stake.owner in intent.behind_following)
            if following or behind:
                self.top_up(f"box{hand.box}.behind", behind + following)
            await self.settle_zones()
        if intent.command == "CONFIRM" and round_ is not None and round_.phase == "settlement" and not round_.held:
            self.short = 0
            await self._pay(round_)
            await self.press("CONFIRM")
            if self.short and self.devices.tray_rows:  # the payout the readers found short: the rest from the tray
                await asyncio.to_thread(self.devices.at_tray, "sell", self.short)
            for zone in list(self.zone_chips):  # the players take their chips
                self.clear(zone)
            await self.settle_zones()
            return
        await self.press(intent.command)

    async def _pay(self, round_: object) -> None:
        """The dealer collects and pays each zone to what it is due (sometimes one chip short); with hyper stakes,
        in the text's four steps (55-4 6°: the hyper field's losers, the boxes' losers, the boxes' winners, the
        hyper field's winners), each seen by the readers before the next."""
        from table_runtime.game.round import Round

        assert isinstance(round_, Round)
        due_by_zone = expected_zones(round_)
        if round_.hyper_bets:
            due_by_zone.update(hyper_due(round_, self._expected_totals()))
        steps: dict[str | None, list[tuple[str, int]]] = {}
        for zone, due in due_by_zone.items():
            if zone in self.devices.zones:
                steps.setdefault(settlement_step(zone, due, self._expected_totals().get(zone, 0)), []).append(
                    (zone, due))
        for step in SETTLEMENT_STEPS:
            for zone, due in steps.get(step, []):
                self._pay_zone(zone, due)
            if round_.hyper_bets and steps.get(step):
                await self.settle_zones()
        await self.settle_zones()

    def _pay_zone(self, zone: str, due: int) -> None:
        have = self._expected_totals().get(zone, 0)
        if due > have:
            pay = due - have
            if self.error_rate and self.rng.random() < self.error_rate and pay > 500:
                pay -= 500  # a wrong payout: the chip readers catch it at CONFIRM
                self.short += 500
            self.pay(zone, pay)
        elif due < have:
            self.collect(zone)
            if due:
                self.pay(zone, due)


async def seance_steps(app: TableApp, seance: SeanceDealer, steps: list[SeanceStep], hands: LiveHands) -> None:
    """The séance's commands on the display, as the dealer or the supervisor; the identity the table asks for after
    a buy-in is recorded at once (simulators/seance_dealer.py). A refusal is a bug of the demo, never a loop.

    With the tray read by RFID the dealer's hands move its chips as the steps say (simulators/demo_tray.py): the
    open and the close count the tray as the table read it (`source` tray), a buy-in's chips leave it, a credit's
    chips are taken from it as the slip is asked, a fill's are racked once the supervisor confirmed it."""
    controller = app.controller
    devices = hands.devices
    fills: dict[int, int] = {}  # slip number -> the fill's cents, racked at its confirmation
    for step in steps:
        args = dict(step.args)
        if devices.tray_rows and step.command in (Command.SEANCE_OPEN, Command.SEANCE_CLOSE):
            args = {"chips": await hands.tray_counted(), "source": "tray"}
            step = SeanceStep(step.command, args, step.role, step.tray_cents)
        elif devices.tray_rows and step.command == Command.CREDIT:
            cents = sum(int(denomination) * number for denomination, number in args["chips"].items())
            args = {"chips": (await asyncio.to_thread(devices.at_tray, "credit", cents))["chips"]}
        reply = await app.command(step.command, args, role=step.role)
        if not reply["ok"]:
            raise SimulationError(f"the simulated dealer's {step.command} was refused: {reply['message']}")
        seance.took(step)
        if devices.tray_rows and step.command == Command.FILL:
            account = controller.core.seances.current
            assert account is not None
            fills[account.slips[-1].number] = account.slips[-1].chips.cents
        elif devices.tray_rows and step.command == Command.SLIP_CONFIRM and int(args["number"]) in fills:
            await asyncio.to_thread(devices.at_tray, "fill", fills.pop(int(args["number"])))
        elif devices.tray_rows and step.command == Command.BUY_IN:
            await asyncio.to_thread(devices.at_tray, "sell", int(args["cents"]))
        if step.command == Command.BUY_IN:
            await seance_steps(app, seance, seance.identities(controller.core.seances, controller.alarms.active),
                               hands)


async def deal_rounds(app: TableApp, devices: TableDevices, *, rounds: int | None, seed: int, pace: float,
                      error_rate: float, on_round: Callable[[int], None] | None = None, buy_in_cents: int = 0,
                      card_reader: SimulatedCardReader | None = None, rotation: DealerRotation | None = None,
                      seance_rounds: int = 0, players_net: dict[int, int] | None = None) -> int:
    """The simulated dealer deals `rounds` rounds (forever when None) on the live devices; `buy_in_cents`: the
    buy-in recorded at each new shoe (0: none); `card_reader`: the table's player card reader, where a rated
    player swipes his card at each new shoe; `rotation`: the dealers who take the table in turn, each by his badge
    at that reader (a push, core/shift.py), between rounds; `seance_rounds`: a séance opened and closed every so
    many rounds (0: none), the players' settled net of each counted into `players_net` by séance."""
    controller = app.controller
    rng = random.Random(f"live:{seed}:{controller.journal.last_seq}")
    dealer = SimulatedDealer(controller.table, rng, error_rate=error_rate)
    hands = LiveHands(app, devices, rng, error_rate=error_rate, buy_in_cents=buy_in_cents, card_reader=card_reader)
    seance = SeanceDealer(random.Random(f"seance:{seed}:{controller.journal.last_seq}"), rounds=seance_rounds,
                          min_bet_cents=controller.table.limits.min_bet_cents,
                          boxes=controller.table.rules.boxes) if seance_rounds else None
    nets = {} if players_net is None else players_net
    await hands.until("the shoe online", lambda: controller.devices.get("shoe") == "online", 20)
    await hands.until("the chip reader online", lambda: controller.devices.get("chips") == "online", 20)
    done, step_pace = 0, pace
    while rounds is None or done < rounds:
        await controller.writer.settled()  # the dealer looks at the table as the journal has it
        closed_before = controller.table.rounds_started if controller.table.round_closed else -1
        refused = controller.alarms.counts.get(AlarmKind.COMMAND_REFUSED, 0)
        if rotation is not None and card_reader is not None and not controller.table.round_in_play:
            await hands.rotate(rotation, card_reader)
            on_shift = rotation.dealer(controller.core.shift.dealer)  # his own pace and errors
            if on_shift is not None:
                step_pace = pace * on_shift.pace_factor
                dealer.error_rate = hands.error_rate = min(1.0, error_rate * on_shift.error_factor)
        intent = dealer.next_intent(controller.table)
        if seance is not None and isinstance(intent, Lock):  # between rounds, before the bets lock
            await seance_steps(app, seance, seance.steps(controller.core.seances), hands)
        if devices.tray_rows and isinstance(intent, Lock):  # the dealer colours his tray with the cash desk
            await asyncio.to_thread(devices.at_tray, "tidy")
        await hands.act(intent)
        await controller.writer.settled()
        dealer.saw(intent, _refusal(controller) if controller.alarms.counts.get(AlarmKind.COMMAND_REFUSED, 0) > refused
                   else None)
        table = controller.table
        round_ = table.round
        if round_ is not None and round_.phase in ("closed", "voided") and table.rounds_started != closed_before:
            done += 1
            current = controller.core.seances.current
            if seance is not None and current is not None:  # the round's settlement, as the demo counts it
                net = sum(payout.net_cents for payout in round_.payouts)
                seance.settled(net)
                nets[current.number] = nets.get(current.number, 0) + net
            if on_round is not None:
                on_round(done)
        if step_pace:
            await asyncio.sleep(step_pace)
    await controller.writer.settled()
    if seance is not None and controller.core.seances.current is not None and not controller.table.round_in_play:
        await seance_steps(app, seance, [seance.close()], hands)  # the demo's end closes its séance
    return done


def _refusal(controller: TableController) -> str:
    """The message of the latest refused command still on the banner."""
    refusals = [alarm for alarm in controller.alarms.active if alarm["kind"] == AlarmKind.COMMAND_REFUSED]
    return str(refusals[-1]["message"]) if refusals else "command refused"
