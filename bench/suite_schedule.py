"""Model: how two pytest-xdist workers share the suite, by the durations a whole run printed.

Reads the output of ``scripts/test --durations=60`` (its slowest durations and the run's time), gives every
other test the rest of the two workers' time in equal parts, and plays the collection's order (without
tests/conftest.py's ordering: ``--noconftest``) and the suite's order (slow tests first) through xdist's two
schedulers as they hand out tests: ``load`` (a chunk of a quarter of each worker's share, then more as a
worker runs short) and ``worksteal`` (each worker starts on half of the list; an idle one takes half of the
other's queue, from its end). Prints when the last worker would finish. A model: real durations vary.

    python -m bench.suite_schedule LOG
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Sequence

DURATION = re.compile(r"^([0-9.]+)s (?:call|setup|teardown) +(\S+)$")
RUN = re.compile(r" in ([0-9.]+)s")


def collected(*options: str) -> list[str]:
    listing = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0",
                              "--collect-only", *options, "tests"], capture_output=True, text=True, check=False)
    return [line for line in listing.stdout.splitlines() if "::" in line]


def load(durations: list[float]) -> float:
    pending = list(durations)
    chunk = max(len(pending) // 2 // 4, 2)
    queues: list[list[float]] = []
    for _ in range(2):
        queues.append(pending[:chunk])
        del pending[:chunk]
    clocks = [0.0, 0.0]
    while any(queues) or pending:
        worker = min((0, 1), key=lambda index: clocks[index] if queues[index] or pending else float("inf"))
        if not queues[worker]:
            queues[worker], pending = pending[:1], pending[1:]
        clocks[worker] += queues[worker].pop(0)
        if len(queues[worker]) < 2 and pending:
            more = max(len(pending) // 4, 2)
            queues[worker] += pending[:more]
            del pending[:more]
    return max(clocks)


def worksteal(durations: list[float]) -> float:
    half = len(durations) // 2
    queues = [list(durations[:half]), list(durations[half:])]
    clocks = [0.0, 0.0]
    done = [False, False]
    while not all(done):
        worker = min((index for index in (0, 1) if not done[index]), key=lambda index: clocks[index])
        if not queues[worker]:
            other = queues[1 - worker]
            if not other:
                done[worker] = True
                continue
            take = max(len(other) // 2, 1)
            queues[worker] = other[-take:]
            del other[-take:]
        clocks[worker] += queues[worker].pop(0)
    return max(clocks)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("log", help="the output of scripts/test --durations=60")
    args = parser.parse_args(argv)
    known: dict[str, float] = {}
    run = 0.0
    with open(args.log, encoding="utf-8") as log:
        for line in log:
            if found := DURATION.match(line.strip()):
                known[found[2]] = known.get(found[2], 0.0) + float(found[1])
            elif "passed" in line and (time := RUN.search(line)):
                run = float(time[1])
    if not known or not run:
        parser.error(f"{args.log} has no durations or no run time")
    print(f"python -m bench.suite_schedule {args.log}")
    for name, order in (("collection order", collected("--noconftest")), ("slow tests first", collected())):
        other = (2 * run - sum(known.get(test, 0.0) for test in order)) / sum(test not in known for test in order)
        durations = [known.get(test, other) for test in order]
        print(f"{name}: --dist load {load(durations):.0f} s, --dist worksteal {worksteal(durations):.0f} s "
              f"(both workers busy throughout: {sum(durations) / 2:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
