"""The asyncio shell around the controller: shoe, chip readers, dealer panel, display and feed.

One `TaskGroup`; each device is an async context manager entered for the
life of the app. Devices hand their readings to the controller on the event
loop (the chip reader and the panel already hop from their threads with
`call_soon_threadsafe`). After every committed change one coalescing task
pushes the snapshot to the display, wakes the feed and sets the lamps.

A shoe event is acknowledged to the shoe only after what it caused is
journaled (`CardShoe.acknowledge`): a crash before that, the shoe resends it;
a journal that refuses it (`JournalUnwritableError`), it is handed back
(`CardShoe.redeliver`) and comes again with the shoe's resend. The shoe's
messages already journaled (its boot id and sequence are in each input row's
`origin`) are acknowledged and not taken twice after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

from drivers.ports import CardShoe, ChipReader, ChipsScanned, DealerPanel, ReaderOffline, ReaderOnline, Tower
from firmware_bridge.shoe import events as shoe_events
from table_runtime.chips.edge import ZoneReporter
from table_runtime.core.commands import panel_role
from table_runtime.core.inputs import ZoneChanged
from table_runtime.core.shoe_watch import ShoeWatch, TableCounts
from table_runtime.display.server import DisplayServer
from table_runtime.errors import ConfigError
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.game.cards import Card
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import CardDrawn, CutCardReached, ShoeShuffled
from table_runtime.game.shoe_count import shoe_id_of
from table_runtime.journal import JournalUnwritableError
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.crash_points import CrashPoints
from table_runtime.runtime.device_log import log_device_event
from table_runtime.runtime.journal_audit import audit_journal
from table_runtime.runtime.recall import recall_rounds
from table_runtime.runtime.registry_follow import RegistryFollower
from table_runtime.runtime.shoe_marks import ShoeMarks

JOURNAL_RETRY_S = 2.0  # how often an unwritable journal is tried again (the shoe's resends also try it)
BURST_MAX = 64  # shoe events journaled in one step at most


class TableApp:
    """Devices, display and feed wired to one controller; also the display's backend."""

    def __init__(
        self,
        controller: TableController,
        *,
        shoe: CardShoe | None = None,
        panel: DealerPanel | None = None,
        readers: Sequence[ChipReader] = (),
        chips: ZoneReporter | None = None,
        display: DisplayServer | None = None,
        feed: FeedPublisher | None = None,
        registry: RegistryFollower | None = None,
        journal_retry_seconds: float = JOURNAL_RETRY_S,
        crash_points: CrashPoints | None = None,
    ) -> None:
        self.controller = controller
        self.journal_retry_seconds = journal_retry_seconds  # while the journal cannot be written
        self._crash_points = crash_points or CrashPoints()
        self._shoe_marks = ShoeMarks(controller.journal)  # which shoe events are journaled already
        self._in_outage = False
        self.registry = registry
        self.shoe = shoe
        self.shoe_watch = ShoeWatch()
        self._shoe_timer: asyncio.TimerHandle | None = None
        self.panel = panel
        self.readers = tuple(readers)
        self._readers_online: set[str] = set()  # names of the readers whose last word was ReaderOnline
        if chips is not None and not set(chips.zones) <= set(controller.zones):
            raise ConfigError("chips", f"the readers' zones {sorted(set(chips.zones) - set(controller.zones))} "
                                       "are not the table's: give the controller the same zones")
        self.chips = chips
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
                workers = [tasks.create_task(self._publish_loop()),  # cancelled at the stop
                           tasks.create_task(audit_journal(self.controller)),  # the rows the start did not verify
                           tasks.create_task(self._journal_retry_loop())]
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
        outage = self.controller.outage is not None
        if self._in_outage and not outage:
            asyncio.get_running_loop().call_soon(self._after_outage)  # not from inside the controller's call
        self._in_outage = outage

    async def _journal_retry_loop(self) -> None:
        """While the journal cannot be written, try again every `journal_retry_seconds` (the alarm is on)."""
        while True:
            await asyncio.sleep(self.journal_retry_seconds)
            if self.controller.outage is not None:
                self.controller.retry_journal()

    def _after_outage(self) -> None:
        """The journal takes rows again: the zones the readers reported meanwhile were refused; report them again
        (the shoe resends its unacknowledged events by itself)."""
        if self.chips is not None and not self._stopping.is_set():
            self.report_chips(self.chips.reported())

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
        core = self.controller.core
        self.panel.show_turn(core.turn_box)
        if snapshot["alarms"]:
            self.panel.alarm_on()
        else:
            self.panel.alarm_off()
        self.panel.set_tower(Tower.WAITING if core.waiting_for_dealer else Tower.PLAY)

    async def wait_for_change(self, seconds: float = 5.0) -> None:
        """For simulators and tests: until the next published snapshot."""
        changed = self.changed
        async with asyncio.timeout(seconds):
            await changed.wait()

    # ----------------------------------------------------------------- shoe

    async def _shoe_loop(self, shoe: CardShoe) -> None:
        """The shoe's events in bursts: what arrived back to back (at most BURST_MAX) is taken together, the
        cards of a burst journaled as one step (`on_shoe_burst`), and the loop is given back between bursts,
        so a thousand cards a second are a few transactions and never block the loop for long."""
        arrived: asyncio.Queue[shoe_events.ShoeEvent] = asyncio.Queue()

        async def pump() -> None:
            async for event in shoe.events():
                arrived.put_nowait(event)

        try:
            async with asyncio.TaskGroup() as tasks:
                pumping = tasks.create_task(pump())
                while not (pumping.done() and arrived.empty()):
                    getting = asyncio.ensure_future(arrived.get())
                    await asyncio.wait((getting, pumping), return_when=asyncio.FIRST_COMPLETED)
                    if not getting.done():
                        getting.cancel()
                        continue
                    burst = [getting.result()]
                    while len(burst) < BURST_MAX and not arrived.empty():
                        burst.append(arrived.get_nowait())
                    self.on_shoe_burst(burst)
                    await asyncio.sleep(0)
        finally:
            if self._shoe_timer is not None:
                self._shoe_timer.cancel()

    def on_shoe_burst(self, burst: Sequence[shoe_events.ShoeEvent]) -> None:
        """Events that arrived together, in order: each run of cards (and unreadable cards) is one journaled step
        with the shoe's alarms about them (`_take_cards`); any other event is taken alone (`on_shoe_event`)."""
        run: list[shoe_events.ShoeEvent] = []
        for event in [*burst, None]:
            if isinstance(event, (shoe_events.CardDrawn, shoe_events.UnreadableCard)):
                run.append(event)
                continue
            if run:
                self._take_cards(run)
            run = []
            if event is not None:
                self.on_shoe_event(event)

    def _take_cards(self, run: Sequence[shoe_events.ShoeEvent]) -> None:
        """A run of cards (and unreadable cards) as one journaled step, acknowledged once it is durable: those
        journaled before a restart are only acknowledged again; a journal that refuses the step hands the run
        back for the shoe to resend."""
        fresh: list[shoe_events.ShoeEvent] = []
        for item in run:
            if isinstance(item, shoe_events.SequencedShoeEvent) and self._shoe_marks.journaled_already(item.sequence):
                self._acknowledge(item)  # journaled before a restart, not acknowledged: the shoe resent it
            else:
                fresh.append(item)
        if not fresh:
            return
        loop = asyncio.get_running_loop()
        counts = TableCounts.of(self.controller.table)  # read by the door and online checks only
        alarms: list[Alarm] = []
        for item in fresh:
            log_device_event(item)
            alarms += self.shoe_watch.on_event(item, counts, loop.time())
        sequenced = [item for item in fresh if isinstance(item, shoe_events.SequencedShoeEvent)]
        origin = self._shoe_marks.origin(sequenced[-1].sequence) if sequenced else None
        self._crash_points.reached("before-commit")
        try:
            self.controller.draw_all([CardDrawn(card=Card.parse(item.code)) for item in fresh
                                      if isinstance(item, shoe_events.CardDrawn)], source="shoe", alarms=alarms,
                                     origin=origin)
        except JournalUnwritableError:  # the journal_unwritable alarm is on; the shoe resends them
            if self.shoe is not None:
                for item in sequenced:
                    self.shoe.redeliver(item)
            return
        self._crash_points.reached("after-commit")
        if sequenced:
            self._shoe_marks.committed(sequenced[-1].sequence)
        self._schedule_shoe_check(loop)
        for item in sequenced:
            self._acknowledge(item)

    def on_shoe_event(self, event: shoe_events.ShoeEvent) -> None:
        """Cards, shuffles and the cut card into the round; the shoe's rules (core/shoe_watch.py) raise the alarms.
        The shoe's own events are acknowledged once journaled (ack after commit, docs/journal.md)."""
        if isinstance(event, (shoe_events.CardDrawn, shoe_events.UnreadableCard)):
            self._take_cards([event])  # the one path of a card, alone or in a burst
            return
        log_device_event(event)
        controller = self.controller
        sequenced = event if isinstance(event, shoe_events.SequencedShoeEvent) else None
        if isinstance(event, shoe_events.ShoeOnline):
            self._shoe_marks.boot_id = event.identity.boot_id
        if sequenced is not None and self._shoe_marks.journaled_already(sequenced.sequence):
            self._acknowledge(sequenced)  # journaled before a restart, not acknowledged: the shoe resent it
            return
        try:
            self._take(event)
        except JournalUnwritableError:  # the journal_unwritable alarm is on; the shoe resends it
            if sequenced is not None and self.shoe is not None:
                self.shoe.redeliver(sequenced)
            return
        if isinstance(event, (shoe_events.ShoeOnline, shoe_events.ShoeOffline)):
            controller.set_device("shoe", "online" if isinstance(event, shoe_events.ShoeOnline) else "offline")
        loop = asyncio.get_running_loop()
        for alarm in self.shoe_watch.on_event(event, TableCounts.of(controller.table), loop.time()):
            controller.raise_alarm(alarm)
        self._schedule_shoe_check(loop)
        if sequenced is not None:
            self._acknowledge(sequenced)

    def _take(self, event: shoe_events.ShoeEvent) -> None:
        """A shuffle or the cut card into the round, journaled with where it came from (raises
        JournalUnwritableError); cards go through `_take_cards`."""
        controller = self.controller
        if not isinstance(event, (shoe_events.ShoeShuffled, shoe_events.CutCardReached)):
            return
        origin = self._shoe_marks.origin(event.sequence)
        if isinstance(event, shoe_events.ShoeShuffled):
            controller.submit(ShoeShuffled(shoe_id=shoe_id_of(event.shoe_id)), source="shoe", origin=origin)
        else:
            controller.submit(CutCardReached(), source="shoe", origin=origin)
        self._shoe_marks.committed(event.sequence)

    def _acknowledge(self, event: shoe_events.SequencedShoeEvent) -> None:
        if self.shoe is not None:
            self.shoe.acknowledge(event)

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

    # ---------------------------------------------------------------- chips

    async def _reader_loop(self, reader: ChipReader) -> None:
        async for event in reader.events():
            log_device_event(event)
            if self.chips is None:
                continue
            if isinstance(event, ReaderOffline):
                self._readers_online.discard(event.reader)
                self.controller.set_device("chips", "offline")  # an offline reader: the chips are offline
            elif isinstance(event, ReaderOnline):
                self._readers_online.add(event.reader)
                if self._readers_online >= {other.name for other in self.readers}:
                    self.controller.set_device("chips", "online")  # only once every reader reads its zones
            if isinstance(event, (ChipsScanned, ReaderOffline)):
                # The edge's work is per tag (a hostile scan has thousands): off the loop, in order.
                self.report_chips(await asyncio.to_thread(self.chips.reader_event, event))

    def report_chips(self, items: Sequence[ZoneChanged | Alarm]) -> None:
        """What the readers' edge made of an event: the zones that changed go to the core as one step (the
        core raises the chip alarms) and the readers' own alarms (the device's), all in one transaction. While the
        journal cannot be written the zones are refused (reported again once it is back) and the alarms held."""
        alarms = [item for item in items if isinstance(item, Alarm)]
        try:
            self.controller.report_zones([item for item in items if isinstance(item, ZoneChanged)], alarms)
        except JournalUnwritableError:
            if alarms:
                self.controller.raise_alarms(alarms)

    # ------------------------------------------------------------- commands

    async def _panel_loop(self, panel: DealerPanel) -> None:
        async for command in panel.commands():
            self.apply_command(str(command), {}, role=panel_role(str(command)), source="panel", refusal_alarm=True)

    def apply_command(self, name: str, args: dict[str, Any], *, role: str, source: str,
                      refusal_alarm: bool = False) -> dict[str, Any]:
        """A command from the panel or the display: the core decides, the controller journals and applies."""
        return self.controller.press(name, args, role=role, source=source, refusal_alarm=refusal_alarm)

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
                             table_id=controller.table_id, zones=controller.zones)
