"""Bench: chip tracking at full table load through the real driver and the simulated reader.

15 zones each holding a 40-chip stack, scanned 10 times a second through
pyusb and the simulated reader backend; the watcher values every chip by the
registry and checks it. A player puts a chip on a random zone a few times a
second (and takes an older one away); we measure

* the CPU share of one core used by the process, and by the controller alone
  (the simulated reader's firmware, which runs in the same process, is
  measured on its own and subtracted);
* the time from a chip put down to the zone-changed event on the asyncio loop,
  p50 and p99 (by the debounce rule a chip joins after 2 reads, so about one
  to two scan intervals).

Run: python -m bench.chips [--seconds 30] [--zones 15] [--stack 40] [--scans-per-second 10]
"""

from __future__ import annotations

import argparse
import array
import asyncio
import os
import random
import shlex
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from drivers.chip_reader import ReaderSettings, UsbChipReader
from simulators.rfid_backend import SIM_PRODUCT_ID, SIM_VENDOR_ID, RfidBackend, SimulatedReader
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.edge import ZoneReporter
from table_runtime.chips.registry import ChipRegistry
from table_runtime.core.inputs import ZoneChanged

CASINO = 42


class TimedBackend(RfidBackend):
    """The simulated reader's backend, counting the CPU its firmware uses (decode, answer, encode)."""

    firmware_cpu = 0.0

    def bulk_write(self, dev_handle: Any, ep: int, intf: int, data: array.array[int], timeout: int) -> int:
        start = time.thread_time()
        try:
            return super().bulk_write(dev_handle, ep, intf, data, timeout)
        finally:
            self.firmware_cpu += time.thread_time() - start


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


async def run(args: argparse.Namespace) -> int:
    zone_names = [zone for box in range(1, 8) for zone in (f"box{box}", f"box{box}.behind", f"box{box}.insurance")]
    zones = zone_names[: args.zones]
    antennas = dict(enumerate(zones, start=1))
    issuer = ChipIssuer(CASINO, seed=1)
    spare = issuer.issue(2500, int(args.seconds * args.placements_per_second) + 10)
    stacks = {zone: issuer.issue(500, args.stack) for zone in zones}
    with ChipRegistry(":memory:") as registry:
        registry.import_text(issuer.csv())
        snapshot = registry.snapshot()
    device = SimulatedReader(antennas, antennas=len(zones) + 1, miss_rate=args.miss_rate, seed=2, max_tags=255)
    for zone, stack in stacks.items():
        device.place(zone, *stack)
    backend = TimedBackend([device])
    watcher = ZoneReporter(zones, registry=snapshot, casino_id=CASINO)
    settings = ReaderSettings(vendor_id=SIM_VENDOR_ID, product_id=SIM_PRODUCT_ID, antenna_zones=antennas,
                              name="bench", scan_interval=1 / args.scans_per_second)
    placed: dict[str, float] = {}
    latencies: list[float] = []
    rng = random.Random(3)
    scans = 0
    async with UsbChipReader(settings, backend=backend) as reader:
        # Warm up: every stack stable before measuring.
        async with asyncio.timeout(10):
            while sum(watcher.tracker.total_cents(zone) for zone in zones) != 500 * args.stack * len(zones):
                watcher.reader_event(await reader.next_event())
        wall_start, cpu_start, firmware_start = time.perf_counter(), time.process_time(), backend.firmware_cpu
        next_placement = wall_start
        deadline = wall_start + args.seconds
        while time.perf_counter() < deadline:
            now = time.perf_counter()
            if now >= next_placement and spare:
                zone = rng.choice(zones)
                chip = spare.pop()
                old = device.chips(zone)[0]
                device.remove(zone, old.uid)
                device.place(zone, chip)
                placed[chip.uid] = time.perf_counter()
                next_placement = now + rng.expovariate(args.placements_per_second)
            try:
                async with asyncio.timeout(max(0.001, min(next_placement, deadline) - time.perf_counter())):
                    event = await reader.next_event()
            except TimeoutError:
                continue
            scans += 1
            for change in watcher.reader_event(event):
                if isinstance(change, ZoneChanged):
                    for judged in change.chips:
                        if judged.uid in placed:
                            latencies.append(time.perf_counter() - placed.pop(judged.uid))
        wall = time.perf_counter() - wall_start
        cpu = time.process_time() - cpu_start
        firmware = backend.firmware_cpu - firmware_start
    command = "python -m bench.chips " + shlex.join(sys.argv[1:])
    print(f"command: {command.strip()}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end (other work skews it)")
    print(f"load: {len(zones)} zones x {args.stack} chips, {args.scans_per_second:g} scans/s requested, "
          f"{scans / wall:.1f} scans/s done, miss rate {args.miss_rate:.0%}, {wall:.1f} s")
    print(f"CPU share of one core: whole process {cpu / wall:.1%}, simulated reader firmware {firmware / wall:.1%}, "
          f"controller (driver + pyusb + zones + watcher) {(cpu - firmware) / wall:.1%}")
    if latencies:
        print(f"chip placed -> zone event: n={len(latencies)}, p50 {statistics.median(latencies) * 1000:.0f} ms, "
              f"p99 {percentile(latencies, 0.99) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms")
    else:
        print("chip placed -> zone event: no placement measured")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--zones", type=int, default=15, choices=range(1, 22), metavar="1..21")
    parser.add_argument("--stack", type=int, default=40)
    parser.add_argument("--scans-per-second", type=float, default=10.0)
    parser.add_argument("--placements-per-second", type=float, default=3.0)
    parser.add_argument("--miss-rate", type=float, default=0.05)
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
