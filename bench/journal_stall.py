"""The event loop while the journal's disk stalls: the longest time the loop is blocked, and play around it.

The table is bench/runtime_latency.py's (what `table-runtime run --config configs/demo.toml` builds, with one
simulated reader on every zone and a registry of the tray's chips): the simulated shoe firmware on a pty read by
the real `SerialShoe`, the controller committing every step to the journal (SQLite WAL, fsynced), the display
with a WebSocket screen, and the simulated dealer playing whole rounds with no pause.

The disk stalls for real: once the screen is up, every `--every` seconds another connection takes the journal's
write lock (`BEGIN IMMEDIATE`) and holds it `--stall` seconds, so the table's next commit waits inside SQLite (its
busy wait) as it would on a card that takes that long to fsync. A ticker on the event loop sleeps 1 ms at a time
and records how late each wake-up is: its lateness is how long the loop could not run anything (the display, the
feed, the panel, the shoe's heartbeats).

Prints the command line, the stalls, the cards dealt and the screen's latency, and last
`loop_block_ms during_stall_max=X elsewhere_max=Y`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sqlite3
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from bench.runtime_latency import Clocks, latencies, percentile, running_table, watch_screen
from simulators.live_table import LiveDevices, deal_rounds

TICK_S = 0.001


@dataclass
class Stalls:
    """The journal's write lock held from another connection, in a thread: the windows, on the loop's clock."""

    path: Path
    seconds: float
    every: float
    windows: list[tuple[float, float]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:  # its own thread
        with sqlite3.connect(self.path, isolation_level=None, timeout=30.0) as holder:
            while not self.stop.wait(self.every):
                holder.execute("BEGIN IMMEDIATE")
                began = time.monotonic()  # asyncio's default clock
                self.stop.wait(self.seconds)
                holder.execute("ROLLBACK")
                self.windows.append((began, time.monotonic()))


async def tick(lateness: list[tuple[float, float]]) -> None:
    """Sleep TICK_S again and again; record (when the sleep began, how late it woke)."""
    loop = asyncio.get_running_loop()
    while True:
        began = loop.time()
        await asyncio.sleep(TICK_S)
        lateness.append((began, loop.time() - began - TICK_S))


async def measure(rounds: int, seed: int, data_dir: Path, stall: float, every: float
                  ) -> tuple[list[tuple[float, float]], list[tuple[float, float]], Clocks, int]:
    clocks = Clocks()
    lateness: list[tuple[float, float]] = []
    async with running_table(data_dir, seed, clocks) as (table, hands, tasks):
        app, display = table.app, table.app.display
        assert display is not None
        stalls = Stalls(table.config.journal_path, stall, every)
        screen_ready = asyncio.Event()
        watchers = [tasks.create_task(watch_screen(f"{display.url}ws", clocks, screen_ready))]
        async with asyncio.timeout(10):
            await screen_ready.wait()
        dealing = tasks.create_task(deal_rounds(app, cast(LiveDevices, hands), rounds=rounds, seed=seed,
                                                pace=0.0, error_rate=0.0))
        async with asyncio.timeout(60):  # the simulated dealer's strategy chart is built (on the loop) first
            while not clocks.written:
                await asyncio.sleep(0.05)
        watchers.append(tasks.create_task(tick(lateness)))
        stalling = threading.Thread(target=stalls.run, name="bench-stall")
        stalling.start()
        try:
            async with asyncio.timeout(rounds * 30 + 120):
                played = await dealing
        finally:
            stalls.stop.set()
            await asyncio.to_thread(stalling.join)
        await asyncio.sleep(0.2)  # the last snapshot reaches the screen
        for watcher in watchers:
            watcher.cancel()
    return lateness, stalls.windows, clocks, played


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="rounds the simulated dealer plays (default 20)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--stall", type=float, default=2.0, help="seconds the disk stalls each time (default 2)")
    parser.add_argument("--every", type=float, default=3.0, help="seconds of play between two stalls (default 3)")
    args = parser.parse_args(argv)
    print("command:", shlex.join([sys.executable, *sys.argv]))
    with tempfile.TemporaryDirectory(prefix="bench-stall-") as directory:
        started = time.perf_counter()
        lateness, windows, clocks, played = asyncio.run(
            measure(args.rounds, args.seed, Path(directory), args.stall, args.every))
        elapsed = time.perf_counter() - started

    def overlaps(began: float, late: float) -> bool:
        ended = began + TICK_S + late
        return any(began < stop and ended > start for start, stop in windows)

    during = [late * 1000 for began, late in lateness if overlaps(began, late)]
    elsewhere = [late * 1000 for began, late in lateness if not overlaps(began, late)]
    received = latencies(clocks.written, clocks.received)
    print(f"rounds={played} cards={len(received)} in {elapsed:.1f} s; {len(windows)} stalls of {args.stall:g} s "
          f"(the journal's write lock held by another connection); {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f} at the end")
    for name, values in (("during a stall", during), ("elsewhere", elsewhere)):
        if values:
            print(f"loop lateness {name}: {len(values)} ticks of {TICK_S * 1000:g} ms, "
                  f"p50={percentile(values, 0.5):.2f} ms p99={percentile(values, 0.99):.2f} ms "
                  f"max={max(values):.1f} ms")
    if received:
        print(f"card -> screen (stalls included): p50={percentile(received, 0.5):.2f} ms "
              f"p99={percentile(received, 0.99):.2f} ms max={max(received):.1f} ms")
    print(f"loop_block_ms during_stall_max={max(during, default=0.0):.1f} "
          f"elsewhere_max={max(elsewhere, default=0.0):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
