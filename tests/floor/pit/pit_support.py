"""The parts of a pit test: a real broker, tables publishing through the real feed publisher, the pit stack."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Page

from casino_floor.config import FloorConfig
from casino_floor.pit import FloorPicture, PitServer
from casino_floor.pit.feed_link import FeedLink
from casino_floor.pit.serve import serve_pit
from casino_floor.service import FloorService
from casino_floor.store import FloorStore
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import FeedSettings, parse_broker_url
from table_runtime.journal import Journal
from tests.display.phases import snapshot_of

PIT_TOKEN = "pit-token-for-the-tests"


@dataclass
class PublishingTable:
    """One table's journal and its real feed publisher on the broker: what a table sends, sent as it sends it."""

    table_id: str
    journal: Journal
    feed: FeedPublisher
    seq_base: int = 100

    def offer(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        """Publish `snapshot` (renamed for this table) as the retained state; returns what was offered."""
        offered = copy.deepcopy(snapshot)
        offered["table_id"] = self.table_id
        self.feed.offer_state(offered)
        return offered

    async def settle(self, round_number: int, payouts: list[tuple[int, int]]) -> None:
        """Journal a round record with (staked, net) per hand; the publisher sends it on ``rounds``."""
        body = {
            "round": round_number, "shoe_id": "S-1", "result": "settled", "alarms": [],
            "payouts": [{"box": index + 1, "hand": 0, "owner": f"box{index + 1}", "kind": "original",
                         "staked_cents": staked, "outcome": "win" if net > 0 else "lose", "net_cents": net}
                        for index, (staked, net) in enumerate(payouts)],
        }  # fmt: skip
        await asyncio.to_thread(self.journal.append, "round", body, ts=time.time())
        self.feed.notify()


def snapshot(phase: str, *, round_number: int = 12, seq: int = 100) -> dict[str, Any]:
    """A display-contract snapshot (tests/display/phases.py) at another round and seq."""
    made = snapshot_of(phase)
    made["round"] = round_number
    made["seq"] = seq
    return made


@contextlib.asynccontextmanager
async def publishing_tables(broker_url: str, prefix: str, table_ids: list[str], directory: Path
                            ) -> AsyncIterator[dict[str, PublishingTable]]:
    """Tables T.. each with a journal and a running FeedPublisher, stopped (``offline``) on leaving."""
    async with contextlib.AsyncExitStack() as stack:
        tables: dict[str, PublishingTable] = {}
        group = await stack.enter_async_context(asyncio.TaskGroup())
        for table_id in table_ids:
            journal = Journal.open(directory / f"{table_id}.db")
            stack.callback(journal.close)
            settings = FeedSettings.from_mapping(
                {"url": broker_url, "prefix": prefix, "table_id": table_id, "backoff_initial": 0.05,
                 "backoff_max": 0.4, "poll_interval": 0.05, "publish_timeout": 5.0}, environ={})  # fmt: skip
            feed = await stack.enter_async_context(FeedPublisher(settings, journal))
            group.create_task(feed.run())
            tables[table_id] = PublishingTable(table_id, journal, feed)
        yield tables


@contextlib.asynccontextmanager
async def page_on_two_tables(page: Page, broker_url: str, prefix: str, directory: Path
                             ) -> AsyncIterator[dict[str, PublishingTable]]:
    """T1 and T2 publishing round 1's bets, and `page` opened on the pit's overview of them."""
    async with pit_stack(broker_url, prefix) as (_, server, _), \
            publishing_tables(broker_url, prefix, ["T1", "T2"], directory) as tables:  # fmt: skip
        for table in tables.values():
            table.offer(snapshot("betting", round_number=1, seq=10))
        await page.goto(server.url)
        yield tables


@contextlib.asynccontextmanager
async def pit_stack(broker_url: str, prefix: str, *, token: str | None = PIT_TOKEN
                    ) -> AsyncIterator[tuple[FloorPicture, PitServer, FeedLink]]:
    """The pit page following the broker: the read model, the server and the feed link, all running."""
    view = FloorPicture()
    async with PitServer(view, port=0, token=token) as server:
        link = FeedLink(parse_broker_url(broker_url)[0], view, server.changed, prefix=prefix)
        task = asyncio.create_task(link.run())
        try:
            async with asyncio.timeout(10):
                await link.subscribed.wait()
            yield view, server, link
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


@contextlib.asynccontextmanager
async def pit_beside_service(config: FloorConfig, store: FloorStore) -> AsyncIterator[PitServer]:
    """The floor service running on `store` with the pit page beside it on the service's own session, as
    ``table-floor run`` serves it; both stopped on leaving."""
    service = FloorService(config, store)
    ready: asyncio.Future[PitServer] = asyncio.get_running_loop().create_future()
    tasks = [asyncio.create_task(service.run()),
             asyncio.create_task(serve_pit(config, store=store, service=service, started=ready.set_result))]
    try:
        yield await asyncio.wait_for(ready, 10)
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
