"""Bench: the pit page's fold of a floor's rows (`FloorPicture.apply_all`: the tables' view and the dealers on
shift), no broker, no database, no browser: the CPU a floor process spends per row beside its store.

The rows are real journal rows (rounds of the fast demo table journaled again at each table, as
`bench.floor_path` makes them) in ``JournalRows`` messages of `--rows-per-message` rows, decoded first (not
timed). Seven passes; the fastest and the median CPU per row are printed (the machine is shared), with a digest
of what the page would show at the end, so two versions of the fold can be seen to agree.

    python -m bench.pit_fold [--tables 20] [--rounds 40] [--rows-per-message 100]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.floor_path import messages
from casino_floor.integrity import decode_payload
from casino_floor.pit.picture import FloorPicture
from table_runtime.feed.row_batches import event_rows

PASSES = 7


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--rows-per-message", type=int, default=100)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-pit-fold-") as scratch:
        sent = messages(Path(scratch), args.tables, args.rounds, args.rows_per_message)
    batches = [event_rows(decode_payload(raw)) for _, raw in sent]
    rows = sum(len(batch) for batch in batches)
    passes, picture = [], FloorPicture()
    for _ in range(PASSES):
        picture = FloorPicture(clock=lambda: 1.8e9)
        started = time.process_time()
        for batch in batches:
            picture.apply_all("events", batch)
        passes.append((time.process_time() - started) / rows * 1e6)
    digest = hashlib.sha256(json.dumps(picture.overview(), sort_keys=True, default=str).encode()).hexdigest()[:16]
    print(f"pit_fold rows={rows} us_per_row_min={min(passes):.2f} us_per_row_median={statistics.median(passes):.2f} "
          f"digest={digest}")
    print(f"command: python -m bench.pit_fold --tables {args.tables} --rounds {args.rounds} "
          f"--rows-per-message {args.rows_per_message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
