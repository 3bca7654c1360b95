"""The shoe link: everything between the shoe driver and the controller, in one place.

- **Bursts.** The events that arrived back to back (at most BURST_MAX) are taken together: each run of the
  shoe's own (sequenced) events is one journaled step, so a thousand cards a second are a few transactions and
  the loop is given back between bursts.
- **One commit per step, alarms included.** A card becomes its game input (the first of a round may lock the
  bets first, core/commands.py `card_inputs`), a shuffle or the cut card theirs; the shoe's rules
  (core/shoe_watch.py) say which events are alarms (a door opened in a round, a jam, an unreadable card). The
  inputs and the alarms of a step are journaled in one transaction, in the order of the events.
- **Acknowledge after commit.** A sequenced event is acknowledged to the shoe only once the step that holds it
  is durable (the step is made in the writer's thread, runtime/journal_writer.py: the link awaits it while
  the loop goes on, and reads the next burst only after it); a journal that refuses the step
  (`JournalUnwritableError`) hands every event of it back (`CardShoe.redeliver`): the shoe resends it, nothing is
  acknowledged while it is only in memory.
- **Resends.** The step's last row carries the `origin` of its last event (the shoe's boot id and sequence,
  runtime/shoe_marks.py): an event journaled before a restart and resent is acknowledged again, not taken twice.
- **The count check.** The shoe's rules decide when the count check after a HELLO is due (`ShoeWatch.next_due`);
  the link only schedules a wake-up on the loop's clock, which queues the check behind the events before it.
- The driver's own events (online, offline, missed cards) and the shoe's unsequenced gate status (its full resend
  buffer, `BufferGateChanged`) are not the shoe's to resend: their alarms are raised at once (held in memory
  during a journal outage, core/journal_outage.py) and the device status noted.

`on_commit(point, events)` is called at "before-commit" and "after-commit" of every step with the step's events:
the tests' assembly injects it (a crash between the read and the ACK); a table in service has none.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence

from drivers.ports import CardShoe
from firmware_bridge.shoe import events as shoe_events
from table_runtime.core.inputs import CoreInput
from table_runtime.core.shoe_watch import ShoeWatch, TableCounts
from table_runtime.game.cards import Card
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import CardDrawn, CutCardReached, ShoeShuffled
from table_runtime.game.shoe_count import shoe_id_of
from table_runtime.journal import JournalUnwritableError
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.device_log import log_device_event
from table_runtime.runtime.shoe_marks import ShoeMarks

BURST_MAX = 64  # shoe events journaled in one step at most
CommitHook = Callable[[str, Sequence[shoe_events.SequencedShoeEvent]], None]


class CountCheckDue:
    """Queued by the count check's wake-up: the check is stepped in its turn among the shoe's events."""


Arrival = shoe_events.ShoeEvent | CountCheckDue


class ShoeLink:
    """One shoe wired to the controller: its events read, journaled, acknowledged; its count check woken up."""

    def __init__(self, controller: TableController, shoe: CardShoe | None, *,
                 on_commit: CommitHook | None = None, watch: ShoeWatch | None = None) -> None:
        self.controller = controller
        self.shoe = shoe
        self.watch = watch or ShoeWatch()
        self.marks = ShoeMarks(controller.core.shoe_mark)  # which shoe events are journaled already (the fold's)
        self.on_commit = on_commit  # the tests' assembly may set it (module docstring)
        self._timer: asyncio.TimerHandle | None = None
        self._arrived: asyncio.Queue[Arrival] | None = None  # while `run` runs
        self.stopping = False

    async def run(self) -> None:
        """Read the shoe's events until it ends, in bursts (see the module docstring)."""
        assert self.shoe is not None
        shoe = self.shoe
        self._arrived = arrived = asyncio.Queue[Arrival]()

        async def pump() -> None:
            async for event in shoe.events():
                arrived.put_nowait(event)

        try:
            async with asyncio.TaskGroup() as tasks:
                pumping = tasks.create_task(pump())
                while not (pumping.done() and arrived.empty()):
                    getting = asyncio.ensure_future(arrived.get())
                    try:
                        await asyncio.wait((getting, pumping), return_when=asyncio.FIRST_COMPLETED)
                    finally:  # cancelled (the app stops) or the shoe ended: no get left pending behind
                        if not getting.done():
                            getting.cancel()
                    if getting.cancelled():
                        continue
                    burst = [getting.result()]
                    while len(burst) < BURST_MAX and not arrived.empty():
                        burst.append(arrived.get_nowait())
                    if not await self.take(burst):  # refused: the driver took back what came after it too
                        for _ in range(arrived.qsize()):  # the shoe resends those after the refused one
                            event = arrived.get_nowait()
                            if not isinstance(event, shoe_events.SequencedShoeEvent):
                                arrived.put_nowait(event)
                    await asyncio.sleep(0)
        finally:
            self.stopping = True
            if self._timer is not None:
                self._timer.cancel()

    async def take(self, burst: Sequence[Arrival]) -> bool:
        """Events that arrived together, in order: each run of the shoe's own events one journaled step, each of
        the driver's events alone. False once the journal refused a step: none of the shoe's events after it is
        taken (the driver took them back, the shoe resends them after it; one journaled before it would pass it
        for journaled already, shoe_marks.py); the driver's own events still are."""
        run: list[shoe_events.SequencedShoeEvent] = []
        refused = False
        for event in [*burst, None]:
            if isinstance(event, shoe_events.SequencedShoeEvent):
                run.append(event)
                continue
            if run and not refused:
                refused = not await self._step(run)
            run = []
            if isinstance(event, CountCheckDue):
                await self._check_due()
            elif event is not None:
                await self._driver_event(event)
        return not refused

    # -- the shoe's own events -------------------------------------------------------------------------
    async def _step(self, run: Sequence[shoe_events.SequencedShoeEvent]) -> bool:
        """A run of the shoe's events as one journaled step, acknowledged once durable (see the module docstring);
        False when the journal refused it (handed back)."""
        fresh: list[shoe_events.SequencedShoeEvent] = []
        for item in run:
            if self.marks.journaled_already(item.sequence):
                self._acknowledge(item)  # journaled before a restart, not acknowledged: the shoe resent it
            else:
                fresh.append(item)
        if not fresh:
            return True
        loop = asyncio.get_running_loop()
        self._reached("before-commit", fresh)
        controller = self.controller
        try:
            await controller.step(controller.submit_all, self._items(fresh, loop.time()),
                                  origin=self.marks.origin(fresh[-1].sequence))
        except JournalUnwritableError:  # the journal_unwritable alarm is on; the shoe resends them
            if self.shoe is not None:
                for item in fresh:
                    self.shoe.redeliver(item)
            return False
        self._reached("after-commit", fresh)
        self.marks.committed(fresh[-1].sequence)
        self._schedule_check(loop)
        for item in fresh:
            self._acknowledge(item)
        return True

    def _items(self, events: Sequence[shoe_events.SequencedShoeEvent], now: float
               ) -> Iterator[tuple[CoreInput, str] | Alarm]:
        """The step's inputs and alarms in the order of the events; each read after the one before was applied
        (the first card of a round may lock the bets; the door's rule asks whether a round is in play)."""
        core = self.controller.core
        for event in events:
            log_device_event(event)
            alarms = self.watch.on_event(event, TableCounts.of(core.table), now)
            if isinstance(event, shoe_events.CardDrawn):
                yield from core.card_inputs(CardDrawn(card=Card.parse(event.code)), "shoe")
            elif isinstance(event, shoe_events.ShoeShuffled):
                yield ShoeShuffled(shoe_id=shoe_id_of(event.shoe_id)), "shoe"
            elif isinstance(event, shoe_events.CutCardReached):
                yield CutCardReached(), "shoe"
            yield from alarms

    def _acknowledge(self, event: shoe_events.SequencedShoeEvent) -> None:
        if self.shoe is not None:
            self.shoe.acknowledge(event)

    def _reached(self, point: str, events: Sequence[shoe_events.SequencedShoeEvent]) -> None:
        if self.on_commit is not None:
            self.on_commit(point, events)

    # -- the driver's events ---------------------------------------------------------------------------
    async def _driver_event(self, event: shoe_events.ShoeEvent) -> None:
        """Online, offline, missed cards: the device status and the shoe's rules' alarms, raised at once."""
        log_device_event(event)
        controller = self.controller
        if isinstance(event, shoe_events.ShoeOnline):
            self.marks.boot_id = event.identity.boot_id
        loop = asyncio.get_running_loop()
        await controller.step(self._device_changed, event, loop.time())
        self._schedule_check(loop)

    def _device_changed(self, event: shoe_events.ShoeEvent, now: float) -> None:
        """One step: the device's status and its alarms are seen together (a shoe offline with its alarm). The
        shoe's rules read the table in the step's turn: the core is the journal's then."""
        controller = self.controller
        if isinstance(event, (shoe_events.ShoeOnline, shoe_events.ShoeOffline)):
            controller.set_device("shoe", "online" if isinstance(event, shoe_events.ShoeOnline) else "offline")
        controller.raise_alarms(self.watch.on_event(event, TableCounts.of(controller.table), now))

    # -- the count check ---------------------------------------------------------------------------------
    def _schedule_check(self, loop: asyncio.AbstractEventLoop) -> None:
        """Wake up when the shoe's rules have a count to judge: they decide, on the loop's clock."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        due = self.watch.next_due
        if due is not None:
            self._timer = loop.call_at(due, self._wake)

    def _wake(self) -> None:
        self._timer = None
        if not self.stopping and self._arrived is not None:
            self._arrived.put_nowait(CountCheckDue())  # stepped in its turn (`take`)

    async def _check_due(self) -> None:
        loop = asyncio.get_running_loop()
        controller = self.controller
        now = loop.time()
        await controller.step(lambda: controller.raise_alarms(self.watch.due(TableCounts.of(controller.table), now)))
        self._schedule_check(loop)  # a timer a hair early: the check is still pending
