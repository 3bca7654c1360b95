"""Bench: the MQTT feed, journal append → received by a subscriber, against a real Mosquitto.

Two figures, each on a fresh journal and broker:

* latency: one entry appended at a time (durable: committed and fsynced), the
  publisher notified, and the subscriber's arrival time taken; p50/p99 of
  append-start → arrival. The subscriber runs on its own thread and event
  loop, as a separate consumer would. (The card-at-the-shoe part is added by
  the runtime's own bench; this covers everything after the journal.)
* throughput: entries journaled in chunks of 100 as fast as the journal takes
  them while the publisher runs; events/s from the first append until the
  subscriber has the last, and a check that it received every seq once, in
  order (duplicates dropped, none missing).

Run: python -m bench.feed [--samples 500] [--events 20000] [--interval 0.005]
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
from collections.abc import Callable, Sequence
from pathlib import Path

import aiomqtt

from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.consumer import SequenceTracker
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import FeedSettings
from table_runtime.journal import Journal


class Subscriber:
    """A QoS 1 subscriber on its own thread and loop; records (seq, arrival time) of new seqs."""

    def __init__(self, port: int, topic: str) -> None:
        self.port = port
        self.topic = topic
        self.arrivals: dict[int, float] = {}
        self.order: list[int] = []
        self.tracker = SequenceTracker()
        self.ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    def has(self, seq: int) -> Callable[[], bool]:
        return lambda: seq in self.arrivals

    def start(self) -> None:
        self._thread.start()
        if not self.ready.wait(10):
            raise RuntimeError("subscriber did not subscribe")

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    async def _run(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with aiomqtt.Client("127.0.0.1", self.port, max_queued_incoming_messages=0) as client:
            await client.subscribe(self.topic, qos=1)
            self.ready.set()
            reader = asyncio.create_task(self._read(client))
            await self._stop.wait()
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)

    async def _read(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            now = time.time()
            assert isinstance(message.payload, bytes)
            seq = json.loads(message.payload)["seq"]
            if self.tracker.observe("T1", seq).verdict != "duplicate":
                self.arrivals[seq] = now
                self.order.append(seq)


def settings(broker: MosquittoBroker, prefix: str) -> FeedSettings:
    return FeedSettings.from_mapping({"url": broker.url, "table_id": "T1", "prefix": prefix}, environ={})


async def wait_until(predicate: Callable[[], bool], timeout: float) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.001)


async def measure_latency(directory: Path, samples: int, interval: float) -> list[float]:
    with MosquittoBroker(directory=directory / "broker-latency") as broker:
        subscriber = Subscriber(broker.port, "bench-latency/tables/T1/events")
        subscriber.start()
        journal = Journal.open(directory / "latency.db")
        started: dict[int, float] = {}
        try:
            async with FeedPublisher(settings(broker, "bench-latency"), journal) as feed, asyncio.TaskGroup() as tasks:
                runner = tasks.create_task(feed.run())
                await wait_until(lambda: feed.connected, 10)
                for index in range(samples):
                    before = time.time()
                    entry = await asyncio.to_thread(
                        journal.append, "event", {"type": "CardAssigned", "card": "AS", "index": index}, ts=before
                    )
                    feed.notify()
                    started[entry.seq] = before
                    await wait_until(subscriber.has(entry.seq), 10)
                    await asyncio.sleep(interval)
                feed.stop("bench over")
                await runner
        finally:
            subscriber.stop()
            journal.close()
    return [subscriber.arrivals[seq] - started[seq] for seq in started]


async def journal_events(journal: Journal, events: int, feed: FeedPublisher | None) -> None:
    for first in range(0, events, 100):
        items = [("event", {"type": "CardAssigned", "card": "AS", "index": index})
                 for index in range(first, min(events, first + 100))]  # fmt: skip
        await asyncio.to_thread(journal.append_many, items, ts=time.time())
        if feed is not None:
            feed.notify()


async def measure_throughput(
    directory: Path, events: int, *, backlog: bool
) -> tuple[float, float, SequenceTracker, list[int]]:
    """Live: journal while publishing. Backlog: journal everything first, then start the publisher."""
    name = "backlog" if backlog else "live"
    with MosquittoBroker(directory=directory / f"broker-{name}") as broker:
        subscriber = Subscriber(broker.port, f"bench-{name}/tables/T1/events")
        subscriber.start()
        journal = Journal.open(directory / f"{name}.db")
        journaled = 0.0
        try:
            if backlog:
                started = time.perf_counter()
                await journal_events(journal, events, None)
                journaled = time.perf_counter() - started
            async with FeedPublisher(settings(broker, f"bench-{name}"), journal) as feed, asyncio.TaskGroup() as tasks:
                start = time.perf_counter()
                runner = tasks.create_task(feed.run())
                if not backlog:
                    await wait_until(lambda: feed.connected, 10)
                    start = time.perf_counter()
                    await journal_events(journal, events, feed)
                    journaled = time.perf_counter() - start
                await wait_until(subscriber.has(events), 300)
                elapsed = time.perf_counter() - start
                feed.stop("bench over")
                await runner
        finally:
            subscriber.stop()
            journal.close()
    return elapsed, journaled, subscriber.tracker, subscriber.order


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.feed", description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=500, help="latency samples (one append each)")
    parser.add_argument("--interval", type=float, default=0.005, help="seconds between latency samples")
    parser.add_argument("--events", type=int, default=20000, help="events in the throughput run")
    args = parser.parse_args(argv)
    command = "python -m bench.feed " + shlex.join(sys.argv[1:] if argv is None else list(argv))

    with tempfile.TemporaryDirectory(prefix="bench-feed-") as name:
        directory = Path(name)
        latencies = asyncio.run(measure_latency(directory, args.samples, args.interval))
        live = asyncio.run(measure_throughput(directory, args.events, backlog=False))
        backlog = asyncio.run(measure_throughput(directory, args.events, backlog=True))

    print(f"command: {command.strip()}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end (other work skews it)")
    print(f"journal append -> subscriber, one at a time: n={len(latencies)}, "
          f"p50 {statistics.median(latencies) * 1000:.1f} ms, p99 {percentile(latencies, 0.99) * 1000:.1f} ms, "
          f"max {max(latencies) * 1000:.1f} ms (append itself is durable: commit + fsync)")  # fmt: skip
    complete = True
    for label, (elapsed, journaled, tracker, order) in (
        ("sustained, journaling meanwhile", live), ("backlog already journaled", backlog)
    ):
        whole = order == list(range(1, args.events + 1))
        complete = complete and whole
        print(f"{label}: {args.events} events (journaled in {journaled:.2f} s), all received {elapsed:.2f} s after "
              f"the start: {args.events / elapsed:,.0f} events/s; every seq once and in order: "
              f"{'yes' if whole else 'NO'} (gaps {tracker.gaps}, duplicates dropped {tracker.duplicates})")  # fmt: skip
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
