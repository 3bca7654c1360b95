"""The table's side of a replay: answer the floor's signed request for journal rows (replay_messages.py).

A request whose MAC is wrong gets nothing but a log line (MQTT does not say who published; the MAC is the floor's
identity). One whose MAC is right but that cannot be served (another journal, past the journal's end, more than
`MAX_ROWS` rows, too many requests a minute, a request id already served) gets a ``ReplayRefused`` naming why. A
valid one gets its rows, as the same payloads as on ``events``, on ``reply_to``, then ``ReplayDone``. The rows are
read and encoded in a worker thread, never on the event loop, and one request is served at a time.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import aiomqtt

from table_runtime.errors import JournalError
from table_runtime.feed.messages import Topics, encode_payload, event_payload
from table_runtime.feed.pipeline import Publication, publish_all
from table_runtime.feed.replay_messages import (
    MAX_ROWS,
    ReplayRequest,
    ReplayRequestError,
    check_range,
    check_request,
    replay_done,
    replay_refused,
    reply_topic,
    request_topic,
)
from table_runtime.feed.request_tasks import RequestTasks
from table_runtime.journal import Journal

logger = logging.getLogger("table_runtime.feed.replay")

REQUESTS_PER_MINUTE = 10
CHUNK = 100  # rows in flight at a time
REMEMBERED_IDS = 1000


class ReplayResponder:
    """Serves the replay requests of one table on the publisher's connection."""

    def __init__(self, secret: bytes, journal: Journal, topics: Topics, *, publish_timeout: float = 10.0,
                 max_rows: int = MAX_ROWS, per_minute: int = REQUESTS_PER_MINUTE,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._secret = secret
        self._journal = journal
        self._journal_id = journal.journal_id
        self._topics = topics
        self._timeout = publish_timeout
        self._max_rows = max_rows
        self._per_minute = per_minute
        self._monotonic = monotonic
        self._accepted: collections.deque[float] = collections.deque()  # when MAC-valid requests came
        self._served_ids: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._lock = asyncio.Lock()
        self._tasks = RequestTasks()
        self.served = 0
        self.refused = 0
        self.ignored = 0
        self._ignored_logged = -float("inf")

    @property
    def topic(self) -> str:
        return request_topic(self._topics.prefix, self._topics.table_id)

    def offer(self, client: aiomqtt.Client, payload: object) -> None:
        """A message on the request topic: check and serve it in a task of its own."""
        self._tasks.start(self._handle(client, payload))

    async def close(self) -> None:
        """Stop serving (the connection is going): requests not finished are the floor's to ask again."""
        await self._tasks.close()

    async def _handle(self, client: aiomqtt.Client, raw: object) -> None:
        try:
            await self._serve(client, raw)
        except (aiomqtt.MqttError, TimeoutError) as error:
            logger.warning("replay: answer on %s not delivered: %s", self.topic, error)
        except JournalError as error:
            logger.warning("replay: journal unreadable for a request on %s: %s", self.topic, error)

    async def _serve(self, client: aiomqtt.Client, raw: object) -> None:
        try:
            payload = json.loads(raw) if isinstance(raw, (bytes, bytearray, str)) else None
        except ValueError:
            payload = None
        try:
            request = check_request(self._secret, payload, prefix=self._topics.prefix)
        except ReplayRequestError as error:
            if not error.mac_ok:
                self.ignored += 1
                now = self._monotonic()
                if now - self._ignored_logged >= 10.0:  # a flood of forgeries is one line per 10 s in the log
                    self._ignored_logged = now
                    logger.warning("replay: message on %s ignored: %s (%d ignored so far)", self.topic,
                                   error.reason, self.ignored)
                return
            floor = payload.get("floor_id") if isinstance(payload, dict) else None
            target = reply_topic(self._topics.prefix, floor) if isinstance(floor, str) and _usable(floor) else None
            await self._refuse(client, target, error.request_id or "", error.reason)
            return
        reason = self._admit(request)
        if reason is not None:
            await self._refuse(client, request.reply_to, request.request_id, reason)
            return
        async with self._lock:
            last_seq = await asyncio.to_thread(lambda: self._journal.last_seq)
            reason = check_range(request, journal=self._journal_id, last_seq=last_seq,
                                 max_rows=self._max_rows)
            if reason is not None:
                await self._refuse(client, request.reply_to, request.request_id, reason)
                return
            rows = await asyncio.to_thread(self._encode_rows, request)
            if len(rows) != request.rows:
                await self._refuse(client, request.reply_to, request.request_id,
                                   f"rows {request.from_seq}..{request.to_seq}: the journal holds {len(rows)} of them")
                return
            for start in range(0, len(rows), CHUNK):
                await publish_all(client, None, rows[start:start + CHUNK], publish_timeout=self._timeout)
            await self._send(client, request.reply_to, replay_done(request))
            self.served += 1
            logger.info("replay: rows %d..%d of journal %s sent to %s (request %s)", request.from_seq,
                        request.to_seq, request.journal, request.reply_to, request.request_id)

    def _admit(self, request: ReplayRequest) -> str | None:
        """The rate limit and the ids already served: why a signed request is not taken, if it is not."""
        if request.request_id in self._served_ids:
            return f"request_id {request.request_id} was already answered"
        now = self._monotonic()
        while self._accepted and now - self._accepted[0] >= 60.0:
            self._accepted.popleft()
        if len(self._accepted) >= self._per_minute:
            return f"rate limit: at most {self._per_minute} requests a minute"
        self._accepted.append(now)
        self._served_ids[request.request_id] = None
        while len(self._served_ids) > REMEMBERED_IDS:
            self._served_ids.popitem(last=False)
        return None

    def _encode_rows(self, request: ReplayRequest) -> list[Publication]:
        """The rows' ``events`` payloads, encoded (in a worker thread)."""
        table_id, journal_id = self._topics.table_id, self._journal_id
        return [(request.reply_to, encode_payload(event_payload(table_id, journal_id, entry)), 1, False)
                for entry in self._journal.entries(request.from_seq - 1, request.rows)]

    async def _refuse(self, client: aiomqtt.Client, target: str | None, request_id: str, reason: str) -> None:
        self.refused += 1
        logger.warning("replay: request %s on %s refused: %s", request_id or "(no id)", self.topic, reason)
        if target is not None:
            await self._send(client, target, replay_refused(request_id, reason))

    async def _send(self, client: aiomqtt.Client, topic: str, message: dict[str, Any]) -> None:
        await publish_all(client, None, [(topic, encode_payload(message), 1, False)], publish_timeout=self._timeout)


def _usable(floor_id: object) -> bool:
    return isinstance(floor_id, str) and bool(floor_id) and not any(char in floor_id for char in "+#/\0")
