"""A pit screen on a floor under the floor bench's load: how long a table's row takes to show on the pit page.

One WebSocket client on a floor process's pit page (as a browser's page opens it, `/ws`), reading each overview
pushed; the first overview showing a table at seq S (or past it) shows row S. The wait is from the message's send
(the lean senders' clock) to that overview's arrival, so it covers the broker, the floor's inbox and fold, the
overview's encoding and the WebSocket, not the browser's render (bench/pit.py measures that, on fewer tables).
"""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp

from bench.feed import percentile


class PitWatch:
    """Follows the pit page on 127.0.0.1:`port` until cancelled, reconnecting when the floor restarts."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.shown: list[tuple[float, str, int]] = []  # (when, table, seq) each time a table's seq moved
        self._last: dict[str, int] = {}

    async def run(self) -> None:
        async with aiohttp.ClientSession() as session:
            while True:
                try:
                    async with session.ws_connect(f"http://127.0.0.1:{self.port}/ws", max_msg_size=0) as ws:
                        async for message in ws:
                            if message.type == aiohttp.WSMsgType.TEXT:
                                self._take(json.loads(message.data))
                except (aiohttp.ClientError, OSError):
                    pass
                await asyncio.sleep(0.2)

    def _take(self, message: dict[str, object]) -> None:
        overview = message.get("overview")
        if message.get("type") != "overview" or not isinstance(overview, dict):
            return
        now = time.time()
        for table in overview.get("tables") or ():
            table_id, seq = table.get("table_id"), table.get("seq")
            if isinstance(table_id, str) and isinstance(seq, int) and seq > self._last.get(table_id, 0):
                self._last[table_id] = seq
                self.shown.append((now, table_id, seq))

    def line(self, sent_at: dict[tuple[str, int], float], page: str) -> str:
        waits = [when - sent_at[(table_id, seq)] for when, table_id, seq in self.shown if (table_id, seq) in sent_at]
        p99 = percentile(waits, 0.99) * 1000 if waits else 0.0
        return f"floor_pit page={page} updates_seen={len(waits)} row_to_page_p99_ms={p99:.0f}"
