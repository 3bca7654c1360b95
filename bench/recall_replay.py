"""What a long journal costs: a restart and `recall --last 10` on journals of 10^4, 10^5 and 10^6 rows.

A start verifies the chain from the newest checkpoint and replays the rows after it; recall replays from the
checkpoint before the rounds it shows (docs/journal.md "Checkpoints"). The journals are filled fast with
the real chain hash (bench/journal_fill.py: a few hundred rounds played by the fast demo table, copied and
renumbered, then checkpointed as the controller does). For each size: the restart (`Journal.open` and a
`TableController`, as `run` does), recall of the last 10 rounds in-process and as the command
(`table-runtime recall --last 10 --json`, process start included), and the background audit of the rows
before the start's checkpoint (chain, then every checkpoint's state replayed). `--baseline` also times a
copy without its checkpoints (a journal of an older version). Prints the figures and the command line.

    python -m bench.recall_replay [--rows 10000 100000 1000000] [--every 2000] [--baseline]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.journal_fill import checkpoint, drop_checkpoints, fill, template
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.journal_audit import audit_journal
from table_runtime.runtime.recall import recall_rounds

RULES, LIMITS = profile("fr-casino"), TableLimits()


def timed(action: Callable[[], object], repeat: int = 5) -> float:
    """The median seconds of `repeat` runs of `action` (wall clock)."""
    return _median(action, repeat, time.perf_counter)


def cpu(action: Callable[[], object], repeat: int = 5) -> float:
    """The median CPU seconds of this process over `repeat` runs (less sensitive to a loaded machine)."""
    return _median(action, repeat, time.process_time)


def _median(action: Callable[[], object], repeat: int, clock: Callable[[], float]) -> float:
    times = []
    for _ in range(repeat):
        started = clock()
        action()
        times.append(clock() - started)
    return statistics.median(times)


def restart(path: Path, every: int) -> None:
    with Journal.open(path) as journal:
        TableController(table_id="T", rules=RULES, limits=LIMITS, journal=journal, clock=time.time,
                        checkpoint_rows=every)


def recall(path: Path) -> None:
    with Journal.open(path) as journal:
        rounds = recall_rounds(journal, last=10)
    assert len(rounds) == 10, len(rounds)


def recall_command(path: Path) -> None:
    subprocess.run([sys.executable, "-m", "table_runtime", "recall", "--data-dir", str(path.parent), "--last", "10",
                    "--json"], check=True, stdout=subprocess.DEVNULL)


def audit(path: Path, every: int) -> float:
    with Journal.open(path) as journal:
        controller = TableController(table_id="T", rules=RULES, limits=LIMITS, journal=journal, clock=time.time,
                                     checkpoint_rows=every)
        started = time.perf_counter()
        asyncio.run(audit_journal(controller))
        assert not controller.halted, controller.halted
        return time.perf_counter() - started


def measure(path: Path, every: int) -> str:
    restart(path, every)  # the first start stores the terms recall reads
    figures = [f"restart {timed(lambda: restart(path, every)) * 1000:.0f} ms "
               f"(CPU {cpu(lambda: restart(path, every)) * 1000:.0f} ms)",
               f"recall --last 10 {timed(lambda: recall(path)) * 1000:.0f} ms in-process "
               f"(CPU {cpu(lambda: recall(path)) * 1000:.0f} ms)",
               f"{timed(lambda: recall_command(path), repeat=3) * 1000:.0f} ms as the command"]
    return ", ".join(figures)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000, 1_000_000], help="journal sizes")
    parser.add_argument("--every", type=int, default=2000, help="rows between two checkpoints")
    parser.add_argument("--template-rounds", type=int, default=400, help="rounds played for real, then copied")
    parser.add_argument("--baseline", action="store_true", help="also time each journal without its checkpoints")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows_of_template, rounds_of_template = template(RULES, LIMITS, rounds=args.template_rounds)
    print(f"template: {args.template_rounds} rounds played, {len(rows_of_template)} rows, "
          f"{time.perf_counter() - started:.1f} s")
    with tempfile.TemporaryDirectory(prefix="recall-replay-") as tmp:
        for size in args.rows:
            path = journal_path(Path(tmp) / str(size))
            path.parent.mkdir()
            started = time.perf_counter()
            rows = fill(path, size, rows_of_template, rounds_of_template)
            count = checkpoint(path, every=args.every)
            filled_s = time.perf_counter() - started
            print(f"{rows} rows ({count} checkpoints, filled in {filled_s:.1f} s): {measure(path, args.every)}; "
                  f"background audit {audit(path, args.every):.1f} s")
            if args.baseline:
                old = journal_path(Path(tmp) / f"{size}-old")
                old.parent.mkdir()
                shutil.copy(path, old)
                drop_checkpoints(old)
                print(f"  without checkpoints: {measure(old, 10**12)}")
                shutil.rmtree(old.parent)
            shutil.rmtree(path.parent)
    print(f"load average at the end: {' '.join(f'{load:.1f}' for load in os.getloadavg())}")
    print(f"command: python -m bench.recall_replay {' '.join(argv if argv is not None else sys.argv[1:])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
