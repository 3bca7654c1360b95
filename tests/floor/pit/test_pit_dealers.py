"""The dealers on shift on the pit page, in headless Chromium: a table under a staff registry plays through the real
feed publisher to a real Mosquitto; the page shows its dealer by employee id with his stint's rounds, rounds per
hour and errors per 100 rounds, the next dealer after a push, in French and English."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from simulators.fast_table import FastTable
from simulators.mosquitto import MosquittoBroker
from table_runtime.staff.dealer_work import dealer_work
from tests.floor.pit.pit_support import pit_stack, publishing_tables
from tests.table_runtime.staff.staff_table import staff_controller, staff_desk, staff_registry

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(90)]


async def test_the_pit_shows_each_tables_dealer_on_shift_and_his_pace(
    page: Page, broker: MosquittoBroker, prefix: str, tmp_path: Path
) -> None:
    registry = staff_registry(tmp_path)
    async with pit_stack(broker.url, prefix) as (_, server, _), \
            publishing_tables(broker.url, prefix, ["T1"], tmp_path) as tables:  # fmt: skip
        journal = tables["T1"].journal
        controller = staff_controller(journal)
        desk = staff_desk(controller, registry)
        desk.take_table("D1", "pin")
        FastTable(controller, seed=3, error_rate=0.3).run(6)
        view = dealer_work(journal.entries())[-1].view()
        await page.goto(server.url)
        row = page.locator("#dealers tbody tr[data-table='T1']")
        await expect(row).to_have_attribute("data-employee", "D1")
        await expect(row.locator(".rounds")).to_have_text("6")
        await expect(row.locator(".rounds-per-hour")).to_have_text(f"{view['rounds_per_hour']:.1f}")
        await expect(row.locator(".errors-per-100")).to_have_text(f"{view['errors_per_100_rounds']:.1f}")
        assert view["errors_per_100_rounds"] > 0, "an error rate of 0.3 errs"
        await expect(page.locator("#dealers-panel h2")).to_have_text("Croupiers en poste")
        await expect(page.locator("#dealers th").nth(4)).to_have_text("Coups / h")

        desk.take_table("D2", "pin")  # the push: D1 out, D2 in
        FastTable(controller, seed=4).run(1)
        await expect(row).to_have_attribute("data-employee", "D2")
        await expect(row.locator(".rounds")).to_have_text("1")
        await page.locator("#lang-en").click()
        await expect(page.locator("#dealers-panel h2")).to_have_text("Dealers on shift")
        await expect(page.locator("#dealers th").nth(5)).to_have_text("Errors / 100 rounds")

        desk.leave_table()
        await expect(page.locator("#dealers .none")).to_have_text("No dealer on shift")
