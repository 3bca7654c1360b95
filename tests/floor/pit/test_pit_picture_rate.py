"""A busy floor changes faster than a page can show: a pit screen gets at most one picture per interval, the
newest, so the floor does not draw and encode the whole overview for every message of every table."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from casino_floor.pit import FloorPicture, PitServer
from casino_floor.pit.server import _Screen


async def test_changes_within_the_interval_wait_and_only_the_newest_is_sent(monkeypatch: pytest.MonkeyPatch
                                                                           ) -> None:
    monkeypatch.setattr(_Screen, "picture_interval", 60.0)  # nothing else may leave within the test
    picture = FloorPicture()
    async with PitServer(picture, port=0, token=None) as server, aiohttp.ClientSession() as session:
        base = server.url.split("?")[0].rstrip("/")
        async with session.ws_connect(f"{base}/ws") as ws:
            assert json.loads((await ws.receive()).data)["type"] == "hello"
            first = json.loads((await ws.receive()).data)
            assert first["type"] == "overview" and first["overview"]["tables"] == []
            for seq in range(1, 51):  # fifty changes of a table right after the first picture
                picture.apply("head", {"table_id": "T1", "journal": "j", "seq": seq, "hash": "0" * 64, "ts": 1.0})
                server.changed("T1")
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.3):
                    await ws.receive()
            (screen,) = server._screens
            pending = screen.take_picture()  # what waits for the interval to end: the newest picture, once
            assert pending is not None and json.loads(pending)["overview"]["tables"][0]["seq"] == 50
