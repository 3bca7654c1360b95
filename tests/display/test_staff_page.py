"""The staff on the page, in Chromium: the dealer takes the table with his own PIN in the login dialog and the top
bar names him; the supervisor opens his view with his employee id and PIN and sees the dealers' stints; the page
says the shared PIN is refused, in French."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from simulators.fast_table import FastTable
from table_runtime.display import DisplayServer
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.staff.dealer_work import dealer_work
from tests.display.conftest import screenshot
from tests.display.helpers import open_display
from tests.table_runtime.staff.staff_table import staff_controller, staff_desk, staff_registry

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(90)]


@pytest.mark.slow  # Chromium through two dialogs, an Argon2id check per PIN and three rounds
async def test_a_dealer_logs_in_and_the_supervisor_sees_the_dealers(page: Page, tmp_path: Path) -> None:
    registry = staff_registry(tmp_path)
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry)
        app = TableApp(controller, staff=desk)
        async with DisplayServer(app, port=0, staff=desk) as server:
            await open_display(page, server)
            await page.locator("#lang-fr").click()
            await expect(page.locator("#shift-dealer")).to_have_text("Aucun croupier")
            await page.locator("#login-open").click()
            await page.locator("#login-employee").fill("D1")
            await page.locator("#login-pin").fill("0000")
            await page.locator("#login-send").click()
            await expect(page.locator("#login-error")).not_to_be_empty()
            await page.locator("#login-pin").fill("1357")
            await page.locator("#login-send").click()
            await expect(page.locator("#login-dialog")).to_be_hidden()
            await server.publish(app.snapshot())
            await expect(page.locator("#shift-dealer")).to_have_text("Croupier : Marie Dupont")
            await screenshot(page, "staff-dealer-on-shift-fr")

            FastTable(controller, seed=8).run(3)
            await page.locator("#ratings-open").click()
            await page.locator("#pin-employee").fill("")  # no id: the shared supervisor PIN, refused
            for key in "9753":
                await page.locator(f"#pin-keys button[data-key='{key}']").click()
            await page.locator("#pin-send").click()
            await expect(page.locator("#pin-error")).to_contain_text("code superviseur partagé")
            await page.locator("#pin-employee").fill("S1")
            for key in "9753":
                await page.locator(f"#pin-keys button[data-key='{key}']").click()
            await page.locator("#pin-send").click()
            rows = page.locator("#dealers-rows tr")
            await expect(rows).to_have_count(1)
            await expect(rows.first.locator(".dealers-name")).to_have_text("Marie Dupont")
            (stint,) = dealer_work(journal.entries())
            view = stint.view()
            await expect(rows.first.locator(".dealers-idle")).to_have_text(
                f"{100 * view['idle_seconds'] / view['seconds']:.1f} %")
            await expect(rows.first.locator(".dealers-shuffle")).to_have_text(
                f"{100 * view['shuffle_seconds'] / view['seconds']:.1f} %")
            await screenshot(page, "staff-dealers-view-fr")
