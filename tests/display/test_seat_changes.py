"""A rated session's seat changes from the display's seat dialog (core/seat_changes.py), on a real controller: the
seated player pauses and is back, moves to a free box, a player bets behind; each is journaled and shown."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from tests.display.conftest import PIT_TOKEN, SUPERVISOR_PIN
from tests.display.helpers import ControllerBackend, box, open_display, publish_and_wait
from tests.table_runtime.rating.rated_table import RatedTable

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


@pytest_asyncio.fixture(loop_scope="session")
async def seated(tmp_path: Path) -> AsyncIterator[tuple[RatedTable, DisplayServer]]:
    table = RatedTable(tmp_path)
    try:
        async with DisplayServer(ControllerBackend(table.controller), port=0, supervisor_pin=SUPERVISOR_PIN,
                                 pit_token=PIT_TOKEN) as server:
            yield table, server
    finally:
        table.close()


async def _journaled(table: RatedTable, kind: str) -> dict[str, Any]:
    """The newest input row once it is of `kind` and the table's snapshot shows it (the touch's command reached the
    table, was journaled, and its step is over)."""
    async with asyncio.timeout(10):
        while True:
            inputs = [entry for entry in table.journal.entries() if entry.kind == "input"]
            if inputs and inputs[-1].body["type"] == kind and table.controller.snapshot()["seq"] >= inputs[-1].seq:
                return inputs[-1].body
            await asyncio.sleep(0.02)


async def _touch_box(page: Page, server: DisplayServer, table: RatedTable, number: int) -> None:
    await publish_and_wait(page, server, table.controller.snapshot())
    await box(page, number).locator("header").click()
    await expect(page.locator("#seat-dialog")).to_be_visible()


async def test_pause_move_and_a_player_behind_from_the_seat_dialog(
        seated: tuple[RatedTable, DisplayServer], page: Page) -> None:
    table, server = seated
    await open_display(page, server)
    await page.locator("#lang-fr").click()
    await _touch_box(page, server, table, 2)
    await expect(page.locator("#seat-pause")).to_be_disabled()  # nobody sits there yet
    await page.locator("#seat-players [data-player='A']").click()
    await page.locator("#seat-send").click()
    await _journaled(table, "PlayerSeated")

    await _touch_box(page, server, table, 2)
    await expect(page.locator("#seat-pause")).to_have_text("PAUSE")
    await page.locator("#seat-pause").click()
    assert (await _journaled(table, "PlayerPaused"))["box"] == 2

    await _touch_box(page, server, table, 2)
    await expect(page.locator("#seat-pause")).to_have_text("REPRISE")
    await expect(page.locator("#seat-move [data-box='2']")).to_be_disabled()  # his own box is not free
    await page.locator("#seat-move [data-box='5']").click()
    moved = await _journaled(table, "PlayerMoved")
    assert (moved["from_box"], moved["to_box"]) == (2, 5)

    await _touch_box(page, server, table, 5)
    await page.locator("#seat-players [data-player='B']").click()
    await page.locator("#seat-behind").click()
    assert (await _journaled(table, "BehindJoined"))["player"] == "B"
    snapshot = table.controller.snapshot()
    assert (snapshot["seats"], snapshot["seats_paused"], snapshot["behind_players"]) == ({"5": "A"}, [5], {"5": "B"})
    await publish_and_wait(page, server, snapshot)
    await expect(box(page, 5).locator("header .owner")).to_have_text("joueur A (en pause) + B derrière")

    await page.locator("#lang-en").click()
    await _touch_box(page, server, table, 5)
    await expect(page.locator("#seat-pause")).to_have_text("RESUME")
    await page.locator("#seat-pause").click()
    await _journaled(table, "PlayerResumed")
    await publish_and_wait(page, server, table.controller.snapshot())
    await expect(box(page, 5).locator("header .owner")).to_have_text("player A + B behind")
    await _touch_box(page, server, table, 5)
    await page.locator("#seat-behind-clear").click()
    await _journaled(table, "BehindLeft")
    assert "behind_players" not in table.controller.snapshot()
