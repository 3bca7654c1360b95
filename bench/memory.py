"""Resident memory of the runtime after 10,000 fast demo rounds, compared with after 100: no growth.

In-process, what `table-runtime demo --fast` runs: `simulators.fast_table.FastTable`
feeding the simulated dealer's inputs to a `TableController`, every input
committed to the journal (SQLite WAL, synchronous=FULL, so one fsync per input:
that is what makes 10,000 rounds slow). The first `--baseline` rounds are timed
and the whole run's duration is estimated before it goes on; the resident set
(VmRSS of /proc/self/status, after a full garbage collection) and the number of
Python objects the collector tracks are printed at each checkpoint.

Prints the command line, the time per round, each checkpoint, and last
`rss_growth_mb=X` (after `--rounds` minus after `--baseline`).
"""

from __future__ import annotations

import argparse
import gc
import shlex
import sys
import tempfile
import time
from pathlib import Path

from simulators.fast_table import FastTable
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController


def resident_kib() -> tuple[int, int]:
    """(VmRSS, VmHWM) of this process in KiB."""
    values: dict[str, int] = {}
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0])
    return values["VmRSS"], values["VmHWM"]


def checkpoint(rounds: int, started: float, journal: Journal) -> int:
    gc.collect()
    rss, peak = resident_kib()
    print(f"after {rounds:>6} rounds: rss={rss / 1024:.1f} MiB peak={peak / 1024:.1f} MiB "
          f"objects={len(gc.get_objects())} journal_rows={journal.last_seq} "
          f"elapsed={time.perf_counter() - started:.0f} s", flush=True)
    return rss


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10_000)
    parser.add_argument("--baseline", type=int, default=100, help="the rounds the growth is measured from")
    parser.add_argument("--every", type=int, default=1000, help="print a checkpoint every N rounds")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="where the journal goes (default: a fresh temporary directory on disk)")
    args = parser.parse_args(argv)
    print("command:", shlex.join([sys.executable, *sys.argv]), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as scratch:
        data_dir = args.data_dir or Path(scratch)
        with Journal.open(journal_path(data_dir)) as journal:
            controller = TableController(table_id="BENCH", rules=profile("fr-casino"), limits=TableLimits(),
                                         journal=journal, clock=time.time)
            table = FastTable(controller, seed=args.seed)
            started = time.perf_counter()
            table.run(args.baseline)
            per_round = (time.perf_counter() - started) / max(1, args.baseline)
            print(f"time per round: {per_round * 1000:.1f} ms ({journal.last_seq / max(1, args.baseline):.0f} "
                  f"journal rows per round); {args.rounds} rounds will take about "
                  f"{per_round * args.rounds / 60:.1f} min", flush=True)
            baseline = checkpoint(args.baseline, started, journal)
            done = args.baseline
            final = baseline
            while done < args.rounds:
                done = min(args.rounds, (done // args.every + 1) * args.every)
                table.run(done)
                final = checkpoint(done, started, journal)
            elapsed = time.perf_counter() - started
    print(f"{args.rounds} rounds in {elapsed / 60:.1f} min ({elapsed / args.rounds * 1000:.1f} ms per round); "
          f"alarms {dict(sorted(table.summary.alarms.items()))}")
    growth = (final - baseline) / 1024
    print(f"rss_growth_mb={growth:.2f} (after {args.rounds} rounds {final / 1024:.1f} MiB, "
          f"after {args.baseline} rounds {baseline / 1024:.1f} MiB; "
          f"{(final - baseline) * 1024 / max(1, args.rounds - args.baseline):.0f} bytes per round)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
