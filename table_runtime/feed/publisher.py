"""The publisher: store and forward from the journal to the MQTT broker.

Events are never published from memory. The publisher reads the journal after
its cursor (the last seq the broker acknowledged, kept in the journal's meta
table), publishes a batch with QoS 1 in seq order, and moves the cursor only
once every message of the batch is acknowledged. When the broker goes away or
the process dies, the unacknowledged batch is sent again after reconnecting:
consumers see every seq at least once, in order, and drop repeats by seq.
After each (re)connection the last `resend_on_connect` acknowledged entries go
out again too: a broker without persistence, or one that crashed, may have
acknowledged them without passing them on. Every message names the journal, and
the retained ``head`` (heads.py) lets consumers see rows gone. With a replay
secret it answers the floor's signed replay requests too (replay_server.py).

The table never waits for the feed: the runtime appends to the journal, calls
`notify()`, and carries on; with the broker down the backlog just grows. Nor
does the feed stop the table: `run()` retries any failure of a session, not
only the broker's, and raises only when cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, Self

import aiomqtt

from table_runtime.errors import JournalError
from table_runtime.feed.backoff import Backoff
from table_runtime.feed.heads import HeadSchedule
from table_runtime.feed.messages import (
    FeedMessage,
    checkpoint_message,
    head_message,
    state_message,
    status_message,
)
from table_runtime.feed.pipeline import publish_all, watch
from table_runtime.feed.ratings import ratings_of
from table_runtime.feed.replay_server import CHUNK as REPLAY_CHUNK
from table_runtime.feed.replay_server import ReplayResponder
from table_runtime.feed.row_batches import messages_for_entries
from table_runtime.feed.settings import BrokerAddress, FeedSettings
from table_runtime.feed.verify_requests import VerifyResponder
from table_runtime.journal import GENESIS_HASH, Checkpoint, Journal, JournalUnwritableError

logger = logging.getLogger("table_runtime.feed")

Sleep = Callable[[float], Awaitable[None]]


class FeedPublisher:
    """Owns the broker connection of one table and its cursor in the journal.

    ::

        async with asyncio.TaskGroup() as tasks, FeedPublisher(settings, journal) as feed:
            tasks.create_task(feed.run())
            ...   # entry = await asyncio.to_thread(journal.append, ...); feed.notify(); feed.offer_state(snapshot)
        # leaving the `async with` stopped run(): backlog sent (broker permitting), then ``offline``

    `run()` returns after `stop(reason)`: it first sends what the journal holds
    (while the broker is reachable), then the retained ``offline`` status with
    the reason. Cancelling `run()` also tries to leave ``offline`` behind.
    Leaving the ``async with`` calls ``stop("shutdown")`` and waits (up to
    `publish_timeout`) for `run()` to return, so put the task group outside.
    """

    def __init__(
        self,
        settings: FeedSettings,
        journal: Journal,
        *,
        rng: random.Random | None = None,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.time,
        ratings: bool = True,
    ) -> None:
        self.settings = settings
        self.topics = settings.topics
        self._journal = journal
        self._journal_id = journal.journal_id
        self._heads = HeadSchedule(settings.head_interval)
        self._checkpoint_sent: int | None = None  # the last checkpoint's row sent in this session (None: none yet)
        self._ratings = ratings_of(self.topics, enabled=ratings)  # a `rating` row's `ratings` message
        self.replay = (ReplayResponder(settings.replay_secret.reveal().encode(), journal, self.topics,
                                       publish_timeout=settings.publish_timeout)
                       if settings.replay_secret is not None else None)
        self.verification: VerifyResponder | None = None  # the floor's verify requests, when the table checks itself
        self._backoff = Backoff(settings.backoff_initial, settings.backoff_max, rng or random.Random())
        self._sleep = sleep
        self._clock = clock
        self._wake = asyncio.Event()
        self._stopped = asyncio.Event()
        self._stop_reason = "shutdown"
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._saved_cursor = 0
        self._state: Mapping[str, Any] | None = None
        self._cursor = 0
        self._connected = False
        self._running = False
        self._run_finished = asyncio.Event()
        self.connections = 0
        self._broker_index = 0  # of settings.brokers: the broker of this session, or of the next try
        self._tried = 0  # brokers tried in a row since the last connection
        self._failing_back = False  # this session on a fallback ends to go back to the preferred broker
        self.last_error: str | None = None  # why the last connection failed or dropped
        self.published = 0  # journal messages acknowledged by the broker, this process

    # -- what the runtime calls -------------------------------------------------

    def notify(self) -> None:
        """The journal grew: publish soon. Cheap; call after every append."""
        self._wake.set()

    def offer_state(self, snapshot: Mapping[str, Any]) -> None:
        """Publish this snapshot retained on ``state`` (only the latest offered is sent)."""
        self._state = snapshot
        self._wake.set()

    def stop(self, reason: str = "shutdown") -> None:
        """Ask `run()` to flush, publish ``offline`` with `reason`, and return."""
        if not self._stopped.is_set():
            self._stop_reason = reason
            self._stopped.set()
        self._wake.set()

    @property
    def cursor(self) -> int:
        """The last seq the broker acknowledged (everything up to it is delivered)."""
        return self._cursor

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def broker(self) -> BrokerAddress:
        """The broker of the session (while connected), else the one tried next."""
        return self.settings.brokers[self._broker_index]

    async def wait_published(self, seq: int) -> None:
        """Return once every journal entry up to `seq` is acknowledged (bound it with asyncio.timeout)."""
        if self._cursor >= seq:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (seq, waiter)
        self._waiters.append(entry)
        try:
            await waiter
        finally:
            if entry in self._waiters:
                self._waiters.remove(entry)

    # -- lifetime -----------------------------------------------------------------

    async def __aenter__(self) -> Self:
        self._cursor = self._saved_cursor = await asyncio.to_thread(self._load_cursor)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._running:
            self.stop("shutdown" if error is None else f"shutdown after {type(error).__name__}")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.settings.publish_timeout):
                    await self._run_finished.wait()

    def _load_cursor(self) -> int:
        stored = self._journal.get_meta(self.settings.cursor_key)
        cursor = int(stored) if stored is not None and stored.isdigit() else 0
        last = self._journal.last_seq
        if cursor > last:
            logger.warning("feed cursor %d is past the journal's end %d: publishing it all again", cursor, last)
            cursor = 0
        return cursor

    async def run(self) -> None:
        """Connect, publish the backlog and then each new entry, reconnect on loss, until `stop()`.

        With fallback brokers, a broker that cannot be used (or is lost) is followed at once by the next one; once
        every one was tried in a row, the backoff waits before the preferred is tried again. A session on a fallback
        goes back to the preferred broker as soon as a try every `failback_interval` reaches it. Whichever broker
        takes the rows, the journal's cursor says where to go on: the floor stores a row once, whichever way it came.
        """
        self._running = True
        self._run_finished.clear()
        try:
            while not self._stopped.is_set():
                try:
                    await self._session()
                    if self._failing_back:  # the session ended to go back to the preferred broker
                        self._failing_back, self._broker_index = False, 0
                        continue
                    return
                except aiomqtt.MqttError as error:
                    self.last_error = str(error) or type(error).__name__
                    if self._connected:
                        logger.warning("feed: lost %s: %s", self.broker.url, self.last_error)
                    self._connected = False
                except Exception as error:
                    # Not the broker's (TLS files, the journal read, a bug): the table must not stop
                    # for the feed; the journal keeps everything, so retry like a lost broker.
                    self.last_error = f"{type(error).__name__}: {error}"
                    if self._backoff.attempts == 0:  # in full once, then one line per retry
                        logger.exception("feed: session on %s failed", self.broker.url)
                    self._connected = False
                self._failing_back = False
                failed = self.broker
                self._broker_index = (self._broker_index + 1) % len(self.settings.brokers)
                self._tried += 1
                if self._tried < len(self.settings.brokers):  # another broker not tried yet: at once
                    logger.warning("feed: cannot use %s (%s), trying %s", failed.url, self.last_error,
                                   self.broker.url)
                    continue
                self._tried = 0
                delay = self._backoff.next_delay()
                log = logger.warning if self._backoff.attempts == 1 else logger.info
                log("feed: cannot use %s (%s), retrying %s in %.2fs", failed.url, self.last_error, self.broker.url,
                    delay)
                await self._sleep_unless_stopped(delay)
        finally:
            self._connected = False
            self._running = False
            self._run_finished.set()

    async def _sleep_unless_stopped(self, delay: float) -> None:
        sleeper = asyncio.ensure_future(self._sleep(delay))
        stopper = asyncio.ensure_future(self._stopped.wait())
        try:
            await asyncio.wait({sleeper, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (sleeper, stopper):
                task.cancel()
            await asyncio.gather(sleeper, stopper, return_exceptions=True)

    def _client(self, last_seq: int) -> aiomqtt.Client:
        settings, broker = self.settings, self.broker
        will = status_message(self.topics, "offline", journal=self._journal_id, seq=last_seq, ts=self._clock(),
                              reason="connection lost")
        client = aiomqtt.Client(
            broker.host,
            broker.port,
            username=settings.username,
            password=settings.password.reveal() if settings.password else None,
            identifier=settings.identifier,
            will=aiomqtt.Will(will.topic, will.encode(), qos=1, retain=True),
            clean_session=True,
            keepalive=settings.keepalive,
            timeout=settings.publish_timeout,
            max_inflight_messages=settings.max_inflight + 2,  # + status and state
            tls_context=settings.tls_context(broker),
            logger=logger,
        )
        # A whole window is in flight on purpose: no warning per pending publish.
        client.pending_calls_threshold = settings.max_inflight + 2 + (REPLAY_CHUNK + 1 if self.replay else 0)
        return client

    async def _session(self) -> None:
        """One connection: online, then pump until stopped (or, on a fallback, until the preferred broker is back);
        offline on the way out (never in a cancellation's way; on the way back to the preferred, no status left
        behind)."""
        last_seq = await asyncio.to_thread(lambda: self._journal.last_seq)
        self._checkpoint_sent = None
        async with self._client(last_seq) as client:
            self._connected = True
            self.connections += 1
            self._tried = 0
            self._backoff.reset()
            logger.info("feed: connected to %s, publishing after seq %d", self.broker.url, self._cursor)
            watcher = asyncio.create_task(watch(client, lambda message: self._on_message(client, message)))
            failback = (asyncio.create_task(self._watch_preferred()) if self._broker_index else None)
            try:
                online = status_message(self.topics, "online", journal=self._journal_id, seq=last_seq,
                                        ts=self._clock(), reason=None)
                await self._publish(client, watcher, [online])
                await self._publish_head(client, watcher)
                if self.replay is not None:
                    await client.subscribe(self.replay.topic, qos=1)
                if self.verification is not None:
                    await client.subscribe(self.verification.topic, qos=1)
                await self._pump(client, watcher)
                if self._failing_back and not self._stopped.is_set():
                    # The retained status cleared here, so a floor reading this broker later finds none of ours.
                    await publish_all(client, watcher, [(self.topics.status, b"", 1, True)],
                                      publish_timeout=self.settings.publish_timeout)
                    logger.info("feed: %s is back: leaving %s", self.settings.broker.url, self.broker.url)
                else:
                    self._failing_back = False
                    await self._publish_status(client, watcher, self._stop_reason)
            except asyncio.CancelledError:
                with contextlib.suppress(aiomqtt.MqttError, TimeoutError, JournalError):
                    async with asyncio.timeout(1.0):
                        await self._publish_status(client, watcher, "cancelled")
                raise
            finally:
                if failback is not None:
                    failback.cancel()
                    await asyncio.gather(failback, return_exceptions=True)
                if self.replay is not None:
                    await self.replay.close()
                if self.verification is not None:
                    await self.verification.close()
                watcher.cancel()
                await asyncio.gather(watcher, return_exceptions=True)

    async def _watch_preferred(self) -> None:
        """While on a fallback: every `failback_interval`, try the preferred broker (a connection of its own, closed
        at once); once it answers, end this session at the pump's next quiet moment (`_failing_back`)."""
        settings, preferred = self.settings, self.settings.broker
        while True:
            await self._sleep(settings.failback_interval)
            probe = aiomqtt.Client(preferred.host, preferred.port, username=settings.username,
                                   password=settings.password.reveal() if settings.password else None,
                                   identifier=f"{settings.identifier}-probe", clean_session=True,
                                   keepalive=settings.keepalive, timeout=settings.publish_timeout,
                                   tls_context=settings.tls_context(preferred), logger=logger)
            try:
                async with probe:
                    pass
            except aiomqtt.MqttError:
                continue
            self._failing_back = True
            self._wake.set()
            return

    async def _publish_status(self, client: aiomqtt.Client, watcher: asyncio.Task[None], reason: str) -> None:
        last_seq = await asyncio.to_thread(lambda: self._journal.last_seq)
        offline = status_message(self.topics, "offline", journal=self._journal_id, seq=last_seq, ts=self._clock(),
                                 reason=reason)
        await self._publish(client, watcher, [offline])

    async def _pump(self, client: aiomqtt.Client, watcher: asyncio.Task[None]) -> None:
        """Publish entries after the cursor through a window of `max_inflight` unacknowledged messages.

        Messages go out in seq order on one connection; the cursor moves to an
        entry once its messages and every earlier one are acknowledged, and is
        written to the journal after each batch read and whenever the window drains.
        """
        # Start a little before the cursor: a broker that acknowledged entries and then
        # died (no persistence, or a crash) may never have passed them on.
        position = max(0, self._cursor - self.settings.resend_on_connect)
        inflight: deque[tuple[int, asyncio.Task[None]]] = deque()  # (seq if an entry's last message, else 0)
        window = self.settings.max_inflight
        try:
            while True:
                self._wake.clear()
                if self._state is not None:
                    await self._publish_state(client, watcher)
                entries = await asyncio.to_thread(list, self._journal.entries(position, self.settings.batch_size))
                groups = messages_for_entries(self.topics, entries, self._journal_id, extra=self._ratings,
                                              rows_per_message=self.settings.rows_per_message)
                for messages, seq in groups:
                    for index, message in enumerate(messages):
                        while len(inflight) >= window:
                            await self._settle_oldest(inflight, watcher)
                        # No timer per message: the window's wait (`_settle_oldest`) bounds the acknowledgement.
                        task = asyncio.create_task(client.publish(message.topic, message.encode(), qos=message.qos,
                                                                  retain=message.retain, timeout=math.inf))
                        inflight.append((seq if index == len(messages) - 1 else 0, task))
                if entries:
                    position = entries[-1].seq
                    await self._save_cursor()
                    if self._heads.due(position, idle=False, now=asyncio.get_running_loop().time()):
                        await self._publish_head(client, watcher)
                    continue
                while inflight:
                    await self._settle_oldest(inflight, watcher)
                await self._save_cursor()
                if self._heads.due(position, idle=True, now=asyncio.get_running_loop().time()):
                    await self._publish_head(client, watcher)
                if self._stopped.is_set() or self._failing_back:
                    return
                waker = asyncio.ensure_future(self._wake.wait())
                try:
                    await asyncio.wait((waker, watcher), timeout=min(self.settings.poll_interval,
                                                                     self.settings.head_interval),
                                       return_when="FIRST_COMPLETED")
                finally:
                    waker.cancel()
                    await asyncio.gather(waker, return_exceptions=True)
                if watcher.done():
                    watcher.result()
                    raise aiomqtt.MqttError("disconnected")
        finally:
            for _, task in inflight:
                task.cancel()
            await asyncio.gather(*(task for _, task in inflight), return_exceptions=True)
            # What was acknowledged stays acknowledged, whatever ended the pump.
            with contextlib.suppress(JournalError):
                await asyncio.to_thread(self._store_cursor)

    async def _settle_oldest(
        self, inflight: deque[tuple[int, asyncio.Task[None]]], watcher: asyncio.Task[None]
    ) -> None:
        """Wait for the oldest message in flight to be acknowledged (at most `publish_timeout`), then move the
        cursor past every entry whose messages and all earlier ones are acknowledged."""
        task = inflight[0][1]
        if not task.done():
            await asyncio.wait((task, watcher), timeout=self.settings.publish_timeout,
                               return_when=asyncio.FIRST_COMPLETED)
            if not task.done():
                if watcher.done():
                    watcher.result()
                    raise aiomqtt.MqttError("disconnected while publishing")
                raise aiomqtt.MqttError(f"no acknowledgement within {self.settings.publish_timeout:g} s")
        while inflight and inflight[0][1].done():
            seq, task = inflight.popleft()
            task.result()
            self.published += 1
            self._cursor = max(self._cursor, seq)
        if self._waiters:
            self._wake_waiters()

    def _wake_waiters(self) -> None:
        for seq, waiter in [entry for entry in self._waiters if entry[0] <= self._cursor]:
            self._waiters.remove((seq, waiter))
            if not waiter.done():
                waiter.set_result(None)

    async def _save_cursor(self) -> None:
        if self._cursor != self._saved_cursor:
            # A full or read-only card: the cursor waits in memory (a restart republishes a little, QoS 1 anyway);
            # the session goes on publishing the state and its journal_unwritable alarm.
            with contextlib.suppress(JournalUnwritableError):
                await asyncio.to_thread(self._store_cursor)

    def _store_cursor(self) -> None:
        cursor = self._cursor
        if cursor != self._saved_cursor:
            self._journal.set_meta(self.settings.cursor_key, str(cursor))
            self._saved_cursor = cursor

    async def _publish_state(self, client: aiomqtt.Client, watcher: asyncio.Task[None]) -> None:
        snapshot, self._state = self._state, None
        if snapshot is None:
            return
        try:
            await self._publish(client, watcher, [state_message(self.topics, snapshot, journal=self._journal_id,
                                                                ts=self._clock())])
        except BaseException:
            if self._state is None:
                self._state = snapshot  # still the latest: send it after reconnecting
            raise

    def _journal_head(self) -> tuple[int, str, float]:
        ts = self._clock()  # before the read: a row journaled before `ts` is in the head (else: a cut tail)
        row = next(iter(self._journal.entries(last - 1, 1)), None) if (last := self._journal.last_seq) else None
        return (row.seq, row.hash, ts) if row is not None else (0, GENESIS_HASH, ts)

    def _checkpoints_to_send(self, seq: int) -> list[Checkpoint]:
        """The checkpoints at rows up to `seq` not sent in this session yet: at a session's start only the newest
        (the floor keeps what it had; one lost costs its reader only the rows back to an older one)."""
        if self._checkpoint_sent is None:
            newest = self._journal.latest_checkpoint(seq)
            return [] if newest is None else [newest]
        return self._journal.checkpoints_between(self._checkpoint_sent + 1, seq)

    async def _publish_head(self, client: aiomqtt.Client, watcher: asyncio.Task[None]) -> None:
        """The retained ``head``: the journal's last row as it is now (seq 0 and 64 zeros when empty); before it,
        the ``checkpoints`` sealed at rows up to it and not sent yet."""
        seq, hash_, ts = await asyncio.to_thread(self._journal_head)
        key = self.settings.head_key_bytes
        sealed = await asyncio.to_thread(self._checkpoints_to_send, seq)
        messages = [checkpoint_message(self.topics, checkpoint, journal=self._journal_id, ts=ts, key=key)
                    for checkpoint in sealed]
        await self._publish(client, watcher, [*messages, head_message(self.topics, journal=self._journal_id, seq=seq,
                                                                      hash_=hash_, ts=ts, key=key)])
        if sealed:
            self._checkpoint_sent = sealed[-1].seq
        elif self._checkpoint_sent is None:
            self._checkpoint_sent = 0
        self._heads.sent(seq, asyncio.get_running_loop().time())

    def _on_message(self, client: aiomqtt.Client, message: aiomqtt.Message) -> None:
        if self.replay is not None and str(message.topic) == self.replay.topic:
            self.replay.offer(client, message.payload)
        elif self.verification is not None and str(message.topic) == self.verification.topic:
            self.verification.offer(client, message.payload)

    async def _publish(
        self, client: aiomqtt.Client, watcher: asyncio.Task[None], messages: Sequence[FeedMessage]
    ) -> None:
        """Publish all `messages` pipelined, in order; return when the broker acknowledged every one."""
        await publish_all(client, watcher, [(m.topic, m.encode(), m.qos, m.retain) for m in messages],
                          publish_timeout=self.settings.publish_timeout)
