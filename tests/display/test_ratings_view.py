"""The supervisor's view of the rated players, over the display's WebSocket on a real controller and the runtime's
rating watch: the pit sees it, a dealer's screen only with the supervisor's PIN; the advice on a session reaches
the pit's screen and the view, never the dealer's screen."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from table_runtime.display import DisplayServer
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.runtime.rating_watch import RatingWatch
from tests.display.conftest import PIT_TOKEN, SUPERVISOR_PIN
from tests.display.helpers import ControllerBackend, ask
from tests.table_runtime.rating.rated_table import LOWERED, RAMP, RatedTable, play_ramp

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(90)]


@pytest_asyncio.fixture(loop_scope="session")
async def rated(tmp_path: Path) -> AsyncIterator[tuple[RatedTable, DisplayServer]]:
    table = RatedTable(tmp_path)
    watch = RatingWatch(table.controller, settings=LOWERED, poll_s=0.01)
    running = asyncio.create_task(watch.run())
    try:
        async with asyncio.timeout(30):
            await watch.caught_up.wait()
        async with DisplayServer(ControllerBackend(table.controller, watch), port=0, supervisor_pin=SUPERVISOR_PIN,
                                 pit_token=PIT_TOKEN) as server:
            yield table, server
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        table.close()


async def _first_snapshot(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = await ws.receive_json(timeout=5)
        if message["type"] == "snapshot":
            return dict(message["snapshot"])


async def test_the_rated_players_are_the_supervisor_s_and_the_pit_s_to_see(
        rated: tuple[RatedTable, DisplayServer], http: aiohttp.ClientSession) -> None:
    table, server = rated
    table.press("SEAT", box=1, player="A")
    play_ramp(table, RAMP)  # his stake climbs with the count: advised (thresholds lowered to six rounds)
    async with asyncio.timeout(30):
        while not any(a["kind"] == AlarmKind.ADVANTAGE_PLAY for a in table.controller.snapshot()["alarms"]):
            await asyncio.sleep(0.02)
    (advice,) = [a for a in table.controller.snapshot()["alarms"] if a["kind"] == AlarmKind.ADVANTAGE_PLAY]

    async with http.ws_connect(f"{server.url}ws") as dealer, http.ws_connect(f"{server.url}ws?pit={PIT_TOKEN}") as pit:
        assert [a["id"] for a in (await _first_snapshot(pit))["alarms"]] == [advice["id"]]
        assert (await _first_snapshot(dealer))["alarms"] == []  # the dealer's screen leaves the advice out
        refused = await ask(dealer, {"type": "ratings"})
        assert (refused["ok"], refused["reason"]) == (False, "wrong_pin") and "sessions" not in refused
        reply = await ask(dealer, {"type": "ratings", "pin": SUPERVISOR_PIN})
        assert reply["ok"] is True and [flag["id"] for flag in reply["flags"]] == [advice["id"]]
        (seated,) = reply["sessions"]
        assert (seated["player"], seated["box"], seated["behind"], seated["rounds"], seated["handle_cents"]) == (
            "A", 1, False, 6, sum(RAMP))
        assert seated["theo_skill_cents"] >= seated["theo_cents"] > 0 and seated["seconds_played"] >= 0
        assert (await ask(pit, {"type": "ratings"}))["sessions"] == reply["sessions"]  # the pit, without a PIN
    async with http.get(f"{server.url}api/snapshot") as response:
        assert (await response.json())["alarms"] == []
    async with http.get(f"{server.url}api/snapshot?pit={PIT_TOKEN}") as response:
        assert [a["kind"] for a in (await response.json())["alarms"]] == [AlarmKind.ADVANTAGE_PLAY]
