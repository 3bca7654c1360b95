"""The asyncio shell around the controller: shoe, chip readers, dealer panel, display and feed.

One `TaskGroup`; each device is an async context manager entered for the
life of the app. Devices hand their readings to the controller on the event
loop (the chip reader and the panel already hop from their threads with
`call_soon_threadsafe`). After every committed change one coalescing task
pushes the snapshot to the display, wakes the feed and sets the lamps.

The shoe's events go through the shoe link (runtime/shoe_link.py): journaled
with their alarms in one step, acknowledged to the shoe only once durable.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

from drivers.ports import CardShoe, ChipReader, ChipsScanned, DealerPanel, ReaderOffline, ReaderOnline, Tower
from table_runtime.chips.edge import ZoneReporter
from table_runtime.core.commands import panel_role
from table_runtime.core.inputs import ZoneChanged
from table_runtime.display.server import DisplayServer
from table_runtime.errors import ConfigError
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.game.alarm_kinds import ADVICE_KINDS
from table_runtime.game.events import Alarm
from table_runtime.journal import RETRY_SECONDS, JournalUnwritableError
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.device_log import log_device_event
from table_runtime.runtime.heap import frozen_heap
from table_runtime.runtime.journal_audit import audit_journal
from table_runtime.runtime.rating_watch import RatingWatch
from table_runtime.runtime.recall import recall_rounds
from table_runtime.runtime.registry_follow import RegistryFollower
from table_runtime.runtime.shoe_link import CommitHook, ShoeLink


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
    ) -> None:
        self.controller = controller
        self.journal_retry_seconds = journal_retry_seconds  # while the journal cannot be written
        self._in_outage = False
        self.registry = registry
        self.shoe = shoe
        self.shoe_link = ShoeLink(controller, shoe, on_commit=on_commit)  # `on_commit`: the tests' crash points
        self.panel = panel
        self.readers = tuple(readers)
        self._readers_online: set[str] = set()  # names of the readers whose last word was ReaderOnline
        if chips is not None and not set(chips.zones) <= set(controller.zones):
            raise ConfigError("chips", f"the readers' zones {sorted(set(chips.zones) - set(controller.zones))} "
                                       "are not the table's: give the controller the same zones")
        self.chips = chips
        self.display = display
        self.feed = feed
        self.rating_watch = RatingWatch(controller)  # advice to the supervisor and his view of the rated players
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
            stack.enter_context(frozen_heap())  # a full garbage collection would block the loop (runtime/heap.py)
            async with asyncio.TaskGroup() as tasks:
                workers = [tasks.create_task(self._publish_loop()),  # cancelled at the stop
                           tasks.create_task(audit_journal(self.controller)),  # the rows the start did not verify
                           tasks.create_task(self._journal_retry_loop()),
                           tasks.create_task(self.rating_watch.run())]  # the rated sessions, off the loop
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
            if isinstance(event, ReaderOffline):
                self._readers_online.discard(event.reader)
                self.controller.set_device("chips", "offline")  # an offline reader: the chips are offline
            elif isinstance(event, ReaderOnline):
                self._readers_online.add(event.reader)
                if self._readers_online >= {other.name for other in self.readers}:
                    self.controller.set_device("chips", "online")  # only once every reader reads its zones
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

    def ratings(self) -> dict[str, Any]:
        flags = [alarm for alarm in self.controller.snapshot()["alarms"] if alarm["kind"] in ADVICE_KINDS]
        return {"sessions": self.rating_watch.sessions, "flags": flags}

    def recall(self, last: int) -> list[dict[str, Any]]:
        controller = self.controller
        return recall_rounds(controller.journal, controller.rules, controller.limits, last=last,
                             table_id=controller.table_id, zones=controller.zones)
