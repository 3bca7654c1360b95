"""The pit page as the floor runs it: `serve_pit(config)` beside the floor service (``table-floor run``).

The page follows every broker of the floor configuration on a session of its
own (not the service's persistent one: the page shows what the tables publish
now, the store keeps everything), folds the messages of the tables this floor
process follows into a `FloorView`, and serves it on ``[pit] bind`` with the
token from ``[pit] token_env`` (a non-loopback bind without one is refused), answering only a Host header of
a loopback name, the bound address or ``[pit] allowed_hosts``. Given the store, the shift's figures start
from the rounds it holds (a restarted floor does not start the shift's drop from zero).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable

from casino_floor.config import FloorConfig
from casino_floor.pit.feed_link import FeedLink
from casino_floor.pit.picture import FloorPicture
from casino_floor.pit.server import PitServer
from casino_floor.store import FloorStore
from casino_floor.tables_view import FloorView
from table_runtime.errors import ConfigError

log = logging.getLogger("casino_floor.pit")


async def run_pit(config: FloorConfig, *, store: FloorStore | None = None) -> None:
    """`serve_pit` for ``table-floor run``: a page that cannot listen is one log line, and the service goes on."""
    try:
        await serve_pit(config, store=store)
    except OSError as error:
        log.error("pit page: cannot serve on %s (%s); the floor service goes on without it", config.pit_bind, error)


def parse_bind(text: str) -> tuple[str, int]:
    """``host:port`` (``[::1]:8090`` for IPv6) of ``[pit] bind``."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError("pit.bind", f"{text!r}: host:port, like 127.0.0.1:8090")
    return host.strip("[]"), int(port)


async def seed_shift(picture: FloorPicture, store: FloorStore, now: float) -> int:
    """Fold the rounds the store holds for the shift `now` is in, as the feed sent them; how many.

    The view counts a round once per (journal, round number): a round both in the store and on the feed
    (closed while the page started) counts once.
    """
    start, end = picture.view.shifts.bounds(picture.view.shifts.name_of(now))
    async with store.pool.acquire() as connection:
        rows = await connection.fetch("SELECT table_id, journal, seq, ts, record::text AS record FROM rounds "
                                      "WHERE ts >= $1 AND ts < $2 ORDER BY ts", start, end)
    for row in rows:
        picture.apply("rounds", {"schema_version": 1, "table_id": row["table_id"], "journal": row["journal"],
                                 "seq": row["seq"], "ts": row["ts"], "type": "RoundRecord",
                                 "round": json.loads(row["record"])})
    return len(rows)


async def serve_pit(
    config: FloorConfig,
    *,
    store: FloorStore | None = None,
    language: str = "fr",
    started: Callable[[PitServer], None] | None = None,
    clock: Callable[[], float] = time.time,
) -> None:
    """Serve the pit page until cancelled; `started(server)` once it listens and follows every broker."""
    host, port = parse_bind(config.pit_bind)
    picture = FloorPicture(FloorView(shifts=config.shifts), clock=clock)
    token = config.pit_token.reveal() if config.pit_token is not None else None
    async with PitServer(picture, host=host, port=port, token=token, allowed_hosts=config.pit_allowed_hosts,
                         language=language) as server:
        links = [
            FeedLink(broker.address, picture, server.changed, prefix=broker.prefix, username=broker.username,
                     password=broker.password.reveal() if broker.password else None, tls_context=broker.tls(),
                     follows=config.follows)
            for broker in config.brokers
        ]  # fmt: skip
        async with asyncio.TaskGroup() as tasks:
            for link in links:
                tasks.create_task(link.run())
            for link in links:  # an unreachable broker is retried, never a stop
                await link.subscribed.wait()
            if store is not None:  # after subscribing: a round closed meanwhile is in one or the other, or both
                await seed_shift(picture, store, clock())
                server.changed()
            if started is not None:
                started(server)
