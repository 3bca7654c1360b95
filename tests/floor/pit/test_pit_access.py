"""Who may read the pit page: the pit token, a Host of this page, a loopback bind without a token."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import aiohttp
import pytest
import pytest_asyncio

from casino_floor.config import FloorConfig, config_from_mapping
from casino_floor.pit import FloorPicture, PitServer
from casino_floor.pit.serve import run_pit
from table_runtime.errors import ConfigError

TOKEN = "a-pit-token-long-enough"


@pytest_asyncio.fixture
async def server() -> AsyncIterator[PitServer]:
    async with PitServer(FloorPicture(), port=0, token=TOKEN, allowed_hosts=["pit.casino.example"]) as running:
        yield running


async def status(server: PitServer, path: str, **headers: str) -> int:
    async with aiohttp.ClientSession() as session, \
            session.get(f"http://127.0.0.1:{server.port}{path}", headers=headers) as response:  # fmt: skip
        return response.status


async def test_the_page_its_api_and_its_socket_need_the_token(server: PitServer) -> None:
    assert await status(server, f"/?pit={TOKEN}") == 200
    assert await status(server, f"/table/T1?pit={TOKEN}") == 200
    assert await status(server, f"/api/overview?pit={TOKEN}") == 200
    for path in ("/", "/table/T1", "/api/overview", "/ws", "/?pit=wrong-token-of-the-same-size"):
        assert await status(server, path) == 403, path


async def test_a_host_not_of_this_page_is_refused_even_with_the_token(server: PitServer) -> None:
    assert await status(server, f"/?pit={TOKEN}", Host="pit.casino.example:8090") == 200
    assert await status(server, f"/?pit={TOKEN}", Host="localhost") == 200
    assert await status(server, f"/?pit={TOKEN}", Host="rebound.attacker.example") == 421
    assert await status(server, "/static/pit.js", Host="rebound.attacker.example") == 421
    assert await status(server, f"/?pit={TOKEN}", Origin="http://rebound.attacker.example") == 403


async def test_the_socket_refuses_whatever_a_page_sends(server: PitServer) -> None:
    address = f"ws://127.0.0.1:{server.port}/ws?pit={TOKEN}"
    async with aiohttp.ClientSession() as session, session.ws_connect(address) as ws:
        hello = await ws.receive_json(timeout=5)
        assert hello["type"] == "hello"
        overview = await ws.receive_json(timeout=5)
        assert overview == {"type": "overview", "overview": FloorPicture().overview()}
        await ws.send_json({"type": "command", "name": "VOID"})
        assert (await ws.receive_json(timeout=5))["reason"] == "read_only"


async def test_without_a_token_the_page_binds_to_loopback_only() -> None:
    async with PitServer(FloorPicture(), port=0) as open_locally:
        assert await status(open_locally, "/") == 200
    with pytest.raises(ConfigError, match=r"pit\.host"):
        PitServer(FloorPicture(), host="0.0.0.0", port=0)
    with pytest.raises(ConfigError, match=r"pit\.token"):
        PitServer(FloorPicture(), port=0, token="short")


def test_the_floor_configuration_names_the_hosts_of_the_pit_page() -> None:
    def config(pit: dict[str, object]) -> FloorConfig:
        return config_from_mapping({"floor": {"dsn": "postgresql://floor@127.0.0.1:5432/floor"},
                                    "brokers": [{"url": "mqtt://127.0.0.1:1883"}], "pit": pit}, environ={})

    loaded = config({"bind": "0.0.0.0:8090", "allowed_hosts": ["Pit.Casino.Local", "10.0.0.5", "[fe80::1]"]})
    assert loaded.pit_allowed_hosts == ("pit.casino.local", "10.0.0.5", "fe80::1")
    with pytest.raises(ConfigError, match=r"pit\.allowed_hosts"):
        config({"allowed_hosts": ["pit.casino.local:8090"]})
    with pytest.raises(ConfigError, match=r"pit\.allowed_hosts"):
        config({"allowed_hosts": "pit.casino.local"})


async def test_a_pit_page_that_cannot_listen_does_not_stop_the_floor_service(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = config_from_mapping({"floor": {"dsn": "postgresql://floor@127.0.0.1:5432/floor"},
                                      "brokers": [{"url": "mqtt://127.0.0.1:1883"}],
                                      "pit": {"bind": f"127.0.0.1:{port}"}}, environ={})  # fmt: skip
        async with asyncio.timeout(10):
            await run_pit(config)  # returns: `table-floor run` goes on with the service alone
    assert f"pit page: cannot serve on 127.0.0.1:{port}" in caplog.text
