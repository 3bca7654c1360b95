"""The pit page as the floor runs it: `serve_pit(config)` beside the floor service (``table-floor run``).

Beside the service the page folds each message the service takes (the tables
this floor process follows, on the service's sessions: every message is read once
per process); alone it follows every broker on a session of its own. It shows the
floor's own alarms from the store. It folds into a `FloorView`, and serves it on ``[pit] bind`` with the
token from ``[pit] token_env`` (a non-loopback bind without one is refused), answering only a Host header of
a loopback name, the bound address or ``[pit] allowed_hosts``. Given the store, the shift's figures start
from the rounds and buy-ins it holds (a restarted floor does not start the shift's handle or drop from zero).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import asyncpg

from casino_floor.config import FloorConfig
from casino_floor.money import BUY_IN_EVENT
from casino_floor.pit.feed_link import FeedLink
from casino_floor.pit.picture import FloorPicture
from casino_floor.pit.server import PitServer
from casino_floor.queries import COUNTED
from casino_floor.ratings import RATINGS_TOPIC, open_sessions
from casino_floor.service import FloorService
from casino_floor.store import FloorStore
from casino_floor.tables_view import FloorView
from table_runtime.errors import ConfigError

log = logging.getLogger("casino_floor.pit")


async def run_pit(config: FloorConfig, *, store: FloorStore | None = None,
                  service: FloorService | None = None) -> None:
    """`serve_pit` for ``table-floor run``: a page that cannot listen is one log line, and the service goes on."""
    try:
        await serve_pit(config, store=store, service=service)
    except OSError as error:
        log.error("pit page: cannot serve on %s (%s); the floor service goes on without it", config.pit_bind, error)


def parse_bind(text: str) -> tuple[str, int]:
    """``host:port`` (``[::1]:8090`` for IPv6) of ``[pit] bind``."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError("pit.bind", f"{text!r}: host:port, like 127.0.0.1:8090")
    return host.strip("[]"), int(port)


async def seed_shift(picture: FloorPicture, store: FloorStore, now: float) -> int:
    """Fold the rounds and the buy-ins the store holds for the shift `now` is in, as the feed sent them; how many.

    The view counts a round once per (journal, round number) and a buy-in once per (journal, seq): one both in
    the store and on the feed (while the page started) counts once.
    """
    start, end = picture.view.shifts.bounds(picture.view.shifts.name_of(now))
    async with store.pool.acquire() as connection:
        rows = await connection.fetch("SELECT r.table_id, r.journal, r.seq, r.ts, r.record::text AS record "
                                      f"FROM rounds r {COUNTED} AND r.ts >= $1 AND r.ts < $2 ORDER BY r.ts",
                                      start, end)
        buy_ins = await connection.fetch(f"SELECT r.* FROM buy_ins r {COUNTED} AND r.ts >= $1 AND r.ts < $2 "
                                         "ORDER BY r.ts", start, end)
    for row in rows:
        picture.apply("rounds", {"schema_version": 1, "table_id": row["table_id"], "journal": row["journal"],
                                 "seq": row["seq"], "ts": row["ts"], "type": "RoundRecord",
                                 "round": json.loads(row["record"])})
    for row in buy_ins:
        picture.apply("events", {"schema_version": 1, "table_id": row["table_id"], "journal": row["journal"],
                                 "seq": row["seq"], "ts": row["ts"], "kind": "event", "type": BUY_IN_EVENT,
                                 "body": {"type": BUY_IN_EVENT, "cents": row["cents"], "tender": row["tender"],
                                          "box": row["box"], "player": row["player"], "by": row["by_role"],
                                          "round": row["round"]}})
    return len(rows) + len(buy_ins)


SEATED_WITHIN_S = 12 * 3600.0  # an open session heard of longer ago than this is not shown at start (a table down)


async def seed_rated(picture: FloorPicture, store: FloorStore, now: float) -> int:
    """Fold the rated sessions the store holds open (heard of in the last `SEATED_WITHIN_S`); how many."""
    async with store.pool.acquire() as connection:
        sessions = await open_sessions(connection, now - SEATED_WITHIN_S)
    for payload in sessions:
        picture.apply(RATINGS_TOPIC, payload)
    return len(sessions)


