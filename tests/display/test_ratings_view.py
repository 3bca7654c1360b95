"""The supervisor's view of the rated players, over the display's WebSocket and on the page in Chromium, on a real
controller and the runtime's rating watch: the pit sees it, a dealer's screen only with the supervisor's PIN; the
advice on a session reaches the pit's screen and the view, never the dealer's screen."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.runtime.rating_watch import RatingWatch
from tests.display.conftest import PIT_TOKEN, SUPERVISOR_PIN, screenshot
from tests.display.helpers import ControllerBackend, ask, open_display
from tests.table_runtime.rating.rated_table import LOWERED, RAMP, RatedTable, play_ramp

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(90)]


@pytest_asyncio.fixture(loop_scope="session")
async def rated(tmp_path: Path) -> AsyncIterator[tuple[RatedTable, DisplayServer]]:
    table = RatedTable(tmp_path)
    watch = RatingWatch(table.controller, settings=LOWERED, poll_s=0.01, nice=0)  # not starved here
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


async def seated_and_ramped(table: RatedTable) -> None:
    """Player A seated at box 1, then the ramp played: one step of the table, as the rating watch keeps stepping
    (a change made beside its step would be refused: the writer's StepOrderError)."""
    def play() -> None:
        table.press("SEAT", box=1, player="A")
        play_ramp(table, RAMP)

    await table.controller.step(play)


async def _first_snapshot(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = await ws.receive_json(timeout=5)
        if message["type"] == "snapshot":
            return dict(message["snapshot"])


async def test_the_rated_players_are_the_supervisor_s_and_the_pit_s_to_see(
        rated: tuple[RatedTable, DisplayServer], http: aiohttp.ClientSession) -> None:
    table, server = rated
    await seated_and_ramped(table)  # his stake climbs with the count: advised (thresholds lowered to six rounds)
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


async def test_the_supervisor_opens_the_rated_players_with_his_pin_in_french_and_english(
        rated: tuple[RatedTable, DisplayServer], page: Page) -> None:
    table, server = rated
    await seated_and_ramped(table)
    async with asyncio.timeout(30):
        while not any(a["kind"] == AlarmKind.ADVANTAGE_PLAY for a in table.controller.snapshot()["alarms"]):
            await asyncio.sleep(0.02)
    await open_display(page, server)
    await page.locator("#lang-fr").click()
    await server.publish(table.controller.snapshot())
    await expect(page.locator("#alarms .alarm")).to_have_count(0)  # the advice is not the dealer's to see
    await page.locator("#ratings-open").click()
    dialog = page.locator("#pin-dialog")
    await expect(dialog.locator("h2")).to_have_text("Joueurs notés — code superviseur")
    for key in "1357":
        await dialog.locator(f"[data-key='{key}']").click()
    await dialog.locator("#pin-send").click()
    await expect(dialog.locator("#pin-error")).to_contain_text("code superviseur faux")
    await expect(page.locator("#ratings-dialog")).to_be_hidden()
    for key in SUPERVISOR_PIN:
        await dialog.locator(f"[data-key='{key}']").click()
    await dialog.locator("#pin-send").click()
    ratings = page.locator("#ratings-dialog")
    await expect(ratings).to_be_visible()
    await expect(ratings.locator("h2")).to_have_text("Joueurs notés — superviseur")
    row = ratings.locator("#ratings-rows tr[data-box='1']")
    await expect(row.locator(".ratings-player")).to_have_text("A")
    await expect(row.locator(".ratings-handle")).to_contain_text("200,00")  # 10 + 12 + 17 + 27 + 52 + 82 euros
    await expect(ratings.locator(".ratings-flag")).to_have_count(1)
    await expect(ratings.locator(".ratings-flag")).to_contain_text("Avis, case 1")
    meters = table.controller.snapshot()["meters"]
    await expect(ratings.locator("#ratings-meters")).to_contain_text(
        "Compteurs de la table : mises ")  # the lifetime meters (core/meters.py)
    await expect(ratings.locator("#ratings-meters")).to_contain_text(f"{meters['rounds']} manches")
    await screenshot(page, "ratings-fr")
    await ratings.locator("#ratings-close").click()
    await page.locator("#lang-en").click()
    await page.locator("#ratings-open").click()
    await expect(dialog.locator("h2")).to_have_text("Rated players — supervisor code")
    for key in SUPERVISOR_PIN:
        await dialog.locator(f"[data-key='{key}']").click()
    await dialog.locator("#pin-send").click()
    await expect(ratings.locator("h2")).to_have_text("Rated players — supervisor")
    await expect(ratings.locator("th").nth(6)).to_have_text("Theo (his decisions)")
    await expect(row.locator(".ratings-handle")).to_contain_text("200.00")
    await expect(ratings.locator(".ratings-flag")).to_contain_text("Advice, box 1")


async def test_advice_raised_in_a_round_is_left_out_of_the_dealer_s_recall(
        rated: tuple[RatedTable, DisplayServer], http: aiohttp.ClientSession) -> None:
    table, server = rated
    await seated_and_ramped(table)
    table.lock({1: 1000})  # the next round starts before the watch has read the last one: the advice is in it
    async with asyncio.timeout(30):
        while not any(a["kind"] == AlarmKind.ADVANTAGE_PLAY for a in table.controller.snapshot()["alarms"]):
            await asyncio.sleep(0.02)
    async with http.ws_connect(f"{server.url}ws") as dealer, http.ws_connect(f"{server.url}ws?pit={PIT_TOKEN}") as pit:
        pit_round = (await ask(pit, {"type": "recall", "last": 1}))["rounds"][-1]
        dealer_round = (await ask(dealer, {"type": "recall", "last": 1}))["rounds"][-1]
    assert pit_round["round"] == dealer_round["round"] == 7
    assert [a["kind"] for a in pit_round["alarms"]] == [AlarmKind.ADVANTAGE_PLAY]
    assert dealer_round["alarms"] == [] and dealer_round["steps"] == pit_round["steps"]
