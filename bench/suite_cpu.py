"""Profile: the CPU and the idle wall time of each test file, the processes its tests start included.

A pytest plugin and its report. As a plugin it writes one JSON line per test to ``SUITE_CPU_OUT``: the test's
wall time and the CPU it cost, which is this process's own, its children's that it waited for, and that of every
live process started under this run (found by a variable in their environment, so a PostgreSQL that `pg_ctl`
left to init counts while it runs; what such a process spends after its test, the next test pays). The report
sums the lines per file and prints the files by CPU and by idle time (wall minus CPU: a test waiting on a
process, a broker or a timer while a core has nothing to do). Run test directories one at a time, alone:

    SUITE_CPU_OUT=cpu.jsonl python -m pytest -p bench.suite_cpu -p no:randomly -q -n 0 tests/e2e
    python -m bench.suite_cpu cpu.jsonl ...
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from collections.abc import Generator, Sequence
from pathlib import Path

import pytest

MARK = "SUITE_CPU_RUN"
TICKS = os.sysconf("SC_CLK_TCK")


def _started_here() -> float:
    """CPU seconds of the live processes whose environment carries this run's mark (not this one)."""
    mark = f"{MARK}={os.getpid()}".encode()
    total = 0.0
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            if mark not in Path(f"/proc/{name}/environ").read_bytes():
                continue
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone, or not ours
            continue
        total += sum(int(field) for field in fields[11:15]) / TICKS  # utime, stime, cutime, cstime
    return total


def _cpu() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system + _started_here()


def pytest_configure(config: pytest.Config) -> None:
    os.environ[MARK] = str(os.getpid())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    wall, cpu = time.perf_counter(), _cpu()
    yield
    line = {"id": item.nodeid, "wall": time.perf_counter() - wall, "cpu": _cpu() - cpu}
    with open(os.environ.get("SUITE_CPU_OUT", "suite-cpu.jsonl"), "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args(argv)
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])  # wall, cpu, tests
    for log in args.logs:
        for text in log.read_text(encoding="utf-8").splitlines():
            row = json.loads(text)
            totals = files[row["id"].split("::")[0]]
            totals[0] += row["wall"]
            totals[1] += row["cpu"]
            totals[2] += 1
    wall, cpu = sum(t[0] for t in files.values()), sum(t[1] for t in files.values())
    print(f"{sum(t[2] for t in files.values()):.0f} tests: {wall:.1f} s wall, {cpu:.1f} s CPU, "
          f"{wall - cpu:.1f} s idle")
    for title, key in (("by CPU", 1), ("by idle wall time", -1)):
        print(f"--- {title}: CPU s, idle s, wall s, tests, file")
        ranked = sorted(files.items(), key=lambda item: -(item[1][0] - item[1][1] if key < 0 else item[1][1]))
        for name, (file_wall, file_cpu, tests) in ranked[:args.top]:
            print(f"{file_cpu:7.1f} {file_wall - file_cpu:7.1f} {file_wall:7.1f} {tests:5.0f}  {name}")


if __name__ == "__main__":
    main()
