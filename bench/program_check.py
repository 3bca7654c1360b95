"""How long the table's check of its whole installation takes on half a core (runtime/program_watch.py).

The check with a verifier's seed is the costliest one: `release.manifest.check` (every listed file's SHA-256 and
the walk for files not listed) then `seeded_digest` (every file's bytes again, through the HMAC under the seed),
what `verify_installation` does once the manifest's signature verified. The manifest is built in memory (the
bench writes nothing into the installation it measures), so the figure is the files' reading and hashing, which
is all of it (the signature's check of one manifest is microseconds).

    taskset -c 0 python -m bench.program_check --busy [--prefix DIR] [--repeat 3]

`--busy` starts a busy loop on the same CPU (it inherits the bench's affinity): the check gets half a core, as on a
table whose loop is busy. The files are read once before (the page cache warm: the table reads its own program
every few hours, the first check after boot is slower by the card's read speed). Prints the slowest of the runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from table_runtime.release.manifest import build_manifest, check, seeded_digest

LIMIT_S = 60.0  # Ohio OAC 3772-9-12 allows 20 minutes; the issue asks for under 60 s on half a core


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", type=Path, default=Path(sys.prefix), help="the installation (default: this one)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--busy", action="store_true", help="a busy loop on the same CPU while the check runs")
    args = parser.parse_args(argv)
    prefix = args.prefix.resolve()
    started = time.perf_counter()
    manifest = build_manifest(prefix)  # also warms the page cache
    size = sum((prefix / path).stat().st_size for path in manifest.digests)
    print(f"{prefix}: {len(manifest.digests)} files, {size / 1e6:.0f} MB (manifest built in "
          f"{time.perf_counter() - started:.1f} s)")
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.busy else None
    try:
        cpus = sorted(os.sched_getaffinity(0))
        times = []
        for _ in range(args.repeat):
            began, cpu_began = time.perf_counter(), time.process_time()
            findings = check(prefix, manifest)
            answer = seeded_digest(prefix, manifest, os.urandom(16))
            times.append((time.perf_counter() - began, time.process_time() - cpu_began))
            assert findings.intact and len(answer) == 64, findings.lines()[:3]
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
    wall, cpu = max(times)
    print(f"check + seeded HMAC of the whole installation: slowest of {args.repeat} {wall:.1f} s wall, {cpu:.1f} s "
          f"CPU, on CPU(s) {cpus}{' shared with a busy loop' if args.busy else ''}; limit {LIMIT_S:.0f} s")
    return 0 if wall < LIMIT_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
