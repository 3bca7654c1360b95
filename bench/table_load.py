"""The tables' side of the floor bench without the tables' CPU: each table's real feed, sent by a lean sender.

On a floor every table publishes from its own Pi; on this 2-core machine 100 real `FeedPublisher`s (paho and
aiomqtt, about 200 us of CPU a row) would take the cores the floor is measured on. Here each table's messages
are made beforehand by the feed's own builders (`messages_for_entry`, `status_message`, `head_message`) from
the table's real journal, so the bytes are those the table would send, and sent at a set rate over the table's
own MQTT connection by a minimal MQTT 3.1.1 QoS 1 sender: one write per message, PUBACKs parsed in bulk. Like the
publisher it sends in order, resends what was not acknowledged after a reconnection (at least once), and
resends the last `RESEND` acknowledged messages too when a table restarts.

Not the product's publisher: the publisher is benched by bench/feed.py and bench/floor.py ``--publishers real``.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
import time
from collections import deque
from dataclasses import dataclass, field

from table_runtime.feed.messages import Topics, head_message, status_message
from table_runtime.feed.row_batches import messages_for_entries
from table_runtime.journal import Journal

RESEND = 100  # messages before the acknowledged end sent again when a table restarts (the publisher's default)
HEAD_EVERY = 1.0  # seconds between the retained heads of a table


def _length(value: int) -> bytes:
    out = bytearray()
    while True:
        value, digit = divmod(value, 128)
        out.append(digit | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("!H", len(data)) + data


def connect_packet(client_id: str) -> bytes:
    body = _string("MQTT") + bytes([4, 0x02]) + struct.pack("!H", 0) + _string(client_id)  # clean, no keepalive
    return b"\x10" + _length(len(body)) + body


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One QoS 1 PUBLISH without its packet id: `head` = fixed header + topic, then the id, then `payload`."""

    seq: int  # the last journal row it carries (0: a status or head)
    head: bytes
    payload: bytes
    first: int = 0  # the first journal row it carries (a JournalRows message carries first..seq)

    @classmethod
    def of(cls, seq: int, topic: str, payload: bytes, *, retain: bool = False, first: int = 0) -> Outgoing:
        variable = _string(topic)
        return cls(seq, bytes([0x32 | (1 if retain else 0)]) + _length(len(variable) + 2 + len(payload)) + variable,
                   payload, first or seq)


def table_messages(journal: Journal, topics: Topics, rows_per_message: int = 1) -> list[Outgoing]:
    """Every message the table's publisher sends for its journal: status, then the rows' (the publisher's own
    grouping, `messages_for_entries`: `rows_per_message` rows an ``events`` message, as when that many are pending
    at each send), a head each second of rows (by their ts), and a final head."""
    out = [Outgoing.of(0, topics.status, status_message(topics, "online", journal=journal.journal_id, seq=0,
                                                        ts=time.time(), reason=None).encode(), retain=True)]
    next_head: float | None = None
    last = None
    rows = list(journal.entries())
    by_seq = {entry.seq: entry for entry in rows}
    groups = messages_for_entries(topics, rows, journal.journal_id, rows_per_message=rows_per_message)
    first = 1
    for messages, seq in groups:
        for message in messages:
            out.append(Outgoing.of(seq, message.topic, message.encode(), first=first))
        first = seq + 1
        entry = last = by_seq[seq]
        if next_head is None:
            next_head = entry.ts + HEAD_EVERY
        if entry.ts >= next_head:
            out.append(_head(topics, journal.journal_id, entry.seq, entry.hash))
            next_head = entry.ts + HEAD_EVERY
    if last is not None:
        out.append(_head(topics, journal.journal_id, last.seq, last.hash))
    return out


def _head(topics: Topics, journal_id: str, seq: int, hash_: str) -> Outgoing:
    message = head_message(topics, journal=journal_id, seq=seq, hash_=hash_, ts=time.time())
    return Outgoing.of(0, message.topic, message.encode(), retain=True)


