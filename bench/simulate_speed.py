"""`table-runtime simulate` side by side with the fastest pure-Python blackjack simulators (issue 3's speed goal).

Runs, each as its own process, one box then seven boxes:
- `table-runtime simulate --profile fr-casino` interpreted (the sources) and
  compiled (the mypyc wheel of setup.py, built here first), with 1 worker and
  with one worker per core;
- `jackblack` (its command line) and `py21` (its `Game.play_round` loop, timed
  in-process: it has no simulation command line), when installed
  (``pip install jackblack py21 altair``; py21 needs altair and does not say so).

For each it prints rounds per second of wall-clock time from the process start
(start-up included: imports, and for `simulate` computing the strategy), the
loop's own rate where the simulator reports one, and CPU seconds (user + sys)
of the process and its children. Then the ratio of the best `simulate` to the
best of the others. Prints the command line that produced the figures.

    python -m bench.simulate_speed [--rounds-one 200000] [--rounds-seven 50000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.compiled import ROOT, build_compiled, can_compile

PY21_LOOP = ("import sys, time; from py21.game import Game; from py21.player import Player; "
             "rounds, players = int(sys.argv[1]), int(sys.argv[2]); "
             "g = Game([Player(10**12) for _ in range(players)], rules={'num_decks': 6}, seed=1); "
             "c = time.perf_counter(); [g.play_round() for _ in range(rounds)]; "
             "print(rounds / (time.perf_counter() - c))")


@dataclass(frozen=True)
class Run:
    name: str
    boxes: int
    workers: int
    rounds: int
    wall_rate: float  # rounds / wall seconds of the whole process
    loop_rate: float | None  # what the simulator reports of its own loop
    cpu_seconds: float
    command: str


def timed(name: str, boxes: int, workers: int, rounds: int, argv: list[str], env: dict[str, str],
          cwd: Path, loop_rate: str) -> Run:
    """Run `argv`; `loop_rate` says how to read the loop's own rate from its output ("json", "float" or "")."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    rate: float | None = None
    if loop_rate == "json":
        rate = float(json.loads(done.stdout)["rounds_per_second"])
    elif loop_rate == "float":
        rate = float(done.stdout.split()[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(name, boxes, workers, rounds, rounds / wall, rate, cpu, " ".join(argv))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds-one", type=int, default=200_000, help="rounds of the one-box runs")
    parser.add_argument("--rounds-seven", type=int, default=50_000, help="rounds of the seven-box runs")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each; the best is kept")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="workers of the parallel runs")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    missing = can_compile()
    if missing is not None:
        print(f"cannot build the compiled engine: {missing}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="simulate-speed-") as tmp:
        site = build_compiled(Path(tmp))
        elsewhere = Path(tmp) / "cwd"  # not the repository, whose sources would shadow the compiled modules
        elsewhere.mkdir()
        runs = measure(args, site, elsewhere)
    report(runs, argv if argv is not None else sys.argv[1:], load)
    return 0


def measure(args: argparse.Namespace, site: Path, cwd: Path) -> list[Run]:
    runs: list[Run] = []
    base = dict(os.environ)

    def best(name: str, boxes: int, workers: int, rounds: int, argv: list[str], env: dict[str, str],
             loop_rate: str) -> None:
        tries = [timed(name, boxes, workers, rounds, argv, env, cwd, loop_rate) for _ in range(max(1, args.repeat))]
        runs.append(max(tries, key=lambda run: run.wall_rate))

    for boxes, rounds in ((1, args.rounds_one), (7, args.rounds_seven)):
        for label, path in (("simulate (interpreted)", ROOT), ("simulate (compiled)", site)):
            for workers in sorted({1, args.workers}):
                command = [sys.executable, "-m", "table_runtime", "simulate", "--profile", "fr-casino",
                           "--boxes", str(boxes), "--rounds", str(rounds), "--workers", str(workers),
                           "--seed", "1", "--json"]
                best(label, boxes, workers, rounds, command, base | {"PYTHONPATH": str(path)}, "json")
        jackblack = shutil.which("jackblack")
        if jackblack is not None:
            players = [f"P{index}" for index in range(1, boxes + 1)]
            command = [jackblack, "--players", *players, "--rounds", str(rounds), "--chips", "1000000000"]
            best("jackblack", boxes, 1, rounds, command, base, "")
        if _importable("py21") and _importable("altair"):
            best("py21", boxes, 1, rounds, [sys.executable, "-c", PY21_LOOP, str(rounds), str(boxes)], base, "float")
    return runs


def _importable(module: str) -> bool:
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, check=False).returncode == 0


def report(runs: list[Run], argv: list[str], load: float) -> None:
    print(f"{'simulator':<24}{'boxes':>6}{'workers':>8}{'rounds':>9}{'r/s wall':>11}{'r/s loop':>11}"
          f"{'CPU s':>8}  command")
    for run in runs:
        loop = f"{run.loop_rate:,.0f}" if run.loop_rate is not None else "-"
        print(f"{run.name:<24}{run.boxes:>6}{run.workers:>8}{run.rounds:>9}{run.wall_rate:>11,.0f}{loop:>11}"
              f"{run.cpu_seconds:>8.2f}  {run.command.replace(str(ROOT), '.')}")
    for boxes in sorted({run.boxes for run in runs}):
        ours = [run for run in runs if run.boxes == boxes and run.name.startswith("simulate")]
        others = [run for run in runs if run.boxes == boxes and not run.name.startswith("simulate")]
        if not others:
            continue
        rival = max(others, key=lambda run: run.wall_rate)
        for run in sorted(ours, key=lambda run: -run.wall_rate)[:1]:
            print(f"{boxes} box(es): best simulate ({run.name}, {run.workers} workers) {run.wall_rate:,.0f} r/s "
                  f"= {run.wall_rate / rival.wall_rate:.2f}x {rival.name} ({rival.wall_rate:,.0f} r/s), wall clock "
                  f"with start-up")
    print(f"load average at the start {load:.2f}, at the end {os.getloadavg()[0]:.2f}")
    print(f"command: python -m bench.simulate_speed {' '.join(argv)}")


if __name__ == "__main__":
    raise SystemExit(main())
