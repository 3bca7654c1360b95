"""Card-to-state latency through the whole runtime: firmware writes a card, the state with it is published.

The table is what `table-runtime run --config configs/demo.toml` builds
(`table_runtime.runtime.assembly.assemble`): the simulated shoe firmware on a
pty, the real `SerialShoe` driver, the controller committing each input to the
journal (SQLite WAL, fsynced), the app's publish loop (display push, lamps),
and a real WebSocket screen on the display. One simulated reader watches all
21 zones and the chips come from a registry file, so the simulated dealer
(`simulators.live_table`) plays whole rounds: bets on the zones, DEAL and the
other commands as display touches, every card drawn from the shoe and waited for.

Three latencies per card, all from the firmware's clock just before `os.write`
of the CARD_DRAWN frame (`time.perf_counter_ns`, same process):

- committed: the controller committed the card to the journal (its listeners run);
- published: the app's publish loop finished the snapshot holding that card;
- screen: a WebSocket client of the display received that snapshot.

`--tray`: the dealer's chip tray on the same reader, its rows read by RFID (simulators/demo_tray.py): the dealer
pays from it and collects into it, lets the readers see it whole before each deal, and the table reconciles it at
every round's lock (core/tray_reconciliation.py): what the tray adds to the card's path.

Prints the command line, the figures, and last `card_to_state_ms p50=X p99=Y`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import aiohttp

from firmware_bridge.rfid import Tag
from firmware_bridge.shoe import Frame, MessageType
from simulators.demo_tray import DemoChips, tray_action, tray_rows
from simulators.live_table import CASINO_ID, ChipTray, LiveDevices, deal_rounds
from simulators.rfid_backend import SimulatedReader
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.registry import ChipRegistry
from table_runtime.config import (
    ChipReaderConfig,
    DevicesConfig,
    DisplayConfig,
    MqttConfig,
    TableConfig,
    load_config,
    zone_names,
)
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.assembly import AssembledTable, assemble

REPO = Path(__file__).resolve().parents[1]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class BenchTray(ChipTray):
    """The demo's tray plus 50-cent chips: a 3:2 payout on an odd number of euros needs one."""

    HALF = 50

    def __init__(self, issuer: ChipIssuer) -> None:
        super().__init__(issuer, per_denomination=2000)
        self.halves = issuer.issue(self.HALF, 500)

    def take(self, cents: int) -> list[Tag]:
        halves = [self.halves.pop()] if cents % 100 == self.HALF else []
        return super().take(cents - self.HALF * len(halves)) + halves

    def give_back(self, chips: list[Tag]) -> None:
        self.halves += [chip for chip in chips if chip.denomination_cents == self.HALF]
        super().give_back([chip for chip in chips if chip.denomination_cents != self.HALF])


class TouchPanel:
    """No panel buttons for the simulated dealer's hands: every command is a touch on the display."""

    def __init__(self) -> None:
        self.buttons: dict[str, int] = {}
        self.debounce_seconds = 0.0


@dataclass
class Hands:
    """What `simulators.live_table` works with, taken from the assembled table's simulators."""

    shoe_sim: Any
    reader_sim: Any
    tray: ChipTray
    zones: tuple[str, ...]
    pins: TouchPanel = field(default_factory=TouchPanel)
    pin_factory: None = None
    chips: DemoChips | None = None  # the tray read by RFID (`--tray`), the players' and the cash desk's chips

    @property
    def tray_rows(self) -> tuple[str, ...]:
        return self.chips.rows if self.chips is not None else ()

    # What simulators.live_table.LiveHands does with the devices (TableDevices' hands, as LiveDevices has them).
    def draw(self) -> Any:
        return self.shoe_sim.draw()

    def shuffle(self) -> None:
        self.shoe_sim.shuffle()

    def put(self, zone: str, cents: int) -> list[Any]:
        if self.chips is not None:
            return self.chips.stake(zone, cents)
        chips = self.tray.take(cents)
        self.reader_sim.place(zone, *chips)
        return chips

    def clear(self, zone: str) -> list[Any]:
        if self.chips is not None:
            return self.chips.to_player(zone)
        chips = self.reader_sim.take_all(zone)
        self.tray.give_back(chips)
        return list(chips)

    def pay(self, zone: str, cents: int) -> list[Any]:
        return self.put(zone, cents) if self.chips is None else self.chips.pay(zone, cents)

    def collect(self, zone: str) -> list[Any]:
        return self.clear(zone) if self.chips is None else self.chips.collect(zone)

    def at_tray(self, action: str, cents: int = 0) -> dict[str, Any]:
        assert self.chips is not None, "no tray (--tray)"
        return tray_action(self.chips, action, cents)

    def zone_chips(self) -> dict[str, list[Any]]:
        return {zone: self.reader_sim.chips(zone) for zone in self.zones}


