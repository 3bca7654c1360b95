"""Bench: how long a full read of the chip tray takes through a FEIG reader at 38400 baud, and what the table waits.

The real driver (drivers/feig_reader.py) reads the simulated FEIG reader (simulators/feig_reader.py, its ISO 15693
timing model, docs/protocols/feig.md 5) on a pty at 38400 baud 8E1. The tray (simulators/chip_rack.py) is `--rows`
rows of `--per-row` chips, an antenna a row on the reader's own outputs (at most 8: one inventory per output, each
its own field; the simulated multiplexer counts all its channels as one field, 120 chips at most, too few for a
tray). The tray has a reader of its own: the boxes' reader keeps its scan rate (bench/README.md). We measure

* the first full read: from the driver's start to the first scan that reports every chip of the tray (each chip's
  data block read once, as after a start);
* a scan of the whole reader (every output and channel) while nothing moves: p50 and p99;
* a whole read of the tray (core/tray.py: every row answered, the same chips over 3 scans) after a chip is taken
  from it: from the chip leaving to the edge's report (chips/edge.py), p50 and p99 over `--moves` moves;
* the reconciliation's own cost (core/tray_reconciliation.py `reconcile`, a tray of that size against its count with
  one chip missing), per round, in the process: what the table core adds to a round's step.

Run: python -m bench.tray_read [--rows 8] [--per-row 38] [--moves 10] [--baud 38400]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
import time

from bench.feig_scan import percentile
from drivers.feig_reader import FeigChipReader
from drivers.feig_settings import FeigSettings
from drivers.ports import ChipsScanned
from simulators.chip_rack import ReadTray, rack_antennas
from simulators.feig_reader import SimulatedFeigReader
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.edge import ZoneReporter
from table_runtime.chips.registry import RegisteredChip
from table_runtime.core.inputs import ZoneChanged
from table_runtime.core.tray import is_tray_zone
from table_runtime.core.tray_reconciliation import TrayFlows, reconcile


async def run(args: argparse.Namespace) -> int:
    antennas = rack_antennas(args.rows, mux=False)
    issuer = ChipIssuer(7, seed=1)
    with SimulatedFeigReader(antennas, mux=False, outputs=8, address=0, baud=args.baud) as device:
        tray = ReadTray(device, issuer, rows=args.rows, per_row=args.per_row)
        chips = tray.count()
        registry = {uid: RegisteredChip(uid=uid, denomination_cents=tag.denomination_cents or 0, casino_id=7,
                                        status="active") for uid, tag in issuer.issued.items()}
        reporter = ZoneReporter(antennas.values(), registry=registry, casino_id=7)
        settings = FeigSettings.from_url(f"{device.url}&mux=0&scan_interval=0.001", antennas, name="bench")
        scans: list[float] = []
        wholes: list[float] = []
        started = time.perf_counter()
        async with FeigChipReader(settings) as reader:
            async with asyncio.timeout(120):
                while True:  # the first full read
                    event = await reader.next_event()
                    if isinstance(event, ChipsScanned) and sum(
                            len(reading.tags) for reading in event.readings if is_tray_zone(reading.zone)) == chips:
                        first = time.perf_counter() - started
                        reporter.reader_event(event)
                        break
                last = time.perf_counter()
                for _ in range(5):  # scans while nothing moves
                    event = await reader.next_event()
                    if isinstance(event, ChipsScanned):
                        now = time.perf_counter()
                        scans.append(now - last)
                        last = now
                        reporter.reader_event(event)
                smallest = min(tray.row_of)
                for move in range(args.moves):
                    if move % 2 == 0:
                        tray.pocket(smallest)  # a chip taken from the tray
                    else:
                        fresh = issuer.issue(smallest)[0]  # a fresh chip of the house's racked
                        registry[fresh.uid] = RegisteredChip(uid=fresh.uid, denomination_cents=smallest, casino_id=7,
                                                             status="active")
                        tray.rack([fresh])
                    moved = time.perf_counter()
                    while True:
                        event = await reader.next_event()
                        if not isinstance(event, ChipsScanned):
                            continue
                        now = time.perf_counter()
                        scans.append(now - last)
                        last = now
                        if any(isinstance(item, ZoneChanged) and is_tray_zone(item.zone)
                               for item in reporter.reader_event(event)):
                            wholes.append(now - moved)
                            break
    counted = {chip.uid: chip for zone in reporter.zones for chip in reporter.judged(zone)}
    read = dict(counted)
    read.pop(next(iter(read)))
    repeats = 2000
    clock = time.perf_counter()
    for _ in range(repeats):
        reconcile(1, counted, read, TrayFlows(collected_cents=500))
    cost = (time.perf_counter() - clock) / repeats
    command = "python -m bench.tray_read " + shlex.join(sys.argv[1:])
    print(f"command: {command.strip()}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end (other work skews it)")
    print(f"load: {args.rows} tray rows x {args.per_row} chips on one FEIG reader's outputs, a pty at {args.baud} "
          "baud 8E1")
    print(f"first full read of the tray ({chips} chips, each chip's block read): {first:.2f} s")
    print(f"scan of the reader while nothing moves: p50 {percentile(scans, 0.5):.2f} s, "
          f"p99 {percentile(scans, 0.99):.2f} s ({len(scans)} scans)")
    print(f"a chip moved -> whole read of the tray reported (3 identical scans): p50 {percentile(wholes, 0.5):.2f} s, "
          f"p99 {percentile(wholes, 0.99):.2f} s ({len(wholes)} moves)")
    print(f"reconciliation of a {len(counted)}-chip tray, one chip missing: {cost * 1e6:.0f} µs per round "
          f"(mean of {repeats})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8, choices=range(1, 9), metavar="1..8")
    parser.add_argument("--per-row", type=int, default=38, help="chips in each row (a field reads 120 at most)")
    parser.add_argument("--moves", type=int, default=10, help="chips taken from / put in the tray, one at a time")
    parser.add_argument("--baud", type=int, default=38400, help="the serial line's speed (the readers' default)")
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
