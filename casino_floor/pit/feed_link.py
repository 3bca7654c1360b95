"""The pit page's link to the tables' feed: every table's messages, folded into the view as they come.

Subscribes to ``<prefix>/tables/+/+`` (status, state, events, alarms, rounds,
head, ratings of every table), hands each JSON message (each row of an ``events`` message of
version 2, feed/row_batches.py) to the view's ``apply`` and tells
the page which table changed. The connection lives as long as `run()`;
a lost or unreachable broker is retried with a capped, jittered backoff, and
only cancelling `run()` ends it. A payload that is not a JSON object is one log
line, never a stop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import ssl
from collections.abc import Callable
from typing import Any, Protocol

import aiomqtt

from casino_floor.bounds import BIGINT_MAX
from casino_floor.ingest import MAX_STATE_AHEAD
from casino_floor.session_refusal import fail_fast_on_refusal
from table_runtime.feed.backoff import Backoff
from table_runtime.feed.row_batches import RowsMessageError, event_rows
from table_runtime.feed.settings import BrokerAddress

log = logging.getLogger(__name__)


class FoldsFeed(Protocol):
    """A read model of the floor: folds one feed message's payloads (an ``events`` message's rows, or the message
    alone), says which tables they changed."""

    def apply_all(self, topic_name: str, payloads: list[dict[str, Any]]) -> set[str]: ...


class FeedLink:
    """Owns one subscription to every table's feed under `prefix`; `run()` until cancelled."""

    def __init__(
        self,
        broker: BrokerAddress,
        view: FoldsFeed,
        on_change: Callable[[str], None],
        *,
        prefix: str = "casino",
        username: str | None = None,
        password: str | None = None,
        tls_context: ssl.SSLContext | None = None,
        follows: Callable[[str], bool] = lambda table_id: True,
        rng: random.Random | None = None,
    ) -> None:
        self.broker = broker
        self.filter = f"{prefix}/tables/+/+"
        self._view = view
        self._on_change = on_change
        self._username = username
        self._password = password
        self._tls = tls_context
        self._follows = follows
        self._backoff = Backoff(0.1, 5.0, rng or random.Random())
        self.subscribed = asyncio.Event()
        self.received = 0
        self._known: dict[str, int] = {}  # per table, the highest seq of its rows and heads heard

    async def run(self) -> None:
        while True:
            try:
                async with fail_fast_on_refusal(aiomqtt.Client(
                        self.broker.host, self.broker.port, username=self._username, password=self._password,
                        tls_context=self._tls, keepalive=15)) as client:
                    await client.subscribe(self.filter, qos=1)
                    self._backoff.reset()
                    self.subscribed.set()
                    log.info("pit: following %s on %s", self.filter, self.broker.url)
                    async for message in client.messages:
                        self.fold(str(message.topic), message.payload)
            except aiomqtt.MqttError as error:
                self.subscribed.clear()
                delay = self._backoff.next_delay()
                log.warning("pit: broker %s: %s; retrying in %.1f s", self.broker.url, error, delay)
                await asyncio.sleep(delay)

    def fold(self, topic: str, raw: object) -> None:
        """One message off the broker into the view; a change reaches the page."""
        self.received += 1
        try:
            payload = json.loads(raw if isinstance(raw, (bytes, bytearray, str)) else b"")
        except (ValueError, RecursionError):
            payload = None
        if not isinstance(payload, dict):
            log.warning("pit: %s: not a JSON object, skipped", topic)
            return
        if not self._follows(str(payload.get("table_id", payload.get("table", "")))):  # ratings name "table"
            return  # another floor process's part of the tables
        reason = self._refusal(topic, payload)
        if reason is not None:  # the service beside the page sets such a message aside (casino_floor/ingest.py)
            log.warning("pit: %s: skipped: %s", topic, reason)
            return
        name = topic.rsplit("/", 1)[-1]
        try:  # an ``events`` message of version 2 holds many rows: each folded as its version 1 row
            rows = event_rows(payload) if name == "events" else [payload]
        except RowsMessageError as error:
            log.warning("pit: %s: skipped: %s", topic, error)
            return
        for table in sorted(self._view.apply_all(name, rows)):
            self._on_change(table)

    def _refusal(self, topic: str, payload: dict[str, Any]) -> str | None:
        """Why the page (on a session of its own) does not show a message: it names another table than its topic,
        its seq is past ``bigint``, or it is a state far past every row and head heard of its table (it would hide
        every later state)."""
        levels = topic.split("/")
        table, name = levels[-2], levels[-1]
        if name == "ratings":
            return None
        if payload.get("table_id") != table:
            return f"it names table {str(payload.get('table_id'))[:40]!r}"
        seq = payload.get("seq", 0)
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= BIGINT_MAX:
            return f"seq {str(seq)[:40]} is not a journal seq"
        if name in ("events", "head"):
            self._known[table] = max(self._known.get(table, 0), seq)
        elif name == "state" and seq > self._known.get(table, 0) + MAX_STATE_AHEAD:
            return f"the state's seq {seq} is past the last row heard ({self._known.get(table, 0)})"
        return None
