"""The page survives a controller restart; a stalled screen holds up neither the runtime nor the other screens."""

from __future__ import annotations

import asyncio
import base64
import os
import re
import socket
import time

import pytest
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from tests.display.conftest import screenshot
from tests.display.helpers import open_display
from tests.display.scripted import ScriptedBackend, settlement

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


@pytest.mark.slow
async def test_page_reconnects_after_the_server_restarts_on_the_same_port(
    page: Page, backend: ScriptedBackend
) -> None:
    async with DisplayServer(backend, port=0) as first:
        port = first.port
        await open_display(page, first)
        await expect(page.locator("body")).to_have_attribute("data-seq", "1234")

    body = page.locator("body")
    await expect(body).to_have_attribute("data-connection", "disconnected")
    await expect(page.locator("#connection-banner")).to_have_text("Déconnecté du contrôleur — nouvelle tentative…")
    await expect(page.locator("#actions [data-command='NEXT']")).to_be_disabled()
    await screenshot(page, "disconnected-fr")
    await asyncio.sleep(1.5)  # let the page fail a few reconnects so its backoff grows

    backend.current = settlement()  # the table moved on while the display was down
    async with DisplayServer(backend, port=port) as second:
        await expect(body).to_have_attribute("data-connection", "connected", timeout=15_000)
        await expect(body).to_have_attribute("data-seq", "1260")
        await expect(page.locator("#connection-banner")).to_be_hidden()
        await expect(page.locator("#actions [data-command='CONFIRM']")).to_be_enabled()
        assert second.screens == 1


async def _stalled_websocket(port: int) -> socket.socket:
    """A WebSocket client that completes the handshake and then never reads again."""
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await loop.sock_connect(sock, ("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    await loop.sock_sendall(sock, request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += await loop.sock_recv(sock, 1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


async def test_stalled_screen_is_dropped_and_others_keep_up(page: Page, backend: ScriptedBackend) -> None:
    async with DisplayServer(backend, port=0, send_timeout=0.5) as server:
        await open_display(page, server)
        stalled = await _stalled_websocket(server.port)
        try:
            async with asyncio.timeout(5):
                while server.screens < 2:
                    await asyncio.sleep(0.01)
            # Keep publishing, as a busy table does, until the stalled screen has been dropped:
            # far more than the socket buffers hold, so its sends block and time out.
            snapshot = settlement(seq=10_000)
            async with asyncio.timeout(20):
                while server.screens > 1:
                    snapshot["seq"] += 1
                    await server.publish(snapshot)
                    await asyncio.sleep(0 if snapshot["seq"] % 10 else 0.001)
            assert snapshot["seq"] > 10_100
            await expect(page.locator("body")).to_have_attribute("data-seq", str(snapshot["seq"]))
            # The page is still live after the stalled screen was dropped.
            snapshot["seq"] += 1
            await server.publish(snapshot)
            await expect(page.locator("body")).to_have_attribute("data-seq", str(snapshot["seq"]))
        finally:
            stalled.close()


async def test_a_frozen_controller_shows_as_disconnected_then_recovers(page: Page, backend: ScriptedBackend) -> None:
    async with DisplayServer(backend, port=0, keepalive=0.2) as server:
        await open_display(page, server)
        await expect(page.locator("body")).not_to_have_attribute("data-watchdog-trips", re.compile("."))
        # Idle but alive: keepalives keep the page connected well past three keepalive periods.
        await asyncio.sleep(1.0)
        await expect(page.locator("body")).to_have_attribute("data-connection", "connected")
        # Freeze the controller's event loop (as a hung runtime would) for several keepalive periods.
        time.sleep(1.5)  # noqa: ASYNC251 - blocking the loop is the point: a hung runtime
        await expect(page.locator("body")).to_have_attribute("data-watchdog-trips", re.compile(r"^[1-9]"))
        await expect(page.locator("body")).to_have_attribute("data-connection", "connected", timeout=15_000)
        await expect(page.locator("body")).to_have_attribute("data-seq", "1234")
