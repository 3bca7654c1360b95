"""Recall is gated: one at a time table-wide, a pit recall refused while another runs and for a while
after, the dealer's recall never refused for the pit's. Real WebSocket clients against the real server; a
backend whose recall blocks until the test lets it go, and counts how many run at once."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import aiohttp
import pytest

from table_runtime.display import DisplayServer
from table_runtime.display.recall_gate import RECALL_PIT_GAP_S
from tests.display.conftest import PIT_TOKEN
from tests.display.helpers import ManualClock, ask
from tests.display.scripted import ScriptedBackend, playing, recalled_round

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]
RECALL = {"type": "recall", "last": 10}


class CountingRecall(ScriptedBackend):
    """Recall blocks until `release` is set; `most` is the most recalls that ever ran at once."""

    def __init__(self) -> None:
        super().__init__(playing(), rounds=[recalled_round(16, 1100)])
        self.release = threading.Event()
        self.entered = threading.Semaphore(0)
        self._lock = threading.Lock()
        self.running = self.most = 0

    def recall(self, last: int) -> list[dict[str, Any]]:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
        self.entered.release()
        try:
            assert self.release.wait(20), "the test never released the recall"
            return super().recall(last)
        finally:
            with self._lock:
                self.running -= 1


async def _reply(ws: aiohttp.ClientWebSocketResponse, request: int) -> dict[str, Any]:
    while True:
        reply: dict[str, Any] = await ws.receive_json(timeout=10)
        if reply.get("request") == request:
            return reply


async def test_one_recall_at_a_time_and_the_dealer_is_never_refused_for_the_pit(
    http: aiohttp.ClientSession,
) -> None:
    backend = CountingRecall()
    clock = ManualClock()
    pit_url = f"ws?pit={PIT_TOKEN}"
    async with DisplayServer(backend, port=0, pit_token=PIT_TOKEN, clock=clock) as server:
        screens = [await http.ws_connect(server.url + pit_url) for _ in range(5)]
        dealer = await http.ws_connect(f"{server.url}ws")
        try:
            await screens[0].send_json({**RECALL, "request": 1})
            assert await asyncio.to_thread(backend.entered.acquire, True, 10)
            for screen in screens[1:]:  # the other pit screens are told at once, nothing queues
                refused = await ask(screen, RECALL)
                assert (refused["rounds"], refused["reason"]) == ([], "recall_busy")
                assert refused["message"] == "recall: the table is answering another recall; try again in a moment"
            await dealer.send_json({**RECALL, "request": 2})  # waits for the pit's recall, is not refused
            async with http.get(f"{server.url}api/snapshot") as response:  # the loop is free meanwhile
                assert response.status == 200
            backend.release.set()
            assert [r["round"] for r in (await _reply(screens[0], 1))["rounds"]] == [16]
            assert [r["round"] for r in (await _reply(dealer, 2))["rounds"]] == [16]
            assert backend.most == 1 and server.recall_gate.ran == 2

            # Just after a recall the pit waits (RECALL_PIT_GAP_S at least); the dealer does not.
            assert (await ask(screens[1], RECALL))["reason"] == "recall_busy"
            clock.now += 1.0  # the dealer's own screen asks once a second
            assert len((await ask(dealer, RECALL))["rounds"]) == 1
            clock.now += RECALL_PIT_GAP_S / 2
            assert (await ask(screens[3], RECALL))["reason"] == "recall_busy"
            clock.now += RECALL_PIT_GAP_S / 2
            assert len((await ask(screens[2], RECALL))["rounds"]) == 1
        finally:
            for ws in (*screens, dealer):
                await ws.close()
