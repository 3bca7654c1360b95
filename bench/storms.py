"""Bench: the longest event-loop block under two storms of hostile input (a loop-lag probe).

The whole runtime shell (`TableApp.run`, the controller, a journal on disk), with

* junk tags: a chip reader whose every scan (10 a second) carries 10,000 tags no registry knows on one
  zone (a port implementation that breaks the protocol's 255 tags per antenna; through the pyusb driver a
  scan holds at most 963 tags), through the real readers' edge;
* a card storm: the simulated shoe on a pty dealing 1,000 cards a second through the real serial driver,
  with no bets on the table (each card one no hand can take), reshuffled when empty.

The probe: a task that sleeps 1 ms and records how late it wakes (the worst: the longest time the loop
could not run anything else, which on a loaded machine includes waiting for a core, or for the GIL held by
another thread) and the CPU time the loop's thread used meanwhile (the work that blocked it); with the
alarms, journal commits and snapshot size, the longest commit (its fsync runs on the loop), and the full
garbage collections (generation 2: they hold the GIL for as long as they walk the heap, in whichever
thread, so one in the readers' edge's worker blocks the loop too; runtime/heap.py).
The load average is printed: wall figures on a shared machine measure the others too.

Run: python -m bench.storms [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import shlex
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

from drivers.ports import ChipsScanned, ReaderEvent, ReaderOnline, ZoneReading
from drivers.shoe import SerialShoe
from firmware_bridge.rfid import Tag
from simulators.shoe import SimulatedShoe
from simulators.shoe_firmware import GateLockedError
from table_runtime.chips.edge import ZoneReporter
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController

ZONES = ("box1", "box1.behind", "box2")


class JunkReader:
    """A chip reader (the `ChipReader` port) whose scans carry `tags` junk tags on box1, `rate` scans a second."""

    name = "junk"
    zones = ZONES
    online = True

    def __init__(self, tags: int, rate: float) -> None:
        self.tags = tuple(Tag(uid=f"{0xE004015000000000 + n:016X}", denomination_cents=500, casino_id=42)
                          for n in range(tags))
        self.rate = rate
        self.scans = 0

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        return None

    async def next_event(self) -> ReaderEvent:
        if self.scans == 0:
            self.scans = 1
            return ReaderOnline(reader=self.name, at=time.monotonic(), serial="JUNK", firmware="-", protocol="1.0")
        await asyncio.sleep(1 / self.rate)
        self.scans += 1
        readings = (ZoneReading(zone="box1", tags=self.tags), ZoneReading(zone="box1.behind", tags=()),
                    ZoneReading(zone="box2", tags=()))
        return ChipsScanned(reader=self.name, at=time.monotonic(), readings=readings)

    async def events(self) -> AsyncIterator[ReaderEvent]:
        while True:
            yield await self.next_event()


async def probe(lags: list[float], busy: list[float], stop: asyncio.Event) -> None:
    """Every 1 ms: how late the loop woke us (wall time), and the CPU time the loop's thread spent meanwhile
    (the work that blocked it, whatever else the machine runs)."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        wanted, cpu = loop.time() + 0.001, time.thread_time()
        await asyncio.sleep(0.001)
        lags.append(loop.time() - wanted)
        busy.append(time.thread_time() - cpu)


class FullCollections:
    """The full garbage collections (generation 2) while it is installed: how long each, in which thread."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, float]] = []
        self._started = 0.0

    def __enter__(self) -> Self:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seen.append((threading.current_thread().name, time.perf_counter() - self._started))

    def __str__(self) -> str:
        if not self.seen:
            return "no full garbage collection"
        thread, longest = max(self.seen, key=lambda seen: seen[1])
        return (f"{len(self.seen)} full garbage collections (longest {longest * 1000:.1f} ms,"
                f" in thread {thread})")


async def storm(kind: str, seconds: float, data_dir: Path) -> str:
    with Journal.open(journal_path(data_dir)) as journal:
        commits: list[float] = []
        journal.commit_observer = commits.append
        controller = TableController(table_id="T", rules=profile("fr-casino"), journal=journal, clock=time.time,
                                     limits=TableLimits(min_bet_cents=1000, max_bet_cents=50_000), zones=ZONES)
        lags: list[float] = []
        busy: list[float] = []
        stop = asyncio.Event()
        collections = FullCollections()
        refused: list[GateLockedError] = []  # draws the shoe's gate refused: its buffer was full
        with contextlib.ExitStack() as stack:
            if kind == "junk tags":
                reader = JunkReader(10_000, rate=10)
                app = TableApp(controller, readers=[reader],
                               chips=ZoneReporter(ZONES, registry={}, casino_id=42))
            else:
                simulated = stack.enter_context(SimulatedShoe(seed=3))
                app = TableApp(controller, shoe=SerialShoe(simulated.url))
                dealing = threading.Event()

                def dealer() -> None:
                    started = time.perf_counter()
                    for n in range(int(seconds * 1000)):
                        if dealing.is_set():
                            return
                        if simulated.firmware.cards_left == 0:
                            simulated.shuffle()
                        try:
                            simulated.draw()
                        except GateLockedError as error:  # the table fell a full buffer behind (shoe.md §3)
                            refused.append(error)
                        time.sleep(max(0.0, started + (n + 1) / 1000 - time.perf_counter()))

                thread = threading.Thread(target=dealer, name="dealer")
            async with asyncio.TaskGroup() as tasks:
                running = tasks.create_task(app.run())
                await asyncio.sleep(0.5)  # devices up
                stack.enter_context(collections)  # those of the storm, not of the start
                tasks.create_task(probe(lags, busy, stop))
                if kind != "junk tags":
                    thread.start()
                await asyncio.sleep(seconds)
                stop.set()
                if kind != "junk tags":
                    dealing.set()
                    await asyncio.to_thread(thread.join)
                app.stop()
                await running
        snapshot = len(json.dumps(controller.snapshot()))
        alarms = {alarm["kind"]: alarm.get("count", 1) for alarm in controller.alarms.active}
        alarm_rows = sum(1 for _ in journal.entries(kinds=("alarm",)))
        cards = sum(1 for entry in journal.entries(kinds=("input",)) if entry.body["type"] == "CardDrawn")
    worst = max(lags) * 1000
    return (f"{kind}: longest loop block {worst:.1f} ms wall (p99 {sorted(lags)[int(len(lags) * 0.99)] * 1000:.1f} ms,"
            f" {len(lags)} probes), {max(busy) * 1000:.1f} ms of the loop thread's CPU between two probes;"
            f" {len(commits)} commits (longest {max(commits, default=0) * 1000:.1f} ms), {collections};"
            f" {alarm_rows} alarm rows, open alarms {alarms},"
            f" snapshot {snapshot} bytes"
            + (f", {cards} cards journaled, {len(refused)} draws refused by the shoe's full buffer"
               if kind != "junk tags" else ""))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args(argv)
    print("command: " + ("python -m bench.storms " + shlex.join(sys.argv[1:])).strip())
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
    for kind in ("junk tags", "card storm"):
        with tempfile.TemporaryDirectory() as data_dir:
            print(asyncio.run(storm(kind, args.seconds, Path(data_dir))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
