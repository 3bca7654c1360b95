"""The asyncio shell around the controller: shoe, chip readers, dealer panel, display and feed.

One `TaskGroup`; each device is an async context manager entered for the
life of the app. Devices hand their readings to the controller on the event
loop (the chip reader and the panel already hop from their threads with
`call_soon_threadsafe`). After every committed change one coalescing task
pushes the snapshot to the display, wakes the feed and sets the lamps.

The shoe's events go through the shoe link (runtime/shoe_link.py): journaled
with their alarms in one step, acknowledged to the shoe only once durable.

Every change is a step of the controller (`await controller.step(controller.press, ...)`),
made in the journal's writer thread one after the other (runtime/journal_writer.py): a slow
or stalled disk holds the step, never the loop. A panel press waits its turn (the panel keeps the
next ones), a display command is answered once its rows are durable, and the display,
lamps and feed see the committed view meanwhile. What must change the table from a
callback that cannot wait (a supervisor PIN locked out, the clock synchronised, the
zones to report again after an outage) is queued (`later`) and stepped in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from drivers.ports import CardShoe, ChipReader, ChipsScanned, DealerPanel, ReaderOffline, ReaderOnline, Tower
from table_runtime.chips.edge import ZoneReporter
from table_runtime.core.alarm_ledger import is_advice
from table_runtime.core.clock_steps import ClockSteps
from table_runtime.core.commands import panel_role
from table_runtime.core.inputs import ZoneChanged
from table_runtime.core.readers_online import ReadersOnline
from table_runtime.display.server import DisplayServer
from table_runtime.errors import ConfigError
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.game.events import Alarm
from table_runtime.journal import RETRY_SECONDS, JournalUnwritableError
from table_runtime.runtime.card_link import PlayerCardLink
from table_runtime.runtime.committed_view import CommittedView
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.device_log import log_device_event
from table_runtime.runtime.heap import frozen_heap
from table_runtime.runtime.journal_audit import audit_journal
from table_runtime.runtime.program_watch import ProgramWatch
from table_runtime.runtime.rating_watch import RatingWatch
from table_runtime.runtime.recall import name_authors, recall_rounds
from table_runtime.runtime.registry_follow import RegistryFollower
from table_runtime.runtime.shoe_link import CommitHook, ShoeLink
from table_runtime.runtime.staff_desk import StaffDesk

log = logging.getLogger(__name__)


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
        journal_retry_seconds: float = RETRY_SECONDS,  # the shoe's resends also try it
        on_commit: CommitHook | None = None,
        player_cards: PlayerCardLink | None = None,
        staff: StaffDesk | None = None,
        program_watch: ProgramWatch | None = None,
        monotonic: Callable[[], float] | None = None,
    ) -> None:
        self.controller = controller
        self.monotonic = monotonic  # against the controller's wall clock, a step of it journaled (None: not watched)
        self.journal_retry_seconds = journal_retry_seconds  # while the journal cannot be written
        self._in_outage = False
        self.registry = registry
        self.shoe = shoe
        self.shoe_link = ShoeLink(controller, shoe, on_commit=on_commit)  # `on_commit`: the tests' crash points
        self.panel = panel
        self.readers = tuple(readers)
        self._readers_online = ReadersOnline(reader.name for reader in self.readers)  # the chips' status they make
        if chips is not None and not set(chips.zones) <= set(controller.zones):
            raise ConfigError("chips", f"the readers' zones {sorted(set(chips.zones) - set(controller.zones))} "
                                       "are not the table's: give the controller the same zones")
        self.chips = chips
        self.display = display
        self.feed = feed
        self.player_cards = player_cards  # the player card readers (runtime/card_link.py)
        self.staff = staff  # the staff registry: the dealer on shift by name on the display (runtime/staff_desk.py)
        self.program_watch = program_watch  # the installed program's checks (runtime/program_watch.py)
        self.rating_watch = RatingWatch(controller)  # advice to the supervisor and his view of the rated players
        self.changed = asyncio.Event()
        self._dirty = asyncio.Event()
        self._stopping = asyncio.Event()
        self._stop_reason = "shutdown"
        self._later: asyncio.Queue[Callable[[], Awaitable[Any]]] = asyncio.Queue()  # `later`, in order
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
            if self.program_watch is not None:  # before any device can deal: a program not as released halts
                await self.program_watch.verify(by="start")
            if self.shoe is not None:
                await stack.enter_async_context(self.shoe)
            if self.panel is not None:
                await stack.enter_async_context(self.panel)
            for reader in self.readers:
                await stack.enter_async_context(reader)
            if self.player_cards is not None:
                await stack.enter_async_context(self.player_cards)
            stack.enter_context(frozen_heap())  # a full garbage collection would block the loop (runtime/heap.py)
            stack.callback(self.controller.writer.close)  # after the last step: the writer's thread ends
            async with asyncio.TaskGroup() as tasks:
                workers = [tasks.create_task(self._publish_loop()),  # cancelled at the stop
                           tasks.create_task(audit_journal(self.controller)),  # the rows the start did not verify
                           tasks.create_task(self._journal_retry_loop()),
                           tasks.create_task(self.rating_watch.run()),  # the rated sessions, off the loop
                           tasks.create_task(self._later_loop())]
                if self.monotonic is not None:
                    workers.append(tasks.create_task(self.clock_loop()))
                if self.feed is not None:
                    tasks.create_task(self.feed.run())  # ends by itself once the feed is stopped
                    workers.append(tasks.create_task(self._broker_loop(self.feed)))
                if self.shoe is not None:
                    workers.append(tasks.create_task(self.shoe_link.run()))
                if self.panel is not None:
                    workers.append(tasks.create_task(self._panel_loop(self.panel)))
                for reader in self.readers:
                    workers.append(tasks.create_task(self._reader_loop(reader)))
                if self.registry is not None:
                    workers.append(tasks.create_task(self.registry.run()))
                if self.player_cards is not None:
                    workers.append(tasks.create_task(self.player_cards.run()))
                if self.program_watch is not None:
                    workers.append(tasks.create_task(self.program_watch.run()))
                self._on_change()
                await self._stopping.wait()
                # The devices' and the timers' loops end first, each step they were in committed or not begun:
                # "Stopping" is then the journal's last row, and the feed, told to stop once it has it, publishes
                # every row (a row journaled while the feed drained would wait for the next start).
                for worker in workers:
                    worker.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
                await self.controller.step(self.controller.note, {"type": "Stopping",
                                                                  "table_id": self.controller.table_id})
                if self.feed is not None:
                    self.feed.notify()
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(5):
                            await self.feed.wait_published(self.controller.last_seq)
                    self.feed.stop(self._stop_reason)

    async def clock_loop(self, *, every_s: float = 1.0, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                         steps: ClockSteps | None = None) -> None:
        """Every `every_s`, the wall clock against the monotonic one: a step is a ``ClockStepped`` status row
        (core/clock_steps.py, a significant event)."""
        controller, steps, monotonic = self.controller, steps or ClockSteps(), self.monotonic or time.monotonic
        while True:
            step = steps.look(controller.clock(), monotonic())
            if step is not None:
                log.warning("the wall clock stepped by %+.1f s", step)
                await controller.step(controller.note, {"type": "ClockStepped", "step_s": round(step, 3),
                                                        "ts_after": controller.clock()})
            await sleep(every_s)

    async def _broker_loop(self, feed: FeedPublisher) -> None:
        """The broker's state on the display: the table keeps playing while it is down (the journal holds all)."""
        controller = self.controller
        while True:
            await controller.step(controller.set_device, "broker", "online" if feed.connected else "offline")
            await asyncio.sleep(1.0)

    # -------------------------------------------------------------- changes

    def _on_change(self) -> None:
        self._dirty.set()
        outage = self.controller.outage is not None
        if self._in_outage and not outage:
            self.later(self._after_outage)  # not from inside the controller's step
        self._in_outage = outage

    def later(self, change: Callable[[], Awaitable[Any]]) -> None:
        """Run `change()` (which steps the controller) after the changes queued before it: for callbacks that
        cannot wait for a step (a display's security alarm, a clock found synchronised)."""
        self._later.put_nowait(change)

    async def _later_loop(self) -> None:
        while True:
            change = await self._later.get()
            await change()

    async def run_queued(self) -> int:
        """Run the changes `later` queued so far, in order, and say how many (what `run` does as they come; for a
        caller that drives the table without `run`)."""
        done = 0
        while not self._later.empty():
            await self._later.get_nowait()()
            done += 1
        return done

    async def _journal_retry_loop(self) -> None:
        """While the journal cannot be written, try again every `journal_retry_seconds` (the alarm is on)."""
        controller = self.controller
        while True:
            await asyncio.sleep(self.journal_retry_seconds)
            if controller.outage is not None:
                await controller.step(controller.retry_journal)

    async def _after_outage(self) -> None:
        """The journal takes rows again: the zones the readers reported meanwhile were refused; report them again
        (the shoe resends its unacknowledged events by itself)."""
        chips = self.chips
        if chips is not None and not self._stopping.is_set():
            await self.controller.step(self.report_chips, chips.reported())

    async def _publish_loop(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            view = self.controller.committed  # the last durable state, even while a step is being journaled
            snapshot = view.snapshot
            if self.feed is not None:
                self.feed.notify()
                self.feed.offer_state(snapshot)
            if self.panel is not None:
                self._lamps(view)
            if self.display is not None:
                await self.display.publish(snapshot if self.staff is None else self.staff.named(snapshot))
            self.changed.set()
            self.changed = asyncio.Event()

    def _lamps(self, view: CommittedView) -> None:
        assert self.panel is not None
        self.panel.show_turn(view.turn_box)
        if view.snapshot["alarms"]:
            self.panel.alarm_on()
        else:
            self.panel.alarm_off()
        self.panel.set_tower(Tower.WAITING if view.waiting_for_dealer else Tower.PLAY)

    async def wait_for_change(self, seconds: float = 5.0) -> None:
        """For simulators and tests: until the next published snapshot."""
        changed = self.changed
        async with asyncio.timeout(seconds):
            await changed.wait()

    # ---------------------------------------------------------------- chips

    async def _reader_loop(self, reader: ChipReader) -> None:
        async for event in reader.events():
            log_device_event(event)
            if self.chips is None:
                continue
            # The edge's work is per tag (a hostile scan has thousands): off the loop, in order. It is done
            # before the status changes, so that a reader gone offline is its status and its alarm in one step
            # of the loop: nobody (display, bench, feed) sees the chips offline without the reader_offline alarm.
            items = (await asyncio.to_thread(self.chips.reader_event, event)
                     if isinstance(event, (ChipsScanned, ReaderOffline)) else None)
            await self.controller.step(self._reader_event, event, items)

    def _reader_event(self, event: object, items: Sequence[ZoneChanged | Alarm] | None) -> None:
        """A reader's event as one change: its status and what the edge made of it (a reader gone offline is its
        status and its alarm together)."""
        controller = self.controller
        if isinstance(event, ReaderOffline):
            controller.set_device("chips", self._readers_online.offline(event.reader))
        elif isinstance(event, ReaderOnline):
            controller.set_device("chips", self._readers_online.online(event.reader))
        if items is not None:
            self.report_chips(items)

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
        if self.chips is not None and self.controller.core.tray.wants_read:
            self.chips.want_tray_read()  # a round closed: the tray's next whole read is reported (core/tray.py)

    # ------------------------------------------------------------- commands

    async def _panel_loop(self, panel: DealerPanel) -> None:
        controller = self.controller
        async for command in panel.commands():  # the next presses wait in the panel, in order, while this one steps
            await controller.step(controller.press, str(command), {}, role=panel_role(str(command)),
                                  source="panel", refusal_alarm=True)

    # -------------------------------------------------------- display backend

    def snapshot(self) -> dict[str, Any]:
        snapshot = self.controller.snapshot()
        return snapshot if self.staff is None else self.staff.named(snapshot)

    async def command(self, name: str, args: dict[str, Any], *, role: str) -> dict[str, Any]:
        """A touch on the display, answered once its rows are durable."""
        return await self.controller.step(self.controller.press, name, args, role=role, source="display")

    async def security_alarm(self, kind: str, message: str, rule: str) -> None:
        await self.controller.step(self.controller.raise_alarms, [Alarm(kind=kind, message=message, rule=rule)])

    def ratings(self) -> dict[str, Any]:
        flags = [alarm for alarm in self.controller.snapshot()["alarms"] if is_advice(alarm)]
        return {"sessions": self.rating_watch.sessions, "flags": flags}

    def recall(self, last: int) -> list[dict[str, Any]]:
        controller = self.controller
        rounds = recall_rounds(controller.journal, last=last)
        return rounds if self.staff is None else name_authors(rounds, self.staff.snapshot.name)
