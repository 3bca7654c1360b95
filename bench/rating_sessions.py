"""What the rated sessions cost (docs/rating.md "Rated sessions"): the fold over a real journal, and its start.

Plays `--rounds` rounds with the fast demo table (the runtime's controller and journal; its boxes are anonymous
players, rated by box), then times, in this process's CPU seconds:

- the start of a fold: the rules' house edge and chart (`SessionFold`), and with the advice the edge model
  (`LinearEdge`, fitted once per rule terms); both cached per process after the first;
- the fold of the whole journal (what the feed and the runtime's watch do at a start), per row and per round,
  without and with the advice (the detection's scores of every seated session, read every 100 rounds);
- the messages it makes.

    python -m bench.rating_sessions [--rounds 2000] [--profile fr-casino] [--seed 3]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from simulators.fast_table import FastTable
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.rating.session_flags import AdviceSettings
from table_runtime.rating.session_fold import SessionFold
from table_runtime.runtime.controller import TableController


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rating_sessions", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--profile", default="fr-casino")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    rules = profile(args.profile)
    with tempfile.TemporaryDirectory(prefix="rating-bench-") as tmp, Journal.open(journal_path(Path(tmp))) as journal:
        journal._db().execute("PRAGMA synchronous=OFF")  # filling only
        ticks = itertools.count()
        controller = TableController(table_id="T", rules=rules, limits=TableLimits(), journal=journal,
                                     clock=lambda: 1_800_000_000.0 + next(ticks) * 0.5)
        FastTable(controller, seed=args.seed, error_rate=0.02).run(args.rounds)
        rows = list(journal.entries())
    rounds = controller.table.rounds_started
    figures: list[str] = []
    for advice in (None, AdviceSettings()):
        started = time.process_time()
        fold = SessionFold("T", rules, TableLimits(), advice=advice)
        start_s = time.process_time() - started
        started = time.process_time()
        messages = fold.take_all(rows)
        fold_s = time.process_time() - started
        name = "with_advice" if advice else "sessions"
        figures.append(f"rating_sessions {name} rows={len(rows)} rounds={rounds} start_s={start_s:.3f} "
                       f"fold_s={fold_s:.3f} per_row_us={fold_s / len(rows) * 1e6:.1f} "
                       f"per_round_ms={fold_s / max(rounds, 1) * 1e3:.3f} messages={len(messages)}")
    print("\n".join(figures))
    print("# CPU seconds of this process; the first start computes the house edge, the chart and (with the "
          "advice) the edge model, cached after it")
    print("# " + " ".join(["python -m bench.rating_sessions", *(argv if argv is not None else sys.argv[1:])]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
