"""What the terms row costs a long journal: the first open that indexes it, and every reader's look-up of it.

Every reader builds its table from the journal's `terms` rows (docs/journal.md "The terms row"), found through a
partial index of their own; a journal written before it gets the index on its first open. On a journal filled
with the real chain hash (bench/journal_fill.py), this times that first open (the index dropped before each
run) and the look-up every start, recall and fold makes. Prints the figures and the command line.

    python -m bench.terms_index [--rows 1000000]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.journal_fill import checkpoint, fill, template
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.journal.terms_index import TERMS_INDEX


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="the journal's rows")
    args = parser.parse_args(argv)
    rows, rounds = template(profile("fr-casino"), TableLimits(), rounds=400)
    with tempfile.TemporaryDirectory(prefix="terms-index-") as tmp:
        path = journal_path(Path(tmp))
        written = fill(path, args.rows, rows, rounds)
        checkpoint(path, every=2000)
        walls, cpus = [], []
        for _ in range(3):
            with sqlite3.connect(path) as db:
                db.execute(f"DROP INDEX {TERMS_INDEX}")  # a journal written before the index
            wall, cpu = time.perf_counter(), time.process_time()
            Journal.open(path).close()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        with Journal.open(path) as journal:
            started = time.perf_counter()
            for _ in range(1000):
                [_terms] = journal.terms_entries()
            lookup = (time.perf_counter() - started) / 1000
    print(f"{written} rows: first open (the terms index created) {statistics.median(walls) * 1000:.0f} ms "
          f"(CPU {statistics.median(cpus) * 1000:.0f} ms), median of 3; the terms rows looked up "
          f"{lookup * 1000:.3f} ms")
    print(f"load average at the end: {' '.join(f'{load:.1f}' for load in os.getloadavg())}")
    print("command: python -m bench.terms_index " + " ".join(sys.argv[1:] if argv is None else argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