@dataclass
class Clocks:
    """perf_counter_ns of each card: written by the firmware, published by the app, received by a screen."""

    written: list[int] = field(default_factory=list)
    committed: list[int] = field(default_factory=list)
    published: list[int] = field(default_factory=list)
    received: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def on_frame_written(self, frame: Frame, when_ns: int) -> None:  # the firmware's thread
        if frame.message_type == MessageType.CARD_DRAWN and not frame.is_retransmit:
            with self.lock:
                self.written.append(when_ns)


def new_cards(last: tuple[str, int] | None, shoe: dict[str, Any]) -> tuple[int, tuple[str, int]]:
    # Coalesced snapshots may carry two cards at once; the dealer waits for each card, so they do not.
    """How many cards left the shoe between two states of it (a new shoe starts at 0)."""
    now = (str(shoe["shoe_id"]), int(shoe["cards_dealt"]))
    if last is None or last[0] != now[0]:
        return (now[1] if last is not None else 0), now
    return now[1] - last[1], now


def watch_committed(app: TableApp, clocks: Clocks) -> None:
    """A controller listener: runs right after each commit, before the publish loop."""
    table = app.controller.table
    last = [(table.shoe.shoe_id, table.shoe.dealt)]

    def on_commit() -> None:
        count, last[0] = new_cards(last[0], {"shoe_id": table.shoe.shoe_id, "cards_dealt": table.shoe.dealt})
        if count:
            clocks.committed.extend([time.perf_counter_ns()] * count)

    app.controller.subscribe(on_commit)


async def watch_published(app: TableApp, clocks: Clocks) -> None:
    _, last = new_cards(None, app.controller.snapshot()["shoe"])  # the state before the first card
    while True:
        changed = app.changed
        await changed.wait()
        stamp = time.perf_counter_ns()
        count, last = new_cards(last, app.controller.snapshot()["shoe"])
        clocks.published.extend([stamp] * count)


async def watch_screen(url: str, clocks: Clocks, ready: asyncio.Event) -> None:
    last: tuple[str, int] | None = None
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        async for message in ws:
            stamp = time.perf_counter_ns()
            body = json.loads(message.data)
            if body.get("type") != "snapshot":
                continue
            count, last = new_cards(last, body["snapshot"]["shoe"])
            clocks.received.extend([stamp] * count)
            ready.set()


def bench_table(data_dir: Path, seed: int, *, mqtt: MqttConfig | None = None) -> tuple[AssembledTable, ChipTray]:
    """The demo configuration with one reader on every zone, a registry of the tray's chips, display on port 0;
    the feed on `mqtt` when given (bench/restart_aged.py), else none."""
    config, tray = bench_config(data_dir, seed, mqtt=mqtt)
    return assemble(config), tray


def bench_config(data_dir: Path, seed: int, *, mqtt: MqttConfig | None = None) -> tuple[TableConfig, ChipTray]:
    """`bench_table`'s configuration and the simulated dealer's tray, its registry written (the table not built)."""
    config, tray, _ = bench_tray_config(data_dir, seed, mqtt=mqtt, tray=False)
    return config, tray


def bench_tray_config(data_dir: Path, seed: int, *, mqtt: MqttConfig | None = None, tray: bool = True
                      ) -> tuple[TableConfig, ChipTray, DemoChips | None]:
    """`bench_config`, and with `tray` the dealer's chip tray read by RFID: its rows on the reader's next antennas
    (laid on a holder until the reader is built: `DemoChips.move_to`)."""
    issuer = ChipIssuer(CASINO_ID, seed=seed)
    float_ = BenchTray(issuer)
    rows = tray_rows() if tray else ()
    chips = DemoChips(SimulatedReader({index + 1: row for index, row in enumerate(rows)},
                                      antennas=len(rows) + 1), issuer) if tray else None
    registry_path = data_dir / "chips.sqlite"
    with ChipRegistry(registry_path) as registry:
        registry.import_text(issuer.csv(delimiter=","), source="bench chip float")
    config = load_config(REPO / "configs" / "demo.toml", environ={})
    zones = (*zone_names(config.rules.boxes), *rows)
    reader = ChipReaderConfig(name="bench", url=f"sim://reader?seed={seed}&antennas={len(zones) + 1}",
                              antennas={index + 1: zone for index, zone in enumerate(zones)})
    config = config.replace(
        data_dir=data_dir, zones=zones, display=DisplayConfig(host="127.0.0.1", port=0, language="fr"),
        devices=DevicesConfig(shoe=f"sim://shoe?seed={seed}", chip_readers=(reader,),
                              panel_pin_factory="mock", chip_registry=registry_path))
    if mqtt is not None:
        config = config.replace(mqtt=mqtt)
    return config, float_, chips