@dataclass
class TableSender:
    """One table's connection: sends `messages[released:]` as they are released, in order, QoS 1."""

    table_id: str
    messages: list[Outgoing]
    host: str
    port: int
    released: int = 0  # messages the table has produced so far (the rate)
    acked: int = 0  # every message before this index is acknowledged
    sent_at: dict[int, float] = field(default_factory=dict)  # journal seq -> when its events message was sent
    connections: int = 0
    _next: int = 0
    _inflight: deque[tuple[int, int]] = field(default_factory=deque)  # (packet id, index), in order
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _restart: asyncio.Event = field(default_factory=asyncio.Event)

    def release(self, count: int) -> None:
        self.released = min(len(self.messages), self.released + count)
        self._wake.set()

    def restart(self) -> None:
        """Drop the connection as a table restarting; the next one resends the last `RESEND` messages too."""
        self._restart.set()
        self._wake.set()

    @property
    def done(self) -> bool:
        return self.acked >= len(self.messages)

    async def run(self) -> None:
        """Send until every message is acknowledged; reconnect (and resend) on any loss."""
        delay = 0.05
        while not self.done:
            try:
                await self._session()
                delay = 0.05
            except (OSError, asyncio.IncompleteReadError, ConnectionError):
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)

    async def _session(self) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        try:
            writer.write(connect_packet(f"bench-table-{self.table_id}"))
            connack = await reader.readexactly(4)
            if connack[0] != 0x20 or connack[3] != 0:
                raise ConnectionError(f"refused: {connack!r}")
            self.connections += 1
            restarted, self._restart = self._restart.is_set(), asyncio.Event()
            self._next = max(0, self.acked - RESEND) if restarted else self.acked
            self._inflight.clear()
            acks = asyncio.create_task(self._read_acks(reader))
            try:
                while not self.done:
                    if self._restart.is_set():
                        return
                    self._send(writer)
                    await writer.drain()
                    self._wake.clear()
                    waker = asyncio.ensure_future(self._wake.wait())
                    await asyncio.wait((waker, acks), return_when=asyncio.FIRST_COMPLETED)
                    waker.cancel()
                    if acks.done():
                        acks.result()
                        raise ConnectionError("the broker closed the connection")
            finally:
                acks.cancel()
                with contextlib.suppress(asyncio.CancelledError, OSError, asyncio.IncompleteReadError,
                                         ConnectionError):
                    await acks
        finally:
            writer.transport.abort()

    def _send(self, writer: asyncio.StreamWriter) -> None:
        now = time.time()
        while self._next < self.released:
            index = self._next
            message = self.messages[index]
            packet_id = index % 65535 + 1
            writer.write(b"".join((message.head, struct.pack("!H", packet_id), message.payload)))
            self._inflight.append((packet_id, index))
            if message.seq and message.seq not in self.sent_at:
                for seq in range(message.first, message.seq + 1):
                    self.sent_at[seq] = now
            self._next += 1

    async def _read_acks(self, reader: asyncio.StreamReader) -> None:
        buffer = b""
        while True:
            data = await reader.read(65536)
            if not data:
                raise ConnectionError("connection closed")
            buffer += data
            usable = len(buffer) - len(buffer) % 4
            for offset in range(0, usable, 4):
                kind, _, packet_id = struct.unpack_from("!BBH", buffer, offset)
                if kind != 0x40:
                    raise ConnectionError(f"unexpected packet 0x{kind:02x}")
                self._ack(packet_id)
            buffer = buffer[usable:]
            if self.done:  # else only a release wakes the sender: no wake-up per acknowledgement
                self._wake.set()

    def _ack(self, packet_id: int) -> None:
        while self._inflight:
            expected, index = self._inflight.popleft()
            if expected == packet_id:
                self.acked = max(self.acked, index + 1)
                return
