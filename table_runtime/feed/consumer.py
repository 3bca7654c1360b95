"""The reference consumer: read a table's ``events``, drop repeats, flag gaps.

The publisher sends every journal entry at least once and in order; after an
outage it sends again what the broker had not acknowledged. A consumer keeps
the last seq it handled per table: a seq at or below it is a repeat (drop it),
one above the next expected means entries were missed (flag the gap: the
journal on the table still has them). Only ``events`` carries every seq:
``alarms`` and ``rounds`` are deduplicated but jump between seqs, and the
retained ``status`` and ``state`` carry the latest seq known (an ``offline``
after ``online`` may repeat it), so every one of them is new.

Seqs count within one journal: a message naming another journal (a new data
directory) starts the count again, and says so (a `Finding`). With
``verify=True`` the consumer also re-computes the hash chain of the rows and
follows the retained ``head`` (chain_check.py): rows rewritten or cut from the
table's journal after they were published are found and named.

To miss nothing while the consumer itself is disconnected, connect with a
fixed client id and ``persistent=True`` (a persistent session, QoS 1) to a
broker that keeps sessions.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import ssl
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import aiomqtt

from table_runtime.feed.backoff import Backoff
from table_runtime.feed.chain_check import ChainCheck, Finding
from table_runtime.feed.messages import TopicName, topic_filter
from table_runtime.feed.row_batches import RowsMessageError, event_rows
from table_runtime.feed.settings import BrokerAddress, Secret

logger = logging.getLogger("table_runtime.feed.consumer")

Verdict = Literal["new", "duplicate", "gap"]

# Retained topics whose seq is the journal's last seq when sent: no repeat or gap by seq.
LATEST_VALUE_TOPICS: frozenset[str] = frozenset({"status", "state"})


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seq means: `new`, a `duplicate` to drop, or new after a `gap` of `missing` seqs."""

    verdict: Verdict
    seq: int
    missing: tuple[int, int] | None = None  # first and last missing seq, inclusive


@dataclass(slots=True)
class SequenceTracker:
    """The last seq handled for each table (pure)."""

    last: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0
    gaps: int = 0

    def observe(self, table_id: str, seq: int, *, contiguous: bool = True) -> Observation:
        """What `seq` means; with `contiguous` False (a topic that carries some entries only, like
        ``alarms``), a jump is not a gap."""
        last = self.last.get(table_id)
        if last is not None and seq <= last:
            self.duplicates += 1
            return Observation("duplicate", seq)
        self.last[table_id] = seq
        expected = 1 if last is None else last + 1
        if contiguous and seq > expected and last is not None:
            self.gaps += 1
            return Observation("gap", seq, (expected, seq - 1))
        return Observation("new", seq)

    def start_after(self, table_id: str, seq: int) -> None:
        """Expect `seq + 1` next for this table (otherwise the first seq seen starts it)."""
        self.last[table_id] = seq


@dataclass(frozen=True, slots=True)
class Received:
    """One message off the feed, with what its seq means for its table."""

    topic: str
    message: dict[str, Any]
    observation: Observation
    findings: tuple[Finding, ...] = ()  # what the chain check found with this message

    @property
    def is_head(self) -> bool:
        return self.topic.endswith("/head")

    @property
    def table_id(self) -> str:
        return str(self.message.get("table_id", ""))


@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectionNews:
    """What a consumer's `on_connection` hears: subscribed, or the broker unreachable or lost and when it retries."""

    broker: BrokerAddress
    connected: bool
    filter: str
    reason: str | None = None
    was_connected: bool = False  # lost after a connection, rather than unreachable
    retry_in: float | None = None  # seconds until the next attempt

    @property
    def text(self) -> str:
        where = f"broker {self.broker.host}:{self.broker.port}"
        if self.connected:
            return f"{where}: connected, listening on {self.filter}"
        state = "connection lost" if self.was_connected else "unreachable"
        return f"{where} {state} ({self.reason}); retrying in {self.retry_in:.1f} s"


