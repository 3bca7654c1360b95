"""The asyncio shell around the controller: shoe, chip readers, dealer panel, display and feed.

One `TaskGroup`; each device is an async context manager entered for the
life of the app. Devices hand their readings to the controller on the event
loop (the chip reader and the panel already hop from their threads with
`call_soon_threadsafe`). After every committed change one coalescing task
pushes the snapshot to the display, wakes the feed and sets the lamps.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

from drivers.ports import CardShoe, ChipReader, ChipsScanned, DealerPanel, ReaderOffline, ReaderOnline, Tower
from firmware_bridge.shoe import events as shoe_events
from table_runtime.chips.watch import WatcherUseError
from table_runtime.core.shoe_watch import ShoeWatch, TableCounts
from table_runtime.display.server import DisplayServer
from table_runtime.errors import CardCodeError
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.game.cards import Card
from table_runtime.game.events import Alarm, Event
from table_runtime.game.inputs import (
    CardDrawn,
    Confirm,
    CutCardReached,
    Discard,
    Double,
    Input,
    Next,
    ShoeShuffled,
    Split,
    Undo,
    Void,
)
from table_runtime.game.shoe_count import shoe_id_of
from table_runtime.runtime.alarms import needs_supervisor
from table_runtime.runtime.chip_link import ChipLink
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.device_log import log_device_event
from table_runtime.runtime.recall import recall_rounds
from table_runtime.runtime.registry_follow import RegistryFollower


class TableApp:
    """Devices, display and feed wired to one controller; also the display's backend."""

    def __init__(
        self,
        controller: TableController,
        *,
        shoe: CardShoe | None = None,
        panel: DealerPanel | None = None,
        readers: Sequence[ChipReader] = (),
        chip_link: ChipLink | None = None,
        display: DisplayServer | None = None,
        feed: FeedPublisher | None = None,
        registry: RegistryFollower | None = None,
    ) -> None:
        self.controller = controller
        self.registry = registry
        self.shoe = shoe
        self.shoe_watch = ShoeWatch()
        self._shoe_timer: asyncio.TimerHandle | None = None
        self.panel = panel
        self.readers = tuple(readers)
        self._readers_online: set[str] = set()  # names of the readers whose last word was ReaderOnline
        self.chip_link = chip_link
        self.display = display
        self.feed = feed
        self.changed = asyncio.Event()
        self._dirty = asyncio.Event()
        self._stopping = asyncio.Event()
        self._stop_reason = "shutdown"
        controller.subscribe(self._on_change)

    # ------------------------------------------------------------- lifetime

    def stop(self, reason: str = "shutdown") -> None:
        """Ask `run` to return (SIGTERM, end of a demo); the feed stops after the last row is published."""
        self._stop_reason = reason
        self._stopping.set()

    async def run(self) -> None:
        """Run until `stop()`; leaves nothing half-written (the journal commits per input)."""
        async with contextlib.AsyncExitStack() as stack:
            if self.display is not None:
                await stack.enter_async_context(self.display)
            if self.feed is not None:
                await stack.enter_async_context(self.feed)
            if self.shoe is not None:
                await stack.enter_async_context(self.shoe)
            if self.panel is not None:
                await stack.enter_async_context(self.panel)
            for reader in self.readers:
                await stack.enter_async_context(reader)
            async with asyncio.TaskGroup() as tasks:
                workers = [tasks.create_task(self._publish_loop())]  # cancelled at the stop
                if self.feed is not None:
                    tasks.create_task(self.feed.run())  # ends by itself once the feed is stopped
                    workers.append(tasks.create_task(self._broker_loop(self.feed)))
                if self.shoe is not None:
                    workers.append(tasks.create_task(self._shoe_loop(self.shoe)))
                if self.panel is not None:
                    workers.append(tasks.create_task(self._panel_loop(self.panel)))
                for reader in self.readers:
                    workers.append(tasks.create_task(self._reader_loop(reader)))
                if self.registry is not None:
                    workers.append(tasks.create_task(self.registry.run()))
                self._on_change()
                await self._stopping.wait()
                self.controller.note({"type": "Stopping", "table_id": self.controller.table_id})
                if self.feed is not None:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(5):
                            await self.feed.wait_published(self.controller.journal.last_seq)
                    self.feed.stop(self._stop_reason)
                for worker in workers:
                    worker.cancel()

    async def _broker_loop(self, feed: FeedPublisher) -> None:
        """The broker's state on the display: the table keeps playing while it is down (the journal holds all)."""
        while True:
            self.controller.set_device("broker", "online" if feed.connected else "offline")
            await asyncio.sleep(1.0)

    # -------------------------------------------------------------- changes

    def _on_change(self) -> None:
        self._dirty.set()
        if self.chip_link is not None:
            self.chip_link.follow()

    async def _publish_loop(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            snapshot = self.controller.snapshot()
            if self.feed is not None:
                self.feed.notify()
                self.feed.offer_state(snapshot)
            if self.panel is not None:
                self._lamps(snapshot)
            if self.display is not None:
                await self.display.publish(snapshot)
            self.changed.set()
            self.changed = asyncio.Event()

    def _lamps(self, snapshot: dict[str, Any]) -> None:
        assert self.panel is not None
        turn = snapshot["turn"]
        self.panel.show_turn(None if turn is None else int(turn["box"]))
        if snapshot["alarms"]:
            self.panel.alarm_on()
        else:
            self.panel.alarm_off()
        waiting = snapshot["phase"] in ("insurance", "settlement") or snapshot["held_cards"]
        self.panel.set_tower(Tower.WAITING if waiting else Tower.PLAY)

    async def wait_for_change(self, seconds: float = 5.0) -> None:
        """For simulators and tests: until the next published snapshot."""
        changed = self.changed
        async with asyncio.timeout(seconds):
            await changed.wait()

    # ----------------------------------------------------------------- shoe

    async def _shoe_loop(self, shoe: CardShoe) -> None:
        try:
            async for event in shoe.events():
                self.on_shoe_event(event)
        finally:
            if self._shoe_timer is not None:
                self._shoe_timer.cancel()

    def on_shoe_event(self, event: shoe_events.ShoeEvent) -> None:
        """Cards, shuffles and the cut card into the round; the shoe's rules (core/shoe_watch.py) raise the alarms."""
        log_device_event(event)
        controller = self.controller
        if isinstance(event, shoe_events.CardDrawn):
            self._lock_on_first_card()
            controller.submit(CardDrawn(card=Card.parse(event.code)), source="shoe")
        elif isinstance(event, shoe_events.ShoeShuffled):
            controller.submit(ShoeShuffled(shoe_id=shoe_id_of(event.shoe_id)), source="shoe")
        elif isinstance(event, shoe_events.CutCardReached):
            controller.submit(CutCardReached(), source="shoe")
        elif isinstance(event, (shoe_events.ShoeOnline, shoe_events.ShoeOffline)):
            controller.set_device("shoe", "online" if isinstance(event, shoe_events.ShoeOnline) else "offline")
        loop = asyncio.get_running_loop()
        for alarm in self.shoe_watch.on_event(event, TableCounts.of(controller.table), loop.time()):
            controller.raise_alarm(alarm)
        self._schedule_shoe_check(loop)

    def _schedule_shoe_check(self, loop: asyncio.AbstractEventLoop) -> None:
        """Wake up when the watch has a count to judge: the watch decides, on the loop's clock."""
        if self._shoe_timer is not None:
            self._shoe_timer.cancel()
            self._shoe_timer = None
        due = self.shoe_watch.next_due
        if due is not None:
            self._shoe_timer = loop.call_at(due, self._shoe_check_due, loop)

    def _shoe_check_due(self, loop: asyncio.AbstractEventLoop) -> None:
        self._shoe_timer = None
        if self._stopping.is_set():
            return
        for alarm in self.shoe_watch.due(TableCounts.of(self.controller.table), loop.time()):
            self.controller.raise_alarm(alarm)
        self._schedule_shoe_check(loop)  # a timer a hair early: the check is still pending

    def _lock_on_first_card(self) -> None:
        """The first card out of the shoe locks the bets (TABLE.md step 1) if the dealer did not."""
        table = self.controller.table
        if self.chip_link is None or table.round_in_play or not table.shoe.loaded or table.shoe.burns_left:
            return
        if not self.chip_link.has_stakes():
            return  # no bets on the table: the card is one no hand may take (an alarm from the round)
        self.chip_link.lock_bets(source="first card")

    # ---------------------------------------------------------------- chips

    async def _reader_loop(self, reader: ChipReader) -> None:
        async for event in reader.events():
            log_device_event(event)
            if self.chip_link is None:
                continue
            if isinstance(event, ReaderOffline):
                self._readers_online.discard(event.reader)
            if isinstance(event, (ChipsScanned, ReaderOffline)):
                self.chip_link.reader_event(event)  # an offline reader: the chips are offline
            elif isinstance(event, ReaderOnline):
                self._readers_online.add(event.reader)
                if self._readers_online >= {other.name for other in self.readers}:
                    self.controller.set_device("chips", "online")  # only once every reader reads its zones

    # ------------------------------------------------------------- commands

    async def _panel_loop(self, panel: DealerPanel) -> None:
        async for command in panel.commands():
            result = self.apply_command(str(command), {}, role="supervisor" if command == "VOID" else "dealer",
                                        source="panel")
            if not result["ok"] and not result.get("alarmed"):
                self.controller.raise_alarm(Alarm(kind="command_refused", message=result["message"],
                                                  rule="TABLE.md A round"))

    def apply_command(self, name: str, args: dict[str, Any], *, role: str, source: str) -> dict[str, Any]:
        """A dealer command from the panel or the display; refusals by the rules arrive as alarms."""
        try:
            return self._apply_command(name, args, role=role, source=source)
        except WatcherUseError as error:
            # The chip watch lost step: the command is not applied; the watch restarts with the next round.
            assert self.chip_link is not None
            self.chip_link.suspend(error)
            return {"ok": False, "message": f"{name} not applied: {error}", "alarmed": True}

    def _apply_command(self, name: str, args: dict[str, Any], *, role: str, source: str) -> dict[str, Any]:
        controller = self.controller
        table = controller.table
        link = self.chip_link
        item: Input
        if name == "DEAL":
            if link is None:
                return {"ok": False, "message": "no chip reader: bets cannot be locked from the zones"}
            if not link.lock_bets(source=source):
                return {"ok": True, "message": "bets not locked: see the alarms"}
            return {"ok": True, "message": "bets locked"}
        if name == "ACK_ALARM":
            alarm_id = int(args.get("id", 0))
            alarm = controller.alarms.get(alarm_id)
            if alarm is None:
                return {"ok": False, "message": "no such alarm"}
            if role != "supervisor" and needs_supervisor(str(alarm["kind"])):
                return {"ok": False, "message": f"alarm {alarm_id} ({alarm['kind']}) needs the supervisor PIN"}
            acknowledged = controller.acknowledge(alarm_id, by=role)
            return {"ok": acknowledged, "message": "acknowledged" if acknowledged else "no such alarm"}
        if name == "MANUAL_CARD":
            try:
                card = Card.parse(str(args.get("card", "")))
            except CardCodeError as error:
                return {"ok": False, "message": str(error)}
            self._lock_on_first_card()
            controller.submit(CardDrawn(card=card, manual=True, by=role), source=source)
            return {"ok": True, "message": f"{card} entered by hand"}
        if name in ("DOUBLE", "SPLIT"):
            following = link.before_double_or_split() if link is not None else ()
            item = Double(behind_following=following) if name == "DOUBLE" else Split(behind_following=following)
        elif name == "CONFIRM":
            round_ = table.round
            if link is not None and round_ is not None and round_.phase == "insurance":
                # The chips on the line and the CONFIRM that closes it are one step: the link follows
                # the round once, after the window closed (not between two boxes' insurance, which
                # would open the line again for the rest of the round), and a crash keeps all or none.
                placed: list[tuple[Input, str]] = [(insured, "chips") for insured in link.insurance_inputs()]
                events = controller.submit_all([*placed, (Confirm(), source)])[-1]
                return self._result(name, events)
            if link is not None and round_ is not None and round_.phase == "settlement" and not round_.held:
                link.verify_payouts()
            item = Confirm()
        elif name == "VOID":
            if role != "supervisor":
                return {"ok": False, "message": "VOID needs the supervisor"}
            item = Void(by=role, reason=str(args.get("reason", "misdeal")))
        else:
            simple: dict[str, Input] = {"NEXT": Next(), "UNDO": Undo(by=role), "DISCARD": Discard(by=role)}
            if name not in simple:
                return {"ok": False, "message": f"unknown command {name!r}"}
            item = simple[name]
        return self._result(name, controller.submit(item, source=source))

    @staticmethod
    def _result(name: str, events: list[Event]) -> dict[str, Any]:
        refusals = [event.message for event in events if isinstance(event, Alarm) and event.kind == "command_refused"]
        return {"ok": not refusals, "message": refusals[0] if refusals else f"{name} done", "alarmed": bool(refusals)}

    # -------------------------------------------------------- display backend

    def snapshot(self) -> dict[str, Any]:
        return self.controller.snapshot()

    async def command(self, name: str, args: dict[str, Any], *, role: str) -> dict[str, Any]:
        return self.apply_command(name, args, role=role, source="display")

    def security_alarm(self, kind: str, message: str, rule: str) -> None:
        self.controller.raise_alarm(Alarm(kind=kind, message=message, rule=rule))

    def recall(self, last: int) -> list[dict[str, Any]]:
        controller = self.controller
        return recall_rounds(controller.journal, controller.rules, controller.limits, last=last,
                             table_id=controller.table_id)
