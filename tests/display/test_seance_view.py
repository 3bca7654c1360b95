"""The séance view on the display: the real page in Chromium, the display server and a real table controller and
journal behind it. The dealer counts the tray and opens the séance, asks for a fill, takes a tip; the slip waits
for the supervisor, who confirms it with his PIN; the figures follow in French and in English."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from tests.display.conftest import screenshot
from tests.display.helpers import ControllerBackend, open_display


async def shown(controller: TableController, server: DisplayServer, before: int) -> None:
    """Once the command's rows are journaled, the page gets the table's snapshot."""
    async with asyncio.timeout(10):
        while controller.last_seq == before:
            await asyncio.sleep(0.02)
    await server.publish(controller.snapshot())


pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(90)]

PIN = "2468"


@pytest_asyncio.fixture(loop_scope="session")
async def table(tmp_path: Path) -> AsyncIterator[tuple[TableController, DisplayServer]]:
    ticks = itertools.count()
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T1", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                                     clock=lambda: 1_800_000_000.0 + next(ticks), seance_required=True)
        server = DisplayServer(ControllerBackend(controller), port=0, supervisor_pin=PIN)
        async with server:
            controller.subscribe(lambda: None)
            yield controller, server


async def test_the_dealer_opens_a_seance_and_the_supervisor_confirms_its_fill(
        page: Page, table: tuple[TableController, DisplayServer]) -> None:
    controller, server = table
    await open_display(page, server)
    await page.locator("#lang-fr").click()
    await page.locator("#seance-open").click()
    dialog = page.locator("#seance-dialog")
    await expect(dialog).to_be_visible()
    await expect(dialog.locator("#seance-heading")).to_have_text("Aucune séance ouverte")
    await expect(dialog.locator("#seance-required")).to_be_visible()  # [seance] required: no deal without one
    await dialog.locator("[data-denomination='50000']").fill("20")
    await dialog.locator("[data-denomination='10000']").fill("50")
    await expect(dialog.locator("#seance-counted")).to_contain_text("15")
    before = controller.last_seq
    await dialog.locator("#seance-do-open").click()
    await shown(controller, server, before)
    await expect(dialog.locator("#seance-heading")).to_have_text("Séance 1")
    await expect(dialog.locator("[data-figure='opener'] td")).to_contain_text("15")
    before = controller.last_seq
    await dialog.locator("#seance-do-fill").click()  # the initial advance again (art. 49)
    await shown(controller, server, before)
    slip = dialog.locator(".seance-slip[data-slip='1']")
    await expect(slip).to_contain_text("Bon 1 : avance complémentaire")
    await expect(dialog.locator("[data-figure='fills'] td")).to_contain_text("0,00")  # not before it is confirmed
    await dialog.locator("#seance-tip-boxes [data-box='3']").click()
    await dialog.locator("#seance-tip-amount").fill("5")
    before = controller.last_seq
    await dialog.locator("#seance-tip-send").click()
    await shown(controller, server, before)
    await expect(dialog.locator("[data-figure='tips'] td")).to_contain_text("5,00")
    await slip.locator("button").click()  # the second role: the supervisor's PIN
    pin = page.locator("#pin-dialog")
    await expect(pin).to_be_visible()
    for key in PIN:
        await pin.locator(f"#pin-keys [data-key='{key}']").click()
    before = controller.last_seq
    await pin.locator("#pin-send").click()
    await expect(pin).to_be_hidden()
    await shown(controller, server, before)
    await expect(dialog.locator(".seance-slip")).to_have_count(0)
    await expect(dialog.locator("[data-figure='fills'] td")).to_contain_text("15")
    account = controller.core.seances.current
    assert account is not None and account.fills_cents == 1_500_000 and account.tips_cents == 500
    (confirmed,) = account.view()["slips"]
    assert confirmed["asked_by"] == {"role": "dealer"} and confirmed["confirmed_by"] == {"role": "supervisor"}
    await dialog.locator("#seance-close").click()
    await page.locator("#lang-en").click()
    await page.locator("#seance-open").click()
    await expect(dialog.locator("[data-figure='tips'] th")).to_have_text("Tips (tronc)")
    await expect(dialog.locator("#seance-heading")).to_have_text("Séance 1")
    # A close with no count is one line in the page's language, and changes nothing.
    for denomination in ("50000", "10000"):
        await dialog.locator(f"[data-denomination='{denomination}']").fill("")
    await dialog.locator("#seance-do-close").click()
    await expect(dialog.locator("#seance-error")).to_contain_text("SÉANCE CLOSE")
    await screenshot(page, "seance-view")
    assert controller.core.seances.current is not None
