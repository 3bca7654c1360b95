"""`table-bench soak`: many simulated rounds on the live devices with random faults, and a health report.

The simulated dealer of the demo (`simulators.live_table.deal_rounds`) deals
at pace 0 on the real transports while a seeded fault task pulls the shoe's
cable, damages and drops its frames, unplugs the chip reader and (with
--mqtt) stops the broker. The report counts rounds, alarms by kind,
recoveries (a device back online after going offline), the journal entries
against those a feed consumer received, and the resident memory at start and
end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simulators.bench.observing import describe
from simulators.live_table import LiveDevices, deal_rounds
from simulators.mosquitto import MosquittoBroker
from simulators.shoe import Fault
from table_runtime.config import zone_names
from table_runtime.feed.consumer import FeedConsumer
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import FeedSettings, parse_broker_url
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController

SETTLE_SECONDS = 30.0  # at most, after the last round, for the faults still armed to fire
FAULTS = ("shoe_corrupt", "shoe_drop", "shoe_duplicate", "shoe_unplug", "reader_unplug", "broker_down")
TABLE_ID = "SOAK1"


@dataclass(frozen=True, slots=True, kw_only=True)
class SoakSettings:
    rounds: int = 100
    seed: int = 1
    mqtt: bool = False
    fault_rate: float = 0.1  # chance of a fault in each round
    error_rate: float = 0.05  # how often the simulated dealer errs (alarms the runtime must raise)
    profile: str = "fr-casino"


@dataclass(slots=True)
class SoakReport:
    rounds: int
    seconds: float
    alarms: dict[str, int]
    faults: dict[str, int]
    recoveries: dict[str, int]
    journaled: int
    published: int | None
    rss_start_kib: int
    rss_end_kib: int
    notes: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not self.notes and (self.published is None or self.published == self.journaled)

    def as_dict(self) -> dict[str, Any]:
        return {"rounds": self.rounds, "seconds": round(self.seconds, 2), "alarms": self.alarms,
                "faults": self.faults, "recoveries": self.recoveries, "events_journaled": self.journaled,
                "events_published": self.published, "rss_start_kib": self.rss_start_kib,
                "rss_end_kib": self.rss_end_kib, "healthy": self.healthy, "notes": self.notes}

    def text(self) -> str:
        lines = [f"rounds: {self.rounds} in {self.seconds:.1f} s",
                 "alarms: " + (", ".join(f"{k} {v}" for k, v in sorted(self.alarms.items())) or "none"),
                 "faults injected: " + (", ".join(f"{k} {v}" for k, v in sorted(self.faults.items())) or "none"),
                 "recoveries: " + (", ".join(f"{k} {v}" for k, v in sorted(self.recoveries.items())) or "none"),
                 f"events journaled: {self.journaled}",
                 f"events published: {'(no --mqtt)' if self.published is None else self.published}",
                 f"memory (RSS): {self.rss_start_kib} KiB at start, {self.rss_end_kib} KiB at end"]
        lines += [f"PROBLEM: {note}" for note in self.notes]
        lines.append("healthy" if self.healthy else "NOT healthy")
        return "\n".join(lines)


def rss_kib() -> int:
    """The resident set size of this process, from /proc (0 where there is no /proc)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


async def soak(settings: SoakSettings) -> SoakReport:
    data_dir = Path(tempfile.mkdtemp(prefix="table-soak-"))
    broker = MosquittoBroker(persistence=True) if settings.mqtt else None
    if broker is not None:
        broker.start()
    journal = Journal.open(journal_path(data_dir))
    try:
        return await _soak(settings, data_dir, journal, broker)
    finally:
        journal.close()
        if broker is not None:
            broker.close()


