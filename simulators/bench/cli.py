"""`table-bench`: run scenarios against the real runtime, or soak it with random faults (docs/bench.md).

    table-bench run simulators/scenarios --junit report.xml
    table-bench run my.yaml --devices bench-devices.toml
    table-bench soak --rounds 200 --seed 3 --mqtt
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import multiprocessing.util
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import TextIO

from tqdm import tqdm

from simulators.bench.devices import DeviceChoice, load_devices
from simulators.bench.feig import READERS
from simulators.bench.report import MARKS, text_report, write_junit
from simulators.bench.runner import ScenarioResult, SharedBroker, run_scenario
from simulators.bench.scenario import Scenario, Step, load_scenario, scenario_paths
from table_runtime.cli import add_version, run_handler
from table_runtime.loop_errors import run_logged

LIBRARY = Path(__file__).resolve().parent.parent / "scenarios"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="table-bench", description=__doc__.splitlines()[0])
    add_version(parser)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run scenario files (or directories of them)")
    run.add_argument("targets", nargs="*", default=[str(LIBRARY)],
                     help="scenario files or directories (default: the shipped library)")
    run.add_argument("--devices", default="sim", help="'sim' (default) or a TOML file naming real devices")
    run.add_argument("--reader", choices=READERS, default="usb",
                     help="the simulated chip reader: the reference USB reader (default) or a FEIG ISO-Host reader "
                          "on a serial line (docs/protocols/feig.md)")
    run.add_argument("--junit", help="write a JUnit XML report here")
    run.add_argument("--mqtt", action="store_true",
                     help="run every scenario with the feed on a bench Mosquitto and check every journal seq")
    run.add_argument("--jobs", type=int, default=1, help="scenarios run in this many processes (default 1)")
    run.add_argument("--keep", help="keep each scenario's data directory (journal, chips.db) under this directory")
    run.add_argument("--json", action="store_true", help="print the results as JSON")
    run.set_defaults(handler=run_command)
    soak = commands.add_parser("soak", help="simulated rounds with random faults; a health report")
    soak.add_argument("--rounds", type=_positive, default=100, help="rounds to play (default 100)")
    soak.add_argument("--seed", type=int, default=1)
    soak.add_argument("--mqtt", action="store_true", help="publish the feed to a bench Mosquitto and count it")
    soak.add_argument("--fault-rate", type=float, default=0.1, help="chance of a fault per round (default 0.1)")
    soak.add_argument("--json", action="store_true")
    soak.set_defaults(handler=soak_command)
    return parser


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: a whole number >= 1")
    return value


def with_feed_check(scenario: Scenario) -> Scenario:
    """--mqtt: the feed on, and a last check that every journal seq reached the broker in order."""
    check = Step("expect", {"feed": {"every_seq": True}}, "mqtt")
    return dataclasses.replace(scenario, feed=True, steps=(*scenario.steps, check))


def run_one(path: str, *, devices: DeviceChoice, mqtt: bool, keep: str | None,
            broker: SharedBroker | None = None, reader: str = "usb") -> ScenarioResult:
    """One scenario file in its own data directory (kept under `keep`, else removed)."""
    scenario = load_scenario(path)
    if mqtt:
        scenario = with_feed_check(scenario)
    work = Path(tempfile.mkdtemp(prefix="bench-", dir=keep))
    try:
        return run_logged(run_scenario(scenario, work_dir=work, devices=devices,
                                       broker=broker if broker is not None else _worker_broker(), reader=reader))
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


_BROKERS: list[SharedBroker] = []  # a worker process's own broker, shared by the scenarios it runs


def _worker_broker() -> SharedBroker:
    if not _BROKERS:
        _BROKERS.append(SharedBroker())
        multiprocessing.util.Finalize(None, _BROKERS[0].close, exitpriority=10)  # stopped as the worker exits
    return _BROKERS[0]


def run_paths(paths: Sequence[str], *, devices: DeviceChoice, mqtt: bool, keep: str | None,
              on_result: Callable[[ScenarioResult], None] | None = None, reader: str = "usb") -> list[ScenarioResult]:
    """Run scenario files one after the other in this process; `on_result` hears each as it finishes."""
    broker = SharedBroker()
    results = []
    try:
        for path in paths:
            results.append(run_one(path, devices=devices, mqtt=mqtt, keep=keep, broker=broker, reader=reader))
            if on_result is not None:
                on_result(results[-1])
    finally:
        broker.close()
    return results


class Progress:
    """A line on stderr per scenario as it finishes (verdict, name, seconds) and, on a terminal, a bar."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.finished = 0
        self.bar = tqdm(total=total, unit="scenario", file=self.stream, disable=not self.stream.isatty(),
                        desc="table-bench", leave=False, mininterval=0, miniters=1)  # a scenario takes seconds

    def __call__(self, result: ScenarioResult) -> None:
        self.finished += 1
        width = len(str(self.total))
        count = f"[{self.finished:>{width}}/{self.total}]"
        line = f"{count} {MARKS[result.status]:<5} {result.name} ({result.seconds:.1f} s)"
        if self.bar.disable:
            print(line, file=self.stream, flush=True)
        else:
            self.bar.write(line, file=self.stream)
            self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


def run_command(args: argparse.Namespace) -> int:
    devices = load_devices(args.devices)
    paths = [str(path) for path in scenario_paths(args.targets)]
    for path in paths:
        load_scenario(path)  # every file checked before anything runs
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
    jobs = max(1, min(args.jobs, len(paths))) if devices.all_simulated else 1
    progress = Progress(len(paths))
    try:
        if jobs == 1:
            results = run_paths(paths, devices=devices, mqtt=args.mqtt, keep=args.keep, on_result=progress,
                                reader=args.reader)
        else:
            with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
                futures = {pool.submit(run_one, path, devices=devices, mqtt=args.mqtt, keep=args.keep,
                                       reader=args.reader): path
                           for path in paths}
                by_path = {}
                for future in as_completed(futures):
                    by_path[futures[future]] = future.result()
                    progress(by_path[futures[future]])
            results = [by_path[path] for path in paths]
    finally:
        progress.close()
    if args.junit:
        write_junit(results, args.junit)
    if args.json:
        print(json.dumps([{"name": r.name, "path": r.path, "status": r.status, "seconds": round(r.seconds, 3),
                           "first_difference": r.first_difference} for r in results], indent=2))
    else:
        print(text_report(results))
    return 0 if all(result.ok for result in results) else 1


def soak_command(args: argparse.Namespace) -> int:
    from simulators.bench.soak import SoakSettings, soak

    report = run_logged(soak(SoakSettings(rounds=args.rounds, seed=args.seed, mqtt=args.mqtt,
                                          fault_rate=args.fault_rate)))
    if args.json:
        print(json.dumps(report.as_dict(), indent=2, sort_keys=True))
    else:
        print(report.text())
    return 0 if report.healthy else 1


def main(argv: Sequence[str] | None = None) -> int:
    return run_handler(build_parser(), argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
