"""Bench: a table's change to the pit page showing it, p50/p99, on real parts.

Tables publish through the real feed publisher (a journal each, retained
``state`` as the runtime offers it) to a real Mosquitto; the pit follows the
broker (beside the floor service as ``table-floor run`` serves it, folding the
messages the service takes, with a PostgreSQL started for the bench; ``--via link``:
the page alone on its own FeedLink), and headless system Chromium shows the
overview. For each update we read the wall clock, offer one table a new
snapshot, and the page records, with a MutationObserver on the cards'
``data-seq``, when the card carrying that seq was drawn. The browser's clock is
set against ours first (bench.display.clock_offset_ms). The figure covers the
publisher's wake-up, the broker, the fold into the view, the overview's
encoding, the WebSocket and the page's render.

Updates are sent one at a time, to the tables in turn, while every other table
changes too (each every --churn seconds), as on a busy floor.

Run: python -m bench.pit [--tables 8] [--updates 300] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import os
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from playwright.async_api import async_playwright

from bench.display import CHROMIUM_ARGS, clock_offset_ms, table_snapshot
from casino_floor.config import config_from_mapping
from casino_floor.pit import FloorPicture, PitServer
from casino_floor.pit.feed_link import FeedLink
from casino_floor.pit.serve import serve_pit
from casino_floor.service import FloorService
from casino_floor.store import FloorStore
from simulators.mosquitto import MosquittoBroker, free_port
from simulators.postgres import PostgresServer
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import FeedSettings, parse_broker_url
from table_runtime.journal import Journal

_OBSERVER = """
() => {
  window.__shownAt = {};
  new MutationObserver((changes) => {
    const now = performance.timeOrigin + performance.now();
    for (const change of changes) {
      const card = change.target;
      if (card.dataset && card.dataset.seq) window.__shownAt[`${card.dataset.table}:${card.dataset.seq}`] = now;
    }
  }).observe(document.getElementById("tables"), { attributes: true, subtree: true, attributeFilter: ["data-seq"] });
}
"""
_ALL_SHOWN = "(n) => document.querySelectorAll('#tables .table[data-seq=\"1\"]').length === n"


def snapshot_for(table_id: str, seq: int) -> dict[str, object]:
    made = copy.deepcopy(table_snapshot(seq))
    made["table_id"] = table_id
    return made


async def beside_service(stack: contextlib.AsyncExitStack, group: asyncio.TaskGroup, broker: MosquittoBroker
                         ) -> tuple[PitServer, asyncio.Task[None]]:
    """The page as ``table-floor run`` serves it: beside the floor service (a PostgreSQL started for the bench),
    folding the messages the service takes."""
    database = stack.enter_context(PostgresServer())
    config = config_from_mapping({"floor": {"dsn": database.dsn, "floor_id": "bench-pit"},
                                  "brokers": [{"url": broker.url, "prefix": "bench"}],
                                  "pit": {"bind": f"127.0.0.1:{free_port()}"}}, environ={})
    store = await FloorStore.open(database.dsn)
    stack.push_async_callback(store.close)
    service = FloorService(config, store)
    serving = group.create_task(service.run())
    stack.callback(serving.cancel)
    ready: asyncio.Future[PitServer] = asyncio.get_running_loop().create_future()
    following = group.create_task(serve_pit(config, store=store, service=service, started=ready.set_result))
    stack.callback(following.cancel)
    async with asyncio.timeout(20):
        return await ready, following


async def run(args: argparse.Namespace) -> int:
    table_ids = [f"T{index + 1:02d}" for index in range(args.tables)]
    with tempfile.TemporaryDirectory(prefix="bench-pit-") as work, MosquittoBroker() as broker:
        async with contextlib.AsyncExitStack() as stack:
            feeds: dict[str, FeedPublisher] = {}
            group = await stack.enter_async_context(asyncio.TaskGroup())
            for table_id in table_ids:
                journal = Journal.open(Path(work) / f"{table_id}.db")
                stack.callback(journal.close)
                settings = FeedSettings.from_mapping({"url": broker.url, "prefix": "bench", "table_id": table_id},
                                                     environ={})
                feed = await stack.enter_async_context(FeedPublisher(settings, journal))
                group.create_task(feed.run())
                feeds[table_id] = feed
            if args.via == "service":
                server, following = await beside_service(stack, group, broker)
            else:
                picture = FloorPicture()
                server = await stack.enter_async_context(PitServer(picture, port=0))
                link = FeedLink(parse_broker_url(broker.url)[0], picture, server.changed, prefix="bench")
                following = group.create_task(link.run())
                stack.callback(following.cancel)
                async with asyncio.timeout(10):
                    await link.subscribed.wait()
            playwright = await stack.enter_async_context(async_playwright())
            browser = await playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            stack.push_async_callback(browser.close)
            for table_id, feed in feeds.items():
                feed.offer_state(snapshot_for(table_id, 1))
            page = await browser.new_page(viewport={"width": 1920, "height": 1080})
            await page.goto(server.url)
            await page.wait_for_function(_ALL_SHOWN, arg=args.tables, timeout=20_000)
            await page.evaluate(_OBSERVER)
            offset, uncertainty = await clock_offset_ms(page)
            seqs = dict.fromkeys(table_ids, 1)

            async def churn() -> None:
                while True:
                    for table_id in table_ids[1:]:
                        seqs[table_id] += 1
                        feeds[table_id].offer_state(snapshot_for(table_id, seqs[table_id]))
                        await asyncio.sleep(args.churn / max(1, len(table_ids) - 1))

            churning = group.create_task(churn())
            stack.callback(churning.cancel)
            published: dict[str, float] = {}
            measured: list[str] = []
            for update in range(args.updates + args.warmup):
                table_id = table_ids[0]
                seqs[table_id] += 1
                key = f"{table_id}:{seqs[table_id]}"
                published[key] = time.time() * 1000
                feeds[table_id].offer_state(snapshot_for(table_id, seqs[table_id]))
                await page.wait_for_function("(key) => window.__shownAt[key] !== undefined", arg=key, timeout=5_000)
                if update >= args.warmup:
                    measured.append(key)
            shown: dict[str, float] = await page.evaluate("window.__shownAt")
            churning.cancel()
            following.cancel()
            for feed in feeds.values():
                feed.stop("bench done")

    latencies = sorted(shown[key] - offset - published[key] for key in measured)
    p99 = latencies[min(len(latencies) - 1, round(0.99 * (len(latencies) - 1)))]
    print("command: " + shlex.join(["python", "-m", "bench.pit", *sys.argv[1:]]))
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print(f"clock offset browser-python {offset:.2f} ms (+/- {uncertainty:.2f} ms)")
    print(f"table state offered -> pit card drawn ({args.tables} tables, the others each changing every "
          f"{args.churn:g} s), n={len(latencies)}: p50 {statistics.median(latencies):.1f} ms, p99 {p99:.1f} ms, "
          f"max {latencies[-1]:.1f} ms")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pit", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8, help="tables on the floor (default 8)")
    parser.add_argument("--updates", type=int, default=300, help="measured updates (default 300)")
    parser.add_argument("--warmup", type=int, default=20, help="updates sent first and not measured (default 20)")
    parser.add_argument("--via", choices=("service", "link"), default="service",
                        help="the page beside the floor service (as table-floor run serves it), or on its own link")
    parser.add_argument("--churn", type=float, default=0.5, help="seconds between two changes of each other table")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the system Chromium")
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
