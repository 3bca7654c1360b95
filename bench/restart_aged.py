"""A table that has played for weeks, restarted: does it deal like a new one?

Builds the aged journal as issue 29 describes it: `table-runtime demo --fast --rounds N` (10,000 rounds: about
522,000 rows, three weeks of a busy table), then what this version's rating watch journals during a table's life
(the rated sessions' `rating` rows and the worker's checkpoints: `journal_ratings`, the same fold, run once here),
and its feed cursor set to the last row (a table that always had its broker). Then, in one run, the bench table of
`bench/runtime_latency.py` (the simulated shoe on a pty, one reader on every zone, the display and a screen on its
WebSocket) with the feed on a real Mosquitto, started on a new journal and on a copy of the aged one, each:

- from the start (the journal opened) to the feed's first `events` message at the broker, and to the supervisor's
  ratings view (the rating watch's first step over: `TableApp.ratings()` holds the open sessions);
- the loop's worst lateness during the start (a 2 ms sleep on the loop, from `run()` until both are there and 2 s
  more), the longest the loop could not answer a card;
- card -> display WebSocket over `--measure-rounds` rounds of the simulated dealer (p50, p99, max).

With `--pin CPU` the bench runs on that one CPU with a busy loop sharing it (about half a core: a Pi 5's budget),
its children (the rating worker, the audit) included; the broker and the building of the journal stay off it.
With `--children-cpu CPU` as well, the table's children are moved to that other CPU as soon as they are started,
as a Pi's kernel runs them on the cores the table's own process does not use (a Pi 5 has four).
Prints the command, the load, each figure and the goals of issue 29.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.terms import journal_terms

if TYPE_CHECKING:
    from bench.runtime_latency import Clocks
    from simulators.live_table import LiveDevices
    from simulators.mosquitto import MosquittoBroker
    from table_runtime.runtime.app import TableApp

# The rating worker and the audit are processes started by `spawn`, which imports the main module again: what the
# table's start costs is measured with this module as light as `table-runtime run` (table_runtime.__main__, which
# spawn does not import), the bench's own imports in the functions that use them.

PREPARED = "bench.restart_aged.prepared"  # meta key of a journal this bench prepared: reused by --journal-dir
PREFIX = "bench-aged"
START_WAIT_S = 120.0  # the longest the bench waits for the feed's first event and the ratings view
CURSOR_KEY = "feed.mqtt.cursor"  # the feed's cursor in the journal's meta (FeedSettings.cursor_key's default)


@dataclass
class Figures:
    """One table's start and play."""

    label: str
    rows: int = 0
    open_s: float = 0.0  # the journal opened and the table replayed (assemble)
    started: float = 0.0  # perf_counter at the start
    feed_first_s: float | None = None
    ratings_s: float | None = None
    sessions: int = 0
    late_ms: list[float] = field(default_factory=list)
    late_at: list[float] = field(default_factory=list)  # when each tick woke, perf_counter
    screen_ms: list[float] = field(default_factory=list)


def build_aged(directory: Path, rounds: int, seed: int, *, before: bool) -> None:
    """The fast demo's journal of `rounds` rounds (unless `directory` holds one already), then its rating rows and
    checkpoints (not `before`: a version before them ran the table), its cursor at the end."""
    played = 0.0
    if not journal_path(directory).exists():
        directory.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "table_runtime", "demo", "--fast", "--rounds", str(rounds), "--seed",
                        str(seed), "--data-dir", str(directory)], check=True, stdout=subprocess.DEVNULL)
        played = time.perf_counter() - started
    with Journal.open(journal_path(directory)) as journal:
        terms = journal_terms(journal)
        assert terms is not None, "the demo wrote its terms"
        table_id, rules, limits = terms.table_id, terms.rules, terms.limits
        started = time.perf_counter()
        written = 0
        if not before:
            from table_runtime.runtime.rating_watch import journal_ratings

            written = journal_ratings(journal)
        # One more round of the same fast table: its start seals a checkpoint after the rows just appended, as a
        # live table's newest checkpoint is at most `checkpoint_rows` rows and a round behind its head.
        from simulators.fast_table import FastTable
        from table_runtime.runtime.controller import TableController

        controller = TableController(table_id=table_id, rules=rules, limits=limits, journal=journal, clock=time.time)
        FastTable(controller, seed=seed, error_rate=0.0).run(1)
        if not before:
            written += journal_ratings(journal)
        rated = time.perf_counter() - started
        journal.set_meta(CURSOR_KEY, str(journal.last_seq))
        journal.set_meta(PREPARED, str(rounds))
        rows = journal.last_seq
    print(f"aged journal: {rounds} rounds, {rows} rows (demo --fast: {played:.0f} s); {written} rating rows and "
          f"the rated sessions' checkpoints in {rated:.0f} s (one fold of the whole journal, once)")


