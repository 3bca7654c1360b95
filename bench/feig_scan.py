"""Bench: what the FEIG driver reads per second from a FEIG reader at realistic timing.

The real driver (drivers/feig_reader.py) reads the simulated FEIG reader (simulators/feig_reader.py) on a pty at
38400 baud 8E1, with the simulator's timing model of ISO 15693 (docs/protocols/feig.md 5): every zone lies under a
multiplexer channel (or a reader output, `--outputs`) and holds a stack of chips; a player swaps a chip on a random
zone now and then, so some blocks are read each scan as on a live table. We measure

* zones per second: zones scanned completely per second (scans/s x zones);
* chips per scan: the chips each scan reports (all of them: the driver's RF reset wakes the quiet ones);
* the time one scan takes, p50 and p99, and the requests it needs.

Run: python -m bench.feig_scan [--seconds 20] [--zones 21] [--stack 5] [--outputs] [--baud 38400] [--tcp]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shlex
import statistics
import sys
import time

from drivers.feig_reader import FeigChipReader
from drivers.feig_settings import FeigSettings
from drivers.ports import ChipsScanned
from simulators.feig_reader import SimulatedFeigReader, level_number
from simulators.rfid_chips import ChipIssuer

ZONES = [zone for box in range(1, 8) for zone in (f"box{box}", f"box{box}.behind", f"box{box}.insurance")]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


async def run(args: argparse.Namespace) -> int:
    zones = ZONES[: args.zones]
    if args.outputs:
        antennas = {index + 1: zone for index, zone in enumerate(zones)}
    else:
        antennas = {level_number(index): zone for index, zone in enumerate(zones)}
    issuer = ChipIssuer(7, seed=1)
    spare = issuer.issue(2500, 1000)
    rng = random.Random(3)
    with SimulatedFeigReader(antennas, mux=not args.outputs, outputs=8, tcp=args.tcp, address=0,
                             baud=args.baud) as device:
        for zone in zones:
            device.place(zone, *issuer.issue(500, args.stack))
        url = device.tcp_url if args.tcp else device.url
        settings = FeigSettings.from_url(f"{url}&mux={0 if args.outputs else 1}&scan_interval=0.001", antennas,
                                         name="bench")
        durations: list[float] = []
        chips: list[int] = []
        async with FeigChipReader(settings) as reader:
            async with asyncio.timeout(30):  # warm up: every stack read once
                while True:
                    event = await reader.next_event()
                    if isinstance(event, ChipsScanned) and sum(len(r.tags) for r in event.readings) \
                            == len(zones) * args.stack:
                        break
            requests, scans = reader.requests, reader.scans
            started = last = time.perf_counter()
            while time.perf_counter() - started < args.seconds:
                if rng.random() < args.swaps_per_scan:
                    zone = rng.choice(zones)
                    device.remove(zone, device.chips(zone)[0].uid)
                    device.place(zone, spare.pop())
                event = await reader.next_event()
                if isinstance(event, ChipsScanned):
                    now = time.perf_counter()
                    durations.append(now - last)
                    last = now
                    chips.append(sum(len(reading.tags) for reading in event.readings))
            wall = time.perf_counter() - started
            done = reader.scans - scans
            per_scan = (reader.requests - requests) / max(1, done)
    command = "python -m bench.feig_scan " + shlex.join(sys.argv[1:])
    print(f"command: {command.strip()}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end (other work skews it)")
    layout = f"{len(zones)} reader outputs" if args.outputs else f"{len(zones)} multiplexer channels"
    line = "TCP on loopback" if args.tcp else f"a pty at {args.baud} baud 8E1"
    print(f"load: {layout} x {args.stack} chips over {line}, {args.swaps_per_scan:g} chip swaps per scan, "
          f"{wall:.1f} s, {done} scans")
    print(f"zones per second: {done * len(zones) / wall:.1f} ({done / wall:.2f} scans/s)")
    print(f"chips per scan: {statistics.mean(chips):.1f} (of {len(zones) * args.stack} on the table)")
    p50, p99 = percentile(durations, 0.5) * 1000, percentile(durations, 0.99) * 1000
    print(f"scan time: p50 {p50:.0f} ms, p99 {p99:.0f} ms; {per_scan:.1f} requests per scan")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--zones", type=int, default=21, choices=range(1, 22), metavar="1..21")
    parser.add_argument("--stack", type=int, default=5, help="chips on each zone")
    parser.add_argument("--swaps-per-scan", type=float, default=0.5, help="chance a chip is swapped between scans")
    parser.add_argument("--outputs", action="store_true", help="antennas on the reader's outputs (at most 8 zones)")
    parser.add_argument("--baud", type=int, default=38400, help="the serial line's speed (the readers' default 38400)")
    parser.add_argument("--tcp", action="store_true", help="the reader on TCP (loopback) instead of a serial line")
    args = parser.parse_args()
    if args.outputs and args.zones > 8:
        parser.error("--outputs: a reader has at most 8 outputs (--zones 8 or fewer)")
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
