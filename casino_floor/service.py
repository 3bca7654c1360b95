"""The floor service: follow the tables' feeds on every broker, store each batch, check it, ask for what is missing.

One MQTT session per broker, persistent (fixed client id, clean_session false, QoS 1), subscribed per table and
topic (``events``, ``state``, ``status``, ``head``; the wildcard ``+`` when no list is configured, never a
``$share`` group) and to the floor's replay replies. Messages are acknowledged to the broker by hand, only once
the batch holding them is committed: a floor killed at any moment leaves every unstored message with the
broker, which sends it again to the next session of the same client id. A second floor process takes another
part of the tables (``partition = "2/2"``) with its own client id.

Each broker's session lives on its own: a broker that goes away (killed, cut off) is followed again with a backoff
while the others' sessions, and the writer, go on (the tables fail over to another broker: docs/floor.md). A
failure of the database ends the round of sessions; the next round starts from what the store holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiomqtt
import asyncpg

from casino_floor import bounds
from casino_floor.config import Broker, FloorConfig
from casino_floor.ingest import Ingest
from casino_floor.integrity import JournalTrack, decode_payload
from casino_floor.partitions import keep
from casino_floor.ratings import RATINGS_TOPIC, Retention
from casino_floor.replay import pieces, replay_request, reply_topic, request_topic
from casino_floor.session_refusal import fail_fast_on_refusal
from casino_floor.set_aside import quarantine_alarm, quarantined
from casino_floor.store import Batch, FloorStore
from table_runtime.feed.backoff import Backoff

logger = logging.getLogger("casino_floor.service")

TOPIC_NAMES = frozenset({"events", "state", "status", "head", "checkpoints"})  # and RATINGS_TOPIC (`_rating`)

# What the store says of a value it will not hold (a data exception, a constraint): that message is quarantined.
STORE_REFUSALS = (asyncpg.DataError, asyncpg.IntegrityConstraintViolationError)

# (topic name, payloads) of each message of a followed table: an ``events`` message's rows taken as the table's
# (version 1 payloads, one call for the message's rows), or the message alone.
Observer = Callable[[str, list[dict[str, Any]]], None]


SessionKey = tuple[int, int]  # (the broker's index in the config, the number of its session)
Incoming = tuple[SessionKey, aiomqtt.Message]  # a message and the session it came by (acknowledged on that one)


class Inbox:
    """Every session's messages in arrival order, until the writer takes them (one deque, no task per message).

    aiomqtt puts each message into its client's queue; the queue given to each client (`queue_type`) appends to
    this inbox instead, tagged with the broker, and wakes the writer once `wake_at` messages are waiting.
    """

    def __init__(self) -> None:
        self._items: deque[Incoming] = deque()
        self._ready = asyncio.Event()
        self._wake_at = 1

    def __len__(self) -> int:
        return len(self._items)

    def queue_type(self, session: SessionKey) -> type[asyncio.Queue[aiomqtt.Message]]:
        inbox = self

        class BrokerQueue(asyncio.Queue[aiomqtt.Message]):
            def put_nowait(self, item: aiomqtt.Message) -> None:
                inbox.put((session, item))

        return BrokerQueue

    def put(self, item: Incoming) -> None:
        self._items.append(item)
        if len(self._items) >= self._wake_at:
            self._ready.set()

    async def wait(self, count: int, seconds: float) -> None:
        """Return once `count` messages wait, or after `seconds`."""
        if len(self._items) >= count or seconds <= 0:
            return
        self._wake_at = count
        self._ready.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._ready.wait()

    def take(self, limit: int) -> list[Incoming]:
        items = self._items
        return [items.popleft() for _ in range(min(limit, len(items)))]


@dataclass
class Counters:
    received: int = 0
    stored: int = 0
    batches: int = 0
    replay_requests: int = 0
    replay_done: int = 0
    replay_refused: int = 0
    sessions: int = 0
    last_error: str | None = None
    ratings_stored: int = 0  # rated sessions' messages committed
    ratings_rejected: int = 0  # ``ratings`` messages the contract does not allow (each logged in one line)
    ratings_purged: int = 0  # rated sessions erased by the retention (their months dropped)
    events_months_dropped: int = 0  # months of journal rows dropped by `[events] retention_days`


@dataclass
class FloorService:
    config: FloorConfig
    store: FloorStore
    clock: Callable[[], float] = time.time
    counters: Counters = field(default_factory=Counters)
    ingest: Ingest = field(default_factory=Ingest)
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    _inbox: Inbox = field(default_factory=Inbox)
    # Each broker's live session (its number and client), None while that broker is away.
    _sessions: list[tuple[int, aiomqtt.Client] | None] = field(default_factory=list)
    _asked: dict[tuple[str, str, int], float] = field(default_factory=dict)
    # Told each message of a followed table as it is taken (the pit page beside the service: one session).
    observers: list[Observer] = field(default_factory=list)
    retention: Retention | None = None  # when the retention is due (set from the config on the first run)

    async def run(self) -> None:
        """Follow the feeds until cancelled; every failure is logged and retried with a backoff."""
        backoff = Backoff(0.2, 10.0, random.Random())
        while True:
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # any failure: start over from the store
                self.counters.last_error = describe(error)
                logger.warning("floor session ended: %s", self.counters.last_error)
            if self.connected.is_set():
                backoff.reset()
            self.connected.clear()
            await asyncio.sleep(backoff.next_delay())

    async def run_once(self) -> None:
        self.ingest = await self._ingest()
        self._inbox = Inbox()
        self._sessions = [None] * len(self.config.brokers)
        self.counters.sessions += 1
        async with asyncio.TaskGroup() as tasks:
            for index, broker in enumerate(self.config.brokers):
                tasks.create_task(self._follow(index, broker))
            tasks.create_task(self._write())
            tasks.create_task(self._keep_partitions())

    async def _ingest(self) -> Ingest:
        """The ingest as the store holds it (at each session's start, and after a batch the store refused)."""
        return Ingest(await self.store.load_tracks(), await self.store.open_alarms(), gap_grace=self.config.gap_grace,
                      head_keys=self.config.head_key_bytes, replay_max_gap=self.config.replay_max_gap)

    async def _follow(self, index: int, broker: Broker) -> None:
        """One broker's sessions, one after the other, until cancelled: a session that ends (the broker killed, the
        link cut) is one log line, and the next is tried with a backoff while the other brokers' go on."""
        backoff = Backoff(0.2, 10.0, random.Random())
        number = 0
        while True:
            number += 1
            try:
                async with self._client((index, number), broker) as client:
                    for topic in [*self.config.filters(broker), reply_topic(broker.prefix, self.config.floor_id)]:
                        await client.subscribe(topic, qos=1)
                    self._sessions[index] = (number, client)
                    backoff.reset()
                    if all(self._sessions):
                        self.connected.set()
                        logger.info("following the tables on %s",
                                    ", ".join(broker.address.url for broker in self.config.brokers))
                    else:
                        logger.info("following the tables on %s (%d of %d brokers)", broker.address.url,
                                    sum(1 for session in self._sessions if session), len(self._sessions))
                    await self._watch(client)
            except aiomqtt.MqttError as error:
                self.counters.last_error = f"{type(error).__name__}: {error} ({broker.address.url})"
                logger.warning("floor session ended: %s", self.counters.last_error)
            finally:
                self._sessions[index] = None
                self.connected.clear()
            await asyncio.sleep(backoff.next_delay())

    def _client(self, session: SessionKey, broker: Broker) -> aiomqtt.Client:
        partition, index = self.config.partition, session[0]
        client = aiomqtt.Client(
            broker.address.host, broker.address.port, identifier=f"{self.config.floor_id}-{partition.index}of"
            f"{partition.count}-b{index}", clean_session=False, username=broker.username,
            password=broker.password.reveal() if broker.password else None, tls_context=broker.tls(), keepalive=15,
            timeout=10.0, queue_type=self._inbox.queue_type(session))
        client._client.manual_ack_set(True)  # acknowledged after the commit (`_ack`)
        return fail_fast_on_refusal(client)  # a refused TLS client certificate named at once, not a timeout

    async def _watch(self, client: aiomqtt.Client) -> None:
        """Raise when the session ends (the iterator's error); the messages themselves go to the inbox."""
        async for _ in client.messages:  # pragma: no cover - the inbox takes every message
            pass

    async def _write(self) -> None:
        """Take what the inbox holds (up to `batch_rows`, waiting at most `batch_ms` to fill), store it in one
        transaction, then acknowledge it to the brokers; every `check_interval`, the integrity pass."""
        interval, fill = self.config.check_interval, self.config.batch_ms / 1000
        last_check = self.clock()
        while True:
            await self._inbox.wait(1, interval)
            if len(self._inbox):
                await self._inbox.wait(self.config.batch_rows, fill)
            now = self.clock()
            batch, items = self._fill()
            due = now - last_check >= interval
            if items or due:
                try:
                    await self._commit(batch, now)
                except STORE_REFUSALS as error:  # a value the bounds did not foresee: find it, set it aside
                    logger.warning("the store refused a batch of %d message(s) (%s): stored one by one", len(items),
                                   error)
                    await self._one_by_one(items, now)
            for (index, number), message in items:
                # On the session it came by only: a session since ended leaves it with the broker, which sends it
                # again to the next one (stored once: the store keeps a row once).
                if (session := self._sessions[index]) is not None and session[0] == number:
                    session[1]._client.ack(message.mid, message.qos)
            if due:
                last_check = now
                await self._ask_replays(now)

    def _fill(self) -> tuple[Batch, list[Incoming]]:
        """A batch of what the inbox holds, up to `batch_rows` messages or rows (a JournalRows message holds many),
        and the messages it took."""
        limit, batch = self.config.batch_rows, Batch()
        items: list[Incoming] = []
        while len(self._inbox) and len(items) < limit and len(batch.rows) < limit:
            taken = self._inbox.take(min(limit - len(items), max(1, (limit - len(batch.rows)) // 100)))
            for item in taken:
                self._take(item, batch)
            items.extend(taken)
        return batch, items

    async def _one_by_one(self, items: list[Incoming], now: float) -> None:
        """The messages of a batch the store refused, each in its own transaction: the one it still refuses is
        quarantined (its reason the store's), the others stored."""
        for item in items:
            self.ingest = await self._ingest()
            batch = Batch()
            self._take(item, batch)
            try:
                await self._commit(batch, now)
            except STORE_REFUSALS as error:
                self.ingest = await self._ingest()
                topic = item[1].topic.value
                levels = topic.split("/")
                table_id = levels[-2] if len(levels) >= 2 else ""
                raw = item[1].payload if isinstance(item[1].payload, (bytes, str)) else b""
                aside = quarantined(table_id, topic, f"the store refused it: {error}", None, raw)
                refused = Batch(set_aside=[aside], alarms=[quarantine_alarm(aside)])
                logger.warning("table %s: a message on %s set aside (quarantine): the store refused it: %s",
                               table_id, topic, error)
                await self._commit(refused, now)
        self.ingest = await self._ingest()

    def _take(self, item: Incoming, batch: Batch) -> None:
        self.counters.received += 1
        message = item[1]
        levels = message.topic.value.split("/")
        raw = message.payload if isinstance(message.payload, (bytes, str)) else b""
        if not raw:  # a retained message cleared (a table that left this broker for another): nothing to store
            return
        journal_topic = len(levels) >= 3 and levels[-3] == "tables" and levels[-1] in TOPIC_NAMES
        try:
            bounds.message_size(raw)
            payload = decode_payload(raw)
        except ValueError as error:  # not JSON, or too large (`bounds.Refused`)
            if journal_topic and self.config.follows(levels[-2]):
                reason = error.reason if isinstance(error, bounds.Refused) else f"not JSON: {error}"
                aside = quarantined(levels[-2], message.topic.value, reason, None, raw[:bounds.MAX_MESSAGE_BYTES])
                self.ingest.quarantine(batch, aside)
                return
            logger.warning("not JSON on %s: dropped", message.topic)
            if levels[-1] == RATINGS_TOPIC:
                self.counters.ratings_rejected += 1
            return
        if not isinstance(payload, dict):
            if levels[-1] == RATINGS_TOPIC:
                logger.warning("not a JSON object on %s: dropped", message.topic)
                self.counters.ratings_rejected += 1
            return
        if len(levels) >= 3 and levels[-3] == "floor" and levels[-1] == "replay":  # a replay reply
            self._reply(payload, batch)
            return
        name, table_id = levels[-1], payload.get("table_id")
        if name == RATINGS_TOPIC:
            self._rating(payload, batch)
            return
        followed = self.config.follows(levels[-2]) if journal_topic else (isinstance(table_id, str)
                                                                          and self.config.follows(table_id))
        if name not in TOPIC_NAMES or not followed:
            return
        # Observers (the pit page) see only what the store takes as the table's own: each row, of either shape.
        if name == "events":
            if rows := self.ingest.take_rows(payload, batch, topic=message.topic.value, raw=raw):
                for observer in self.observers:
                    observer(name, rows)
        elif self.ingest.take(name, payload, batch, topic=message.topic.value, raw=raw):
            for observer in self.observers:
                observer(name, [payload])

    def _rating(self, payload: dict[str, Any], batch: Batch) -> None:
        """A ``ratings`` message (the contract names its table "table") into the batch and to the observers when
        its table is followed; one off the contract is one log line, counted (`Counters.ratings_rejected`)."""
        table_id = payload.get("table", payload.get("table_id"))
        if isinstance(table_id, str) and table_id and not self.config.follows(table_id):
            return  # another floor process's table
        if self.ingest.take_rating(payload, batch):
            for observer in self.observers:
                observer(RATINGS_TOPIC, [payload])
        else:
            self.counters.ratings_rejected += 1

    def _reply(self, payload: dict[str, object], batch: Batch) -> None:
        type_ = payload.get("type")
        if type_ == "ReplayDone":
            self.counters.replay_done += 1
        elif type_ == "ReplayRefused":
            self.counters.replay_refused += 1
            logger.warning("replay %s refused: %s", payload.get("request_id"), payload.get("reason"))
        elif "kind" in payload and isinstance(payload.get("table_id"), str) \
                and self.config.follows(str(payload["table_id"])):
            self.ingest.take("events", payload, batch, raw=json.dumps(payload))

    async def _commit(self, batch: Batch, now: float) -> None:
        for track, seq, hash_, ts in self.ingest.lookups:
            held = await self.store.hash_at(track.table_id, track.journal, seq)
            batch.alarms.extend(track.head(seq, hash_, held, ts=ts))
        self.ingest.lookups.clear()
        self.ingest.finish(batch, now)
        if len(batch):
            await self.store.write(batch)
            self.counters.stored += len(batch.rows)
            self.counters.ratings_stored += len(batch.ratings)
            self.counters.batches += 1
        self.ingest.committed(batch)

    async def _ask_replays(self, now: float) -> None:
        """A request per missing range stalled past the grace period, again every `replay_retry` seconds."""
        secret = self.config.replay_secret
        for track, first, last in self.ingest.missing():
            if track.stalled_since is None or now - track.stalled_since < self.config.gap_grace:
                continue
            for start, end in pieces(first, last):
                key = (track.table_id, track.journal, start)
                if now - self._asked.get(key, -1e18) < self.config.replay_retry:
                    continue
                self._asked[key] = now
                if secret is None:
                    logger.warning("table %s: rows %d..%d missing and no replay secret configured",
                                   track.table_id, start, end)
                    continue
                await self._publish_request(track, start, end, secret.reveal())

    async def _publish_request(self, track: JournalTrack, start: int, end: int, secret: str) -> None:
        for broker, session in zip(self.config.brokers, self._sessions, strict=True):
            if session is None:
                continue
            client = session[1]
            request = replay_request(prefix=broker.prefix, floor_id=self.config.floor_id, journal=track.journal,
                                     from_seq=start, to_seq=end, secret=secret)
            with contextlib.suppress(aiomqtt.MqttError):  # that broker's session ending: asked again next time
                await client.publish(request_topic(broker.prefix, track.table_id), json.dumps(request), qos=1)
                self.counters.replay_requests += 1
        logger.info("table %s: replay of rows %d..%d asked", track.table_id, start, end)

    async def _keep_partitions(self) -> None:
        """The retention by partition (casino_floor/partitions.py): the months ahead made and the months past the
        ratings' (and the journal rows') retention dropped, at the first look, then daily by the service's clock
        (checked every `check_interval`); a run that fails is one log line and is tried again at the next look."""
        if self.retention is None:
            self.retention = Retention(days=self.config.ratings_retention_days)
        retention = self.retention
        while True:
            now = self.clock()
            if retention.due(now):
                try:
                    async with self.store.pool.acquire() as connection:
                        kept = await keep(connection, now, ratings_days=retention.days,
                                          events_days=self.config.events_retention_days)
                except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
                    logger.warning("retention: the partitions' upkeep failed: %s", error)
                else:
                    retention.done(now)
                    self.counters.ratings_purged += kept.ratings.rows
                    self.counters.events_months_dropped += len(kept.events.months)
                    if kept.ratings.months:
                        logger.info("ratings retention: %d rated session(s) of %s, older than %d days, erased (their "
                                    "months dropped)", kept.ratings.rows,
                                    ", ".join(f"{month:%Y-%m}" for month in kept.ratings.months), retention.days)
                    if kept.events.months:
                        logger.info("events retention: %d journal row(s) of %s, older than %d days, dropped",
                                    kept.events.rows, ", ".join(f"{month:%Y-%m}" for month in kept.events.months),
                                    self.config.events_retention_days)
            await asyncio.sleep(self.config.check_interval)


def describe(error: BaseException) -> str:
    """One line for a session's end: the errors inside an exception group named, not "(1 sub-exception)"."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}"