class FeedConsumer:
    """Subscribes to one topic of one table (or of all tables) and yields what it receives.

    Reconnects on its own (capped, jittered backoff) and resubscribes; every
    message is checked against a `SequenceTracker`. Duplicates are dropped
    unless `keep_duplicates`.
    """

    def __init__(
        self,
        broker: BrokerAddress,
        *,
        prefix: str = "casino",
        table_id: str | None = None,
        topic: TopicName = "events",
        username: str | None = None,
        password: Secret | None = None,
        tls_context: ssl.SSLContext | None = None,
        client_id: str | None = None,
        persistent: bool = False,
        keep_duplicates: bool = False,
        tracker: SequenceTracker | None = None,
        rng: random.Random | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        backoff_initial: float = 0.1,
        backoff_max: float = 5.0,
        on_connection: Callable[[ConnectionNews], None] | None = None,
        verify: bool = False,
    ) -> None:
        if persistent and not client_id:
            raise ValueError("a persistent session needs a fixed client_id")
        self.broker = broker
        self.filters = [topic_filter(prefix, table_id, topic)]
        if verify and topic == "events":
            self.filters.append(topic_filter(prefix, table_id, "head"))
        self.filter = " and ".join(self.filters)
        self.topic = topic
        self.check = ChainCheck(hashes=verify and topic == "events")
        self.tracker = tracker if tracker is not None else SequenceTracker()
        self.subscribed = asyncio.Event()
        self._username = username
        self._password = password
        self._tls = tls_context
        self._client_id = client_id
        self._persistent = persistent
        self._keep_duplicates = keep_duplicates
        self._backoff = Backoff(backoff_initial, backoff_max, rng or random.Random())
        self._sleep = sleep
        self.connections = 0
        self._on_connection = on_connection

    async def messages(self) -> AsyncGenerator[Received, None]:
        """Messages in arrival order, forever; disconnections are retried, not raised."""
        # The client acknowledges a QoS 1 message when it queues it, and aiomqtt's
        # iterator raises on disconnect with messages still queued: keep the queue
        # so that they are handed out before reconnecting, not lost.
        queues: list[asyncio.Queue[aiomqtt.Message]] = []

        class KeptQueue(asyncio.Queue[aiomqtt.Message]):
            def __init__(self, maxsize: int = 0) -> None:
                super().__init__(maxsize)
                queues.append(self)

        while True:
            connected, reason = False, "disconnected"
            try:
                async with aiomqtt.Client(
                    self.broker.host,
                    self.broker.port,
                    username=self._username,
                    password=self._password.reveal() if self._password else None,
                    identifier=self._client_id,
                    clean_session=not self._persistent,
                    tls_context=self._tls,
                    keepalive=15,
                    queue_type=KeptQueue,
                ) as client:
                    for subscription in self.filters:
                        await client.subscribe(subscription, qos=1)
                    self.connections += 1
                    self._backoff.reset()
                    self.subscribed.set()
                    connected = True
                    self._tell(ConnectionNews(broker=self.broker, connected=True, filter=self.filter))
                    async for message in client.messages:
                        for received in self._receive(message):
                            yield received
            except aiomqtt.MqttError as error:
                self.subscribed.clear()
                logger.info("consumer: %s: %s", self.broker.url, error)
                reason = str(error) or type(error).__name__
            while queues:
                queue = queues.pop(0)
                while not queue.empty():
                    for received in self._receive(queue.get_nowait()):
                        yield received
            delay = self._backoff.next_delay()
            self._tell(ConnectionNews(broker=self.broker, connected=False, filter=self.filter, reason=reason,
                                      was_connected=connected, retry_in=delay))
            await self._sleep(delay)

    def _tell(self, news: ConnectionNews) -> None:
        if self._on_connection is not None:
            self._on_connection(news)

    def _receive(self, message: aiomqtt.Message) -> list[Received]:
        """What one message brings: nothing (not a feed message, a repeat), or a row, or each new row of an
        ``events`` message of version 2 (feed/row_batches.py), as its version 1 payload."""
        raw = message.payload
        try:
            decoded = json.loads(raw if isinstance(raw, (bytes, bytearray, str)) else b"")
        except ValueError:
            decoded = None
        if not isinstance(decoded, dict) or not isinstance(decoded.get("seq"), int):
            logger.warning("consumer: %s: not a feed message, skipped", message.topic)
            return []
        if not str(message.topic).endswith("/events"):
            received = self._receive_one(message, decoded)
            return [] if received is None else [received]
        try:
            rows = event_rows(decoded)
        except RowsMessageError as error:
            logger.warning("consumer: %s: %s, skipped", message.topic, error)
            return []
        if any(not isinstance(row.get("seq"), int) for row in rows):
            logger.warning("consumer: %s: a row without its seq, skipped", message.topic)
            return []
        return [received for row in rows if (received := self._receive_one(message, row)) is not None]

    def _receive_one(self, message: aiomqtt.Message, decoded: dict[str, Any]) -> Received | None:
        table_id = str(decoded.get("table_id", ""))
        if str(message.topic).endswith("/head"):
            findings = self.check.head(decoded)
            self._follow(findings)
            return Received(str(message.topic), decoded, Observation("new", decoded["seq"]), tuple(findings))
        if self.topic in LATEST_VALUE_TOPICS or self.topic == "ratings":
            # The latest known seq, not an entry's: a newer status or state may repeat it (and one journal row
            # may make several `ratings` messages, which carry no journal header).
            return Received(str(message.topic), decoded, Observation("new", decoded["seq"]))
        findings = self.check.event(decoded)
        self._follow(findings)
        observation = self.tracker.observe(table_id, decoded["seq"], contiguous=self.topic == "events")
        if observation.verdict == "duplicate" and not self._keep_duplicates and not findings:
            return None
        return Received(str(message.topic), decoded, observation, tuple(findings))

    def _follow(self, findings: list[Finding]) -> None:
        """Count seqs in the journal as it now is: a new journal from its first row, a cut one from the cut."""
        for finding in findings:
            if finding.kind == "new_journal":
                self.tracker.last.pop(finding.table_id, None)
            elif finding.kind in ("rewritten", "truncated") and finding.first is not None:
                self.tracker.start_after(finding.table_id, finding.first - 1)


async def collect(consumer: FeedConsumer, count: int) -> list[Received]:
    """The next `count` messages (a helper for scripts; bound it with asyncio.timeout)."""
    received: list[Received] = []
    stream = consumer.messages()
    try:
        async for item in stream:
            received.append(item)
            if len(received) >= count:
                break
    finally:
        await stream.aclose()
    return received