async def _soak(settings: SoakSettings, data_dir: Path, journal: Journal,
                broker: MosquittoBroker | None) -> SoakReport:
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    rules = profile(settings.profile)
    controller = TableController(table_id=TABLE_ID, rules=rules, limits=TableLimits(), journal=journal,
                                 clock=time.time, zones=zone_names(rules.boxes, hyper=rules.hyper_blackjack))
    devices = LiveDevices(controller, seed=settings.seed, data_dir=data_dir,
                          pin_factory=MockFactory(pin_class=MockPWMPin))
    rng = random.Random(f"soak:{settings.seed}")  # which rounds arm a fault, and which fault
    delays = random.Random(f"soak-delay:{settings.seed}")  # when in the next round it fires: its own sequence, so
    # that how the loop interleaves the two never changes the faults a seed arms
    faults: Counter[str] = Counter()
    received: set[int] = set()
    arrived = asyncio.Event()
    extra: dict[str, Any] = {}
    consumer_task = None
    if broker is not None:
        extra["feed"] = FeedPublisher(FeedSettings.from_mapping(
            {"url": broker.url, "prefix": "soak", "backoff_initial": 0.05, "backoff_max": 0.5},
            table_id=TABLE_ID), journal)
        address, _ = parse_broker_url(broker.url)
        consumer = FeedConsumer(address, prefix="soak", table_id=TABLE_ID, client_id="soak-consumer",
                                persistent=True, backoff_initial=0.05, backoff_max=0.5)

        async def consume() -> None:
            async for message in consumer.messages():
                received.add(int(message.message["seq"]))
                arrived.set()

        consumer_task = asyncio.create_task(consume())
        async with asyncio.timeout(10):
            await consumer.subscribed.wait()
    devices.start()
    armed: list[str] = []
    notes: list[str] = []

    def on_round(done: int) -> None:
        if rng.random() < settings.fault_rate:
            choices = [f for f in FAULTS if broker is not None or f != "broker_down"]
            armed.append(rng.choice(choices))
            idle.clear()

    idle = asyncio.Event()  # no fault armed nor being injected
    idle.set()

    async def fault_loop() -> None:
        while True:
            await asyncio.sleep(0.05)
            if not armed:
                continue
            fault = armed.pop(0)
            await asyncio.sleep(delays.uniform(0.0, 0.4))
            faults[fault] += 1
            await _inject(fault, devices, broker)
            if not armed:
                idle.set()

    rounds_seen = [0]

    def count(done: int) -> None:
        rounds_seen[0] = done
        on_round(done)

    rss_start = rss_kib()
    started = time.monotonic()
    done = 0
    try:
        app = devices.app(controller, **extra)
        runner = asyncio.create_task(app.run())
        injector = asyncio.create_task(fault_loop())
        dealer = asyncio.create_task(deal_rounds(app, devices, rounds=settings.rounds, seed=settings.seed, pace=0,
                                                 error_rate=settings.error_rate, on_round=count))
        try:
            await asyncio.wait({dealer, runner}, return_when=asyncio.FIRST_COMPLETED)
            if runner.done():
                crash = runner.exception()
                notes.append("the runtime stopped: " + (describe(crash) if crash is not None else "it returned"))
                dealer.cancel()
                with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                    await dealer
            else:
                done = dealer.result()
                # Every armed fault fires, the one the last round armed too (after play): a seed's faults are
                # all injected whatever the rounds' length, and the table is seen to recover from each.
                async with asyncio.timeout(SETTLE_SECONDS):
                    await idle.wait()
        except TimeoutError as error:
            notes.append(f"the table stalled: {error}")
        finally:
            injector.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await injector
            if broker is not None and not broker.running:
                broker.start()
            app.stop("soak finished")
            if not runner.done():
                async with asyncio.timeout(30):
                    await runner
    finally:
        devices.stop()
    seconds = time.monotonic() - started
    journaled = journal.last_seq
    published = None
    if consumer_task is not None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(20):
                while len(received) < journaled:
                    arrived.clear()
                    await arrived.wait()
        consumer_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await consumer_task
        published = len({seq for seq in received if seq <= journaled})
    done = max(done, rounds_seen[0])
    if done < settings.rounds and not notes:
        notes.append(f"only {done} of {settings.rounds} rounds were played")
    return SoakReport(rounds=done, seconds=seconds, alarms=dict(controller.alarms.counts), faults=dict(faults),
                      recoveries=_recoveries(journal), journaled=journaled, published=published,
                      rss_start_kib=rss_start, rss_end_kib=rss_kib(), notes=notes)


async def _inject(fault: str, devices: LiveDevices, broker: MosquittoBroker | None) -> None:
    shoe = devices.shoe_sim
    if fault.startswith("shoe_") and fault != "shoe_unplug":
        shoe.inject(Fault(fault.removeprefix("shoe_")))
    elif fault == "shoe_unplug":
        shoe.inject(Fault.DISCONNECT, milliseconds=300)  # back by itself, like a cable reseated
    elif fault == "reader_unplug":
        devices.reader_sim.unplug()
        await asyncio.sleep(0.3)
        devices.reader_sim.replug()
    elif fault == "broker_down" and broker is not None:
        await asyncio.to_thread(broker.stop)
        await asyncio.sleep(0.3)
        await asyncio.to_thread(broker.start)


def _recoveries(journal: Journal) -> dict[str, int]:
    """Devices that came back online after going offline while in service (not the first connection)."""
    state: dict[str, str] = {}
    lost: set[str] = set()
    back: Counter[str] = Counter()
    for entry in journal.entries():
        if entry.kind == "status" and entry.body.get("type") == "DeviceStatus":
            device, status = str(entry.body["device"]), str(entry.body["status"])
            if status == "online" and device in lost:
                back[device] += 1
                lost.discard(device)
            elif status != "online" and state.get(device) == "online":
                lost.add(device)
            state[device] = status
    return dict(back)
