"""The séance button on the display follows the table's terms: hidden on a table whose configuration has no
séance (`[seance] required = false`, the default, every configuration written before the séance) and that never
opened one; shown once the table keeps séances (its terms ask for one, or one was opened). The real page in
Chromium, the display server and a real controller and journal behind it."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from tests.display.helpers import ControllerBackend, open_display

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(90)]


def controller_on(journal: Journal, *, required: bool) -> TableController:
    ticks = itertools.count()
    return TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                           clock=lambda: 1_800_000_000.0 + next(ticks), seance_required=required)


async def test_the_seance_button_is_hidden_while_the_option_is_off_and_no_seance_was_opened(
        page: Page, tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal, required=False)
        async with DisplayServer(ControllerBackend(controller), port=0) as server:
            await open_display(page, server)
            await expect(page.locator("#lang-fr")).to_be_visible()  # the page is drawn, its header with it
            await expect(page.locator("#seance-open")).to_be_hidden()
            assert "seance" not in controller.snapshot().get("live", {})
            # The table starts keeping séances (the demo's dealer opens one): the button follows.
            reply = await ControllerBackend(controller).command(
                "SEANCE_OPEN", {"chips": {"50000": 20, "10000": 50}}, role="dealer")
            assert reply["ok"], reply
            await server.publish(controller.snapshot())
            await expect(page.locator("#seance-open")).to_be_visible()


async def test_the_seance_button_is_shown_where_the_terms_ask_for_a_seance(page: Page, tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal, required=True)
        async with DisplayServer(ControllerBackend(controller), port=0) as server:
            await open_display(page, server)
            await expect(page.locator("#seance-open")).to_be_visible()
            await page.locator("#seance-open").click()
            await expect(page.locator("#seance-dialog #seance-required")).to_be_visible()