def prepared(directory: Path, rounds: int) -> bool:
    path = journal_path(directory)
    if not path.exists():
        return False
    with Journal.open(path) as journal:
        return journal.get_meta(PREPARED) == str(rounds)


async def tick(figures: Figures, running: asyncio.Event) -> None:
    """How late each 2 ms sleep on the loop wakes up, and when, while `running` is set."""
    loop = asyncio.get_running_loop()
    while True:
        before, measured = loop.time(), running.is_set()
        await asyncio.sleep(0.002)
        if measured and running.is_set():
            figures.late_ms.append((loop.time() - before - 0.002) * 1000)
            figures.late_at.append(time.perf_counter())


async def first_event(port: int, topic: str, ready: asyncio.Event, heard: asyncio.Future[float]) -> None:
    """The time the first message not retained arrives on `topic`."""
    import aiomqtt

    async with aiomqtt.Client("127.0.0.1", port, identifier=f"bench-listener-{os.getpid()}-{topic}") as client:
        await client.subscribe(topic, qos=1)
        ready.set()
        async for message in client.messages:
            if not message.retain and not heard.done():
                heard.set_result(time.perf_counter())
                return


async def one_table(figures: Figures, data_dir: Path, seed: int, rounds: int, broker: MosquittoBroker) -> None:
    from bench.runtime_latency import Clocks, Hands, bench_config, latencies, watch_published, watch_screen
    from simulators.live_table import LiveDevices, deal_rounds
    from table_runtime.config import MqttConfig
    from table_runtime.runtime.assembly import assemble

    prefix = f"{PREFIX}-{figures.label}-{os.getpid()}"
    clocks = Clocks()
    ready, heard = asyncio.Event(), asyncio.get_running_loop().create_future()
    starting = asyncio.Event()
    async with asyncio.TaskGroup() as probes:
        ticker = probes.create_task(tick(figures, starting))
        listener = probes.create_task(first_event(broker.port, f"{prefix}/tables/DEMO1/events", ready, heard))
        async with asyncio.timeout(30):
            await ready.wait()
        config, tray = bench_config(data_dir, seed, mqtt=MqttConfig(url=broker.url, prefix=prefix))
        started = time.perf_counter()  # the table's start: its journal opened, its core replayed, its devices
        table = assemble(config)
        figures.open_s = time.perf_counter() - started
        figures.started = started
        with table:  # the journal closed once every task of the table has ended
            figures.rows = table.journal.last_seq
            app, display = table.app, table.app.display
            assert table.simulated_shoe is not None and display is not None
            table.simulated_shoe.on_frame_written = clocks.on_frame_written
            hands = Hands(shoe_sim=table.simulated_shoe, reader_sim=table.simulated_readers["bench"], tray=tray,
                          zones=table.config.zones)
            async with asyncio.TaskGroup() as tasks:
                starting.set()
                runner = tasks.create_task(app.run())
                try:
                    await _started(figures, app, heard, started)
                    starting.clear()  # the start is over: what follows is the dealer's
                    await _dealt(app, cast(LiveDevices, hands), display.url, clocks, rounds, seed, tasks,
                                 watch_published, watch_screen, deal_rounds)
                finally:
                    app.stop("bench finished")
                    await runner
        for task in (ticker, listener):
            task.cancel()
    figures.screen_ms = latencies(clocks.written, clocks.received)


async def _started(figures: Figures, app: TableApp, heard: asyncio.Future[float], started: float) -> None:
    """The start's figures: the ratings view and the feed's first event after `started` (None: not within
    `START_WAIT_S`), the loop meanwhile."""
    async def view() -> None:
        await app.rating_watch.caught_up.wait()
        figures.ratings_s = time.perf_counter() - started
        figures.sessions = len(app.ratings()["sessions"])

    async def feed() -> None:
        figures.feed_first_s = await heard - started

    waits = [asyncio.create_task(view()), asyncio.create_task(feed())]
    await asyncio.wait(waits, timeout=START_WAIT_S)
    for wait in waits:
        wait.cancel()
    await asyncio.sleep(2.0)


async def _dealt(app: TableApp, hands: LiveDevices, url: str, clocks: Clocks, rounds: int, seed: int,
                 tasks: asyncio.TaskGroup, watch_published: Any, watch_screen: Any, deal_rounds: Any) -> None:
    """`rounds` rounds of the simulated dealer, each card's time to the screen in `clocks`."""
    async with asyncio.timeout(120):
        while app.snapshot()["devices"].get("shoe") != "online":
            await asyncio.sleep(0.05)
    screen_ready = asyncio.Event()
    watchers = [tasks.create_task(watch_published(app, clocks)),
                tasks.create_task(watch_screen(f"{url}ws", clocks, screen_ready))]
    async with asyncio.timeout(30):
        await screen_ready.wait()
    async with asyncio.timeout(rounds * 30 + 60):
        await deal_rounds(app, hands, rounds=rounds, seed=seed, pace=0.0, error_rate=0.0)
    await asyncio.sleep(0.2)  # the last snapshot reaches the screen
    for watcher in watchers:
        watcher.cancel()