@asynccontextmanager
async def running_table(data_dir: Path, seed: int, clocks: Clocks, *, with_tray: bool = False
                        ) -> AsyncIterator[tuple[AssembledTable, Hands, asyncio.TaskGroup]]:
    """The bench table running (its shoe online, its display serving, the shoe's frames stamped in `clocks`), the
    simulated dealer's hands on it and the task group its tasks run in; stopped when the block ends. `with_tray`:
    the dealer's tray read by RFID on the same reader."""
    config, tray, chips = bench_tray_config(data_dir, seed, tray=with_tray)
    table = assemble(config)
    with table:
        display = table.app.display
        assert table.simulated_shoe is not None and display is not None
        table.simulated_shoe.on_frame_written = clocks.on_frame_written
        reader_sim = table.simulated_readers["bench"]
        if chips is not None:
            chips.move_to(reader_sim)
        hands = Hands(shoe_sim=table.simulated_shoe, reader_sim=reader_sim, tray=tray,
                      zones=tuple(zone for zone in table.config.zones if zone not in tray_rows()), chips=chips)
        app = table.app
        async with asyncio.TaskGroup() as tasks:
            runner = tasks.create_task(app.run())
            async with asyncio.timeout(20):
                while app.snapshot()["devices"].get("shoe") != "online" or not display.port:
                    await asyncio.sleep(0.05)
            yield table, hands, tasks
            app.stop("bench finished")
            await runner


async def measure(rounds: int, seed: int, data_dir: Path, *, with_tray: bool = False) -> tuple[Clocks, int, int]:
    """The clocks of every card, the rounds played and the tray variances raised (0 without a tray)."""
    clocks = Clocks()
    async with running_table(data_dir, seed, clocks, with_tray=with_tray) as (table, hands, tasks):
        app, display = table.app, table.app.display
        assert display is not None
        watch_committed(app, clocks)
        screen_ready = asyncio.Event()
        watchers = [tasks.create_task(watch_published(app, clocks)),
                    tasks.create_task(watch_screen(f"{display.url}ws", clocks, screen_ready))]
        async with asyncio.timeout(10):
            await screen_ready.wait()
        async with asyncio.timeout(rounds * 30 + 60):
            played = await deal_rounds(app, cast(LiveDevices, hands), rounds=rounds, seed=seed, pace=0.0,
                                       error_rate=0.0)
        await asyncio.sleep(0.2)  # the last snapshot reaches the screen
        for watcher in watchers:
            watcher.cancel()
        variances = app.controller.alarms.counts.get("tray_variance", 0)
    return clocks, played, variances


def journal_commits(directory: Path, count: int) -> list[float]:
    """For reference: ms per durable append of a card-sized row to a fresh journal on the same disk."""
    times: list[float] = []
    with Journal.open(journal_path(directory / "reference")) as journal:
        for index in range(count):
            started = time.perf_counter_ns()
            journal.append_many([("input", {"type": "CardDrawn", "card": "QS", "source": "shoe"}),
                                 ("event", {"type": "CardDealt", "card": "QS", "round": index})], ts=time.time())
            times.append((time.perf_counter_ns() - started) / 1e6)
    return times


def latencies(written: list[int], seen: list[int]) -> list[float]:
    count = min(len(written), len(seen))
    return [(seen[index] - written[index]) / 1e6 for index in range(count)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40, help="rounds the simulated dealer plays (default 40)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--tray", action="store_true", help="the dealer's chip tray read by RFID on the reader")
    args = parser.parse_args(argv)
    print("command:", shlex.join([sys.executable, *sys.argv]))
    with tempfile.TemporaryDirectory(prefix="bench-runtime-") as directory:
        started = time.perf_counter()
        clocks, played, variances = asyncio.run(measure(args.rounds, args.seed, Path(directory), with_tray=args.tray))
        elapsed = time.perf_counter() - started
        commits = journal_commits(Path(directory), 300)
    committed = latencies(clocks.written, clocks.committed)
    published = latencies(clocks.written, clocks.published)
    received = latencies(clocks.written, clocks.received)
    if not len(clocks.written) == len(clocks.committed) == len(clocks.published) == len(clocks.received):
        print(f"warning: {len(clocks.written)} cards written, {len(clocks.committed)} committed, "
              f"{len(clocks.published)} published, "
              f"{len(clocks.received)} received by the screen")
    load = os.getloadavg()[0]
    print(f"rounds={played} cards={len(published)} in {elapsed:.1f} s (journal fsync per input, no pause); "
          f"{os.cpu_count()} CPUs, load average {load:.1f} at the end"
          + (f"; the tray read by RFID, {variances} tray variance(s)" if args.tray else ""))
    for name, values in (("committed", committed), ("published", published), ("screen", received)):
        print(f"{name}: mean={statistics.fmean(values):.3f} ms p50={percentile(values, 0.50):.3f} ms "
              f"p99={percentile(values, 0.99):.3f} ms max={max(values):.3f} ms")
    print(f"reference, a journal commit alone (input + event, fsynced, {len(commits)} times): "
          f"p50={percentile(commits, 0.50):.3f} ms p99={percentile(commits, 0.99):.3f} ms "
          f"max={max(commits):.3f} ms")
    print(f"card_to_state_ms p50={percentile(published, 0.50):.3f} p99={percentile(published, 0.99):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