async def seed_dealers(picture: FloorPicture, store: FloorStore, now: float) -> int:
    """The dealers on shift (logged in within `SEATED_WITHIN_S`) from the rows the store holds since their login;
    how many."""
    async with store.pool.acquire() as connection:
        logins = await connection.fetch(
            "SELECT DISTINCT ON (table_id) table_id, journal, seq, ts, type FROM events WHERE kind = 'input' "
            "AND type IN ('EmployeeLoggedIn', 'EmployeeLoggedOut') AND ts >= $1 ORDER BY table_id, ts DESC, seq DESC",
            now - SEATED_WITHIN_S)
        seeded = 0
        for login in logins:
            if login["type"] != "EmployeeLoggedIn":
                continue
            rows = await connection.fetch(
                "SELECT table_id, journal, seq, ts, kind, body FROM events WHERE table_id = $1 AND journal = $2 "
                "AND seq >= $3 AND ts >= $4 ORDER BY seq", login["table_id"], login["journal"], login["seq"],
                login["ts"])
            picture.dealers.seed([{**dict(row), "body": json.loads(row["body"])} for row in rows])
            seeded += 1
    return seeded


async def serve_pit(
    config: FloorConfig,
    *,
    store: FloorStore | None = None,
    service: FloorService | None = None,
    language: str = "fr",
    started: Callable[[PitServer], None] | None = None,
    clock: Callable[[], float] = time.time,
) -> None:
    """Serve the pit page until cancelled; `started(server)` once it listens and follows every broker.

    Beside the service (`service` given) the page folds the messages the service takes, on the service's own
    sessions; alone, it follows every broker on sessions of its own (`FeedLink`). With the store, the floor's
    alarms (gaps, broken chains) are shown from it, every `check_interval`."""
    host, port = parse_bind(config.pit_bind)
    picture = FloorPicture(FloorView(shifts=config.shifts), clock=clock)
    token = config.pit_token.reveal() if config.pit_token is not None else None
    async with PitServer(picture, host=host, port=port, token=token, allowed_hosts=config.pit_allowed_hosts,
                         language=language) as server:
        def fold(name: str, payloads: list[dict[str, Any]]) -> None:
            for table_id in sorted(picture.apply_all(name, payloads)):
                server.changed(table_id)

        async with asyncio.TaskGroup() as tasks:
            if service is not None:
                service.observers.append(fold)
                await service.connected.wait()
            else:
                links = [
                    FeedLink(broker.address, picture, server.changed, prefix=broker.prefix,
                             username=broker.username, password=broker.password.reveal() if broker.password else None,
                             tls_context=broker.tls(), follows=config.follows)
                    for broker in config.brokers
                ]  # fmt: skip
                for link in links:
                    tasks.create_task(link.run())
                for link in links:  # an unreachable broker is retried, never a stop
                    await link.subscribed.wait()
            if store is not None:  # after subscribing: a round closed meanwhile is in one or the other, or both
                await seed_shift(picture, store, clock())
                await seed_rated(picture, store, clock())
                await seed_dealers(picture, store, clock())
                server.changed()
                tasks.create_task(show_floor_alarms(store, fold, config.check_interval, follows=config.follows))
            if started is not None:
                started(server)


async def show_floor_alarms(store: FloorStore, fold: Callable[[str, list[dict[str, Any]]], None], interval: float,
                            *, follows: Callable[[str], bool] = lambda table_id: True) -> None:
    """Every `interval`, the floor alarms open in the store onto the page, and those closed since off it."""
    shown: dict[int, dict[str, Any]] = {}
    while True:
        try:
            async with store.pool.acquire() as connection:
                rows = await connection.fetch(
                    "SELECT id, table_id, journal, kind, first_seq, last_seq, message, "
                    "extract(epoch FROM raised_at) AS raised_at FROM floor_alarms WHERE cleared_at IS NULL")
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            log.warning("pit page: cannot read the floor alarms: %s", error)
        else:
            open_now = {int(row["id"]): {**dict(row), "raised_at": float(row["raised_at"])} for row in rows
                        if follows(str(row["table_id"]))}
            for alarm_id, row in shown.items():
                if alarm_id not in open_now:
                    fold("floor_alarms", [{**row, "cleared_at": time.time()}])
            for alarm_id, row in open_now.items():
                if shown.get(alarm_id) != row:
                    fold("floor_alarms", [row])
            shown = open_now
        await asyncio.sleep(interval)