class ChildrenMover:
    """Moves every child this process starts to `cpu` as soon as it is seen (every 5 ms: /proc's children)."""

    def __init__(self, cpu: int) -> None:
        self.cpu, self.moved = cpu, set[int]()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="children-mover", daemon=True)

    def __enter__(self) -> ChildrenMover:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        tasks = Path("/proc/self/task")
        while not self._stop.wait(0.005):
            for task in tasks.iterdir():
                try:
                    pids = {int(pid) for pid in (task / "children").read_text().split()}
                except (OSError, ValueError):
                    continue
                for pid in pids - self.moved:
                    try:
                        os.sched_setaffinity(pid, {self.cpu})
                    except OSError:
                        continue  # already gone
                    self.moved.add(pid)


def busy_loop(cpu: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(["taskset", "-c", str(cpu), sys.executable, "-c", "while True: pass"])


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values) or [0.0]
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def seconds(value: float | None) -> str:
    return f"{value:.2f} s" if value is not None else f"not within {START_WAIT_S:.0f} s"


def report(figures: Figures) -> None:
    screen = figures.screen_ms
    start_late = max(figures.late_ms, default=0.0)
    worst_at = (figures.late_at[figures.late_ms.index(start_late)] - figures.started) if figures.late_ms else 0.0
    print(f"{figures.label}: {figures.rows} rows at the start; journal opened and replayed in {figures.open_s:.2f} s; "
          f"feed's first event {seconds(figures.feed_first_s)}, ratings view {seconds(figures.ratings_s)} "
          f"({figures.sessions} open sessions) after the start; loop late at most {start_late:.1f} ms during the "
          f"start (at {worst_at:.2f} s; p99 {percentile(figures.late_ms, 0.99):.1f} ms of {len(figures.late_ms)} "
          f"ticks); card -> screen over {len(screen)} cards: "
          f"p50={percentile(screen, 0.5):.2f} ms p99={percentile(screen, 0.99):.2f} ms "
          f"max={percentile(screen, 1.0):.2f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10_000, help="rounds of the aged journal (default 10,000)")
    parser.add_argument("--measure-rounds", type=int, default=40, help="rounds dealt on each table (default 40)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--journal-dir", type=Path, help="where the aged journal is built, or reused if this bench "
                                                         "prepared it there (default: a temporary directory)")
    parser.add_argument("--pin", type=int, help="run on this CPU, a busy loop sharing it (half a core)")
    parser.add_argument("--children-cpu", type=int, help="with --pin: the table's children (rating worker, audit) "
                                                             "on this other CPU, as on a Pi's other cores")
    parser.add_argument("--before", action="store_true", help="the journal as a version before `rating` rows left "
                                                              "it (to run this bench on such a version's tree)")
    args = parser.parse_args(argv)
    print("command:", shlex.join([sys.executable, "-m", "bench.restart_aged", *sys.argv[1:]]))
    with tempfile.TemporaryDirectory(prefix="bench-aged-") as temporary:
        work = Path(temporary)
        aged_source = args.journal_dir or work / "built"
        if not prepared(aged_source, args.rounds):
            build_aged(aged_source, args.rounds, args.seed, before=args.before)
        aged = work / "aged"
        aged.mkdir()
        for name in os.listdir(aged_source):  # a copy: the run plays on it
            if name.startswith("journal"):
                shutil.copy2(aged_source / name, aged / name)
        results = [Figures("new"), Figures("aged")]
        from simulators.mosquitto import MosquittoBroker

        with MosquittoBroker() as broker:  # started before the pinning: the casino's broker is not the table's
            spinner = None
            if args.pin is not None:
                os.sched_setaffinity(0, {args.pin})
                spinner = busy_loop(args.pin)
            mover = ChildrenMover(args.children_cpu) if args.children_cpu is not None else contextlib.nullcontext()
            try:
                with mover:
                    for figures, directory in zip(results, (work / "new", aged), strict=True):
                        directory.mkdir(exist_ok=True)
                        asyncio.run(one_table(figures, directory, args.seed, args.measure_rounds, broker))
                        report(figures)
            finally:
                if spinner is not None:
                    spinner.kill()
                    spinner.wait()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end"
          + (f"; pinned to CPU {args.pin} with a busy loop" if args.pin is not None else "; not pinned")
          + (f", the table's children on CPU {args.children_cpu}" if args.children_cpu is not None else ""))
    new, old = results
    ratio = percentile(old.screen_ms, 0.99) / percentile(new.screen_ms, 0.99)
    print(f"restart_aged p99_ratio={ratio:.2f} (goal <= 1.3) feed_first_s={seconds(old.feed_first_s)} "
          f"ratings_s={seconds(old.ratings_s)} (goal <= 3) start_late_max_ms={max(old.late_ms, default=0.0):.1f} "
          f"(goal < 20)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
