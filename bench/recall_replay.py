"""What a long journal costs: recall of the last 10 rounds and the replay of a restart, after N rounds.

Both rebuild the table from the journal's inputs (the engine makes the events
again), so they grow with the journal. Fills a journal with the fast demo table
(the same controller and journal as the runtime; fsync off while filling only),
then times `recall_rounds(last=10)` and a `TableController` start on it.
Prints the figures and the command line that produced them.

    python -m bench.recall_replay [--rounds 2000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from simulators.fast_table import FastTable
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000, help="rounds in the journal")
    args = parser.parse_args(argv)
    rules, limits = profile("fr-casino"), TableLimits()
    with tempfile.TemporaryDirectory(prefix="recall-replay-") as tmp, Journal.open(journal_path(Path(tmp))) as journal:
        journal._db().execute("PRAGMA synchronous=OFF")  # filling only: the timed reads do not write
        controller = TableController(table_id="T", rules=rules, limits=limits, journal=journal, clock=time.time)
        FastTable(controller, seed=5, error_rate=0.0).run(args.rounds)
        started = time.perf_counter()
        recalled = recall_rounds(journal, rules, limits, last=10)
        recall_s = time.perf_counter() - started
        started = time.perf_counter()
        TableController(table_id="T", rules=rules, limits=limits, journal=journal, clock=time.time)
        restart_s = time.perf_counter() - started
        rows = journal.last_seq
    print(f"journal of {args.rounds} rounds, {rows} rows: recall of the last {len(recalled)} rounds {recall_s:.2f} s, "
          f"restart replay {restart_s:.2f} s")
    print(f"command: python -m bench.recall_replay {' '.join(argv if argv is not None else sys.argv[1:])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
