"""A floor process under cProfile, for ``python -m bench.floor --profile-floor FILE``: `table-floor` as usual, and
on SIGTERM (the bench's stop) the profile written to FILE (``python -m pstats FILE`` reads it).

    python -m bench.floor_profiled FILE run --config floor.toml
"""

from __future__ import annotations

import cProfile
import signal
import sys
from types import FrameType

from casino_floor.launcher import main as floor_main


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # out of the event loop, so that the profile is written


def main() -> int:
    out, argv = sys.argv[1], sys.argv[2:]
    signal.signal(signal.SIGTERM, _stop)
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        return floor_main(argv)
    except KeyboardInterrupt:
        return 0
    finally:
        profiler.disable()
        profiler.dump_stats(out)


if __name__ == "__main__":
    raise SystemExit(main())
