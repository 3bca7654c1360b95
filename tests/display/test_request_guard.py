"""What the display refuses before it reads a request: a foreign Host (DNS rebinding), a message too deep or
too large, a bind beyond loopback without the pit token. Real clients against the real server on 127.0.0.1,
and the real page in Chromium told that evil.example is 127.0.0.1 (what a rebinding DNS server makes it)."""

from __future__ import annotations

import json
import logging

import aiohttp
import pytest
from playwright.async_api import async_playwright

from table_runtime.display import DisplayServer
from table_runtime.display.request_guard import MESSAGE_MAX_BYTES, MESSAGE_MAX_DEPTH, nesting_depth
from table_runtime.errors import ConfigError
from tests.display.conftest import CHROMIUM, CHROMIUM_ARGS, PIT_TOKEN
from tests.display.helpers import ask
from tests.display.scripted import ScriptedBackend

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


async def test_a_rebound_host_is_refused_everywhere_and_loopback_names_are_served(
    server: DisplayServer, http: aiohttp.ClientSession
) -> None:
    evil = f"evil.example:{server.port}"
    rebound = {"Host": evil, "Origin": f"http://{evil}"}  # what the attacker's page sends after rebinding
    for path in ("", "api/snapshot", "api/recall", "static/display.js", f"api/snapshot?pit={PIT_TOKEN}"):
        async with http.get(f"{server.url}{path}", headers=rebound) as response:
            assert response.status == 421, path
            text = await response.text()
            assert "evil.example" in text and "display.allowed_hosts" in text and "\n" not in text.strip()
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await http.ws_connect(f"{server.url}ws", headers=rebound)
    assert refused.value.status == 421
    for name in ("127.0.0.1", "localhost", "LOCALHOST."):
        host = f"{name}:{server.port}"
        async with http.get(f"{server.url}api/snapshot", headers={"Host": host, "Origin": f"http://{host}"}) as ok:
            assert ok.status == 200 and (await ok.json())["seq"] == 1234
        async with http.ws_connect(f"{server.url}ws", headers={"Host": host, "Origin": f"http://{host}"}) as ws:
            assert (await ws.receive_json(timeout=5))["role"] == "dealer"


async def test_a_configured_host_name_is_served(backend: ScriptedBackend, http: aiohttp.ClientSession) -> None:
    async with DisplayServer(backend, port=0, allowed_hosts=["table-t01.pit.example"]) as server:
        host = f"table-t01.pit.example:{server.port}"
        async with http.get(f"{server.url}api/snapshot", headers={"Host": host}) as response:
            assert response.status == 200
        async with http.get(f"{server.url}api/snapshot", headers={"Host": f"table-t02.pit.example:{server.port}"}) as r:
            assert r.status == 421


async def test_chromium_on_a_rebound_name_gets_421_and_on_localhost_the_page(server: DisplayServer) -> None:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP evil.example 127.0.0.1"])
        try:
            page = await browser.new_page()
            response = await page.goto(f"http://evil.example:{server.port}/")
            assert response is not None and response.status == 421
            assert "is not this display's name" in await page.inner_text("body")
            response = await page.goto(f"http://localhost:{server.port}/")
            assert response is not None and response.status == 200
            await page.wait_for_selector("body[data-connection='connected']", timeout=10_000)
        finally:
            await browser.close()


async def test_a_30000_deep_array_gets_an_error_and_the_screen_stays(
    server: DisplayServer, http: aiohttp.ClientSession
) -> None:
    deep = "[" * 30_000 + "]" * 30_000
    assert len(deep) <= MESSAGE_MAX_BYTES  # refused for its depth, not its size
    async with http.ws_connect(f"{server.url}ws") as ws:
        await ws.send_str(deep)
        while (reply := await ws.receive_json(timeout=5))["type"] != "error":
            pass
        assert reply["message"].startswith("message nested too deep")
        args = json.loads("[" * MESSAGE_MAX_DEPTH + "]" * MESSAGE_MAX_DEPTH)  # one level too deep in a command
        too_large = MESSAGE_MAX_BYTES + 1
        command = json.dumps({"type": "command", "name": "NEXT", "args": args})
        for text, refusal in ((command, "message nested too deep"),
                              ("x" * too_large, f"message too large: {too_large} characters")):
            await ws.send_str(text)
            while (reply := await ws.receive_json(timeout=5))["type"] != "error":
                pass
            assert reply["message"].startswith(refusal)
        # the same connection still works, and so does the server
        assert (await ask(ws, {"type": "command", "name": "NEXT"}))["ok"] is True
    async with http.get(f"{server.url}api/snapshot") as response:
        assert response.status == 200


async def test_the_depth_scan_counts_only_brackets_outside_strings() -> None:
    assert nesting_depth('{"a": [1, {"b": "[[[[{{{"}]}') == 3
    assert nesting_depth(r'["\"[[[", "\\", [[]]]') == 3
    assert nesting_depth("[" * 40, stop_above=32) == 33


async def test_a_bind_beyond_loopback_needs_the_pit_token(
    backend: ScriptedBackend, caplog: pytest.LogCaptureFixture
) -> None:
    for host in ("0.0.0.0", "::", "", "192.168.1.20", "table-t01.local"):
        with pytest.raises(ConfigError, match=r"^display\.pit_token: display\.host .* serves other machines"):
            DisplayServer(backend, host=host, port=0)
    for host in ("127.0.0.1", "::1", "localhost"):
        DisplayServer(backend, host=host, port=0)  # loopback: no token needed
    with caplog.at_level(logging.WARNING, logger="table_runtime.display.server"):
        async with DisplayServer(backend, host="0.0.0.0", port=0, pit_token=PIT_TOKEN):
            pass
    (warning,) = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert "listens beyond this machine on 0.0.0.0" in warning.getMessage()
    assert PIT_TOKEN not in caplog.text
