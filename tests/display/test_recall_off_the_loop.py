"""Recall replays the journal, which takes longer as the journal grows: it must not stop the event loop.

A backend whose recall blocks until the test lets it go: meanwhile the server
still answers the snapshot, and the recall reply arrives once it is released.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import aiohttp
import pytest

from table_runtime.display import DisplayServer
from tests.display.scripted import ScriptedBackend, playing, recalled_round

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


class SlowRecall(ScriptedBackend):
    """Recall blocks (as a long journal replay does) until `release` is set."""

    def __init__(self) -> None:
        super().__init__(playing(), rounds=[recalled_round(16, 1100)])
        self.release = threading.Event()
        self.entered = threading.Event()

    def recall(self, last: int) -> list[dict[str, Any]]:
        self.entered.set()
        assert self.release.wait(20), "the test never released the recall"
        return super().recall(last)


async def test_a_long_recall_leaves_the_server_answering() -> None:
    backend = SlowRecall()
    async with (
        DisplayServer(backend, port=0) as server,
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http,
        http.ws_connect(f"{server.url}ws") as ws,
    ):
        await ws.send_json({"type": "recall", "last": 10, "request": 5})
        assert await asyncio.to_thread(backend.entered.wait, 10)
        async with http.get(f"{server.url}api/snapshot") as response:  # the loop is free while recall runs
            assert response.status == 200 and (await response.json())["phase"] == "playing"
        backend.release.set()
        while True:
            reply: dict[str, Any] = await ws.receive_json(timeout=10)
            if reply.get("request") == 5:
                break
        assert reply["type"] == "recall" and [r["round"] for r in reply["rounds"]] == [16]
