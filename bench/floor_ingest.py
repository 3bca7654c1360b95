"""Bench: the floor's CPU per row before the store, a message decoded and folded by `Ingest` (its bounds, the
topic's table, the hash check), no broker and no database: what the checks against hostile input cost.

The rows are real journal rows (rounds of the fast demo table) as one table's ``events`` messages; the best of
five passes is printed (the machine is shared: the best pass is the least disturbed).

    python -m bench.floor_ingest [--rounds 60]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from casino_floor.ingest import Ingest
from casino_floor.integrity import decode_payload
from casino_floor.store import Batch
from simulators.fast_table import FastTable
from table_runtime.feed.messages import Topics, encode_payload, event_payload
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal
from table_runtime.runtime.controller import TableController


def _messages(rounds: int) -> list[bytes]:
    with tempfile.TemporaryDirectory(prefix="bench-floor-ingest-") as scratch, \
            Journal.open(Path(scratch) / "journal.db") as journal:
        controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                                     clock=time.time)
        FastTable(controller, seed=5, error_rate=0.2).run(rounds)
        return [encode_payload(event_payload("T1", journal.journal_id, entry)) for entry in journal.entries()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args(argv)
    raws = _messages(args.rounds)
    topic = Topics("casino", "T1").events
    best = float("inf")
    for _ in range(5):
        ingest, batch = Ingest(), Batch()
        started = time.perf_counter()
        for raw in raws:
            ingest.take("events", decode_payload(raw), batch, topic=topic, raw=raw)
        best = min(best, time.perf_counter() - started)
        assert len(batch.rows) == len(raws) and not batch.set_aside
    print(f"floor_ingest rows={len(raws)} us_per_row={best / len(raws) * 1e6:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
