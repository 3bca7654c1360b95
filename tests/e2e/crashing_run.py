"""`table-runtime run` with a crash point, for the tests of ack after commit: the process kills itself (SIGKILL) the
N-th card from the shoe, at POINT, `before-commit` (decoded, not journaled) or `after-commit`
(journaled, not yet acknowledged to the shoe). What each produces: docs/journal.md.

    python -m tests.e2e.crashing_run POINT N --config FILE

The product reads no crash point from anywhere: this assembly injects one through the shoe link's `on_commit`
hook (table_runtime/runtime/shoe_link.py), the way `serve` lets a caller touch the assembled table.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import Sequence

from firmware_bridge.shoe.events import CardDrawn, SequencedShoeEvent
from table_runtime.commands.run import serve
from table_runtime.config import load_config
from table_runtime.runtime.assembly import AssembledTable

POINTS = ("before-commit", "after-commit")


class CrashPoint:
    """Where to die: when the step holding the `at`-th card from the shoe reaches `point`."""

    def __init__(self, point: str, at: int) -> None:
        self.point, self.at, self.cards = point, at, 0

    def __call__(self, point: str, events: Sequence[SequencedShoeEvent]) -> None:
        if point != self.point:
            return
        self.cards += sum(1 for event in events if isinstance(event, CardDrawn))
        if self.cards >= self.at:
            os.kill(os.getpid(), signal.SIGKILL)


def main(argv: list[str]) -> int:
    point, count, flag, config_path = argv
    if point not in POINTS or not count.isdigit() or int(count) < 1 or flag != "--config":
        print("usage: python -m tests.e2e.crashing_run before-commit|after-commit N --config FILE", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO)
    crash = CrashPoint(point, int(count))

    def inject(table: AssembledTable) -> None:
        table.app.shoe_link.on_commit = crash

    return asyncio.run(serve(load_config(config_path), on_assembled=inject))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
