"""The hyper black jack field on the dealer's display (55-4 6°), from snapshots of a real hyper round: before
the deal the chips still to assign and a button per box with a main bet; settled, the bank's final result, each
stake's payout, each case's payout check and the text's settlement order; FR and EN; nothing cut off or covered
at the three screen sizes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment
import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from table_runtime.display import DisplayServer
from table_runtime.display.schema import SNAPSHOT_SCHEMA
from tests.display.helpers import open_display
from tests.display.scripted import ScriptedBackend
from tests.display.test_layout import CHECK, MIN_TEXT_PX, SHOTS, SIZES
from tests.table_runtime.core.hyper_table import Table, snapshot

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


def betting() -> dict[str, Any]:
    """Bets on boxes 1 and 3; 10.00 on « 20 », 5.00 of it assigned to box 3; 25.00 on « BUST », unassigned."""
    table = Table()
    table.set("box1", 1000)
    table.set("box3", 2000)
    table.set("hyper.20", 1000)
    table.set("hyper.bust", 2500)
    table.press("HYPER_ASSIGN", case="20", box=3, cents=500)
    return snapshot(table, 100)


def settled() -> dict[str, Any]:
    """The bank busts; « BUST » (box 1's 25.00 and box 3's 5.00) wins 2 pour 1, « 20 » loses; box 1's « BUST » zone
    is being paid: 10.00 short."""
    table = Table()
    table.set("box1", 1000)
    table.set("box3", 2000)
    table.set("hyper.20", 1000)
    table.set("hyper.bust", 3000)
    for case, box, cents in (("20", 3, 1000), ("bust", 1, 2500), ("bust", 3, 500)):
        assert table.press("HYPER_ASSIGN", case=case, box=box, cents=cents) is None
    assert table.press("DEAL") is None
    table.draw("TC 9S 6D 9H TH")  # box 1 19, box 3 19, the bank 6
    table.press("NEXT")
    table.press("NEXT")
    table.draw("TD 8S")  # the bank: 24
    table.set("hyper.20", 0)
    table.set("hyper.bust", 8000)  # due 9 000
    return snapshot(table, 200)


async def test_the_snapshots_of_a_real_hyper_round_keep_the_display_contract() -> None:
    for made in (betting(), settled()):
        jsonschema.validate(made, SNAPSHOT_SCHEMA)
    done = settled()
    assert done["hyper"]["result"] == "bust"
    assert [step["cents"] for step in done["hyper"]["settlement"]] == [1000, 0, 3000, 6000]
    assert done["payout_check"]["hyper.bust"] == {"due_cents": 9000, "seen_cents": 8000}
    assert all(not payout["kind"].startswith("hyper.") for box in done["boxes"] for payout in box["payouts"])


@pytest_asyncio.fixture(loop_scope="session")
async def hyper_server() -> AsyncIterator[tuple[DisplayServer, ScriptedBackend]]:
    backend = ScriptedBackend(betting())
    async with DisplayServer(backend, port=0, supervisor_pin="2468") as running:
        yield running, backend


async def test_before_the_deal_the_dealer_gives_a_cases_chips_to_a_box_with_a_main_bet(
        page: Page, hyper_server: tuple[DisplayServer, ScriptedBackend]) -> None:
    server, backend = hyper_server
    await open_display(page, server)
    twenty = page.locator(".hyper-case[data-case='20']")
    await expect(twenty.locator(".hyper-odds")).to_have_text("4 pour 1")
    await expect(twenty.locator(".hyper-unassigned")).to_have_text("5,00\u00a0€ à attribuer")
    await expect(twenty.locator("button.hyper-stake")).to_have_text("C3 5,00\u00a0€ ×")
    await expect(twenty.locator(".hyper-assign button")).to_have_text(["C1", "C3"])  # the boxes with a main bet
    await twenty.locator(".hyper-assign button", has_text="C3").click()
    sent = await asyncio.wait_for(backend.received.get(), 10)
    assert (sent.name, sent.args, sent.role) == ("HYPER_ASSIGN", {"case": "20", "box": 3, "cents": 1000}, "dealer")
    await expect(page.locator("body")).to_have_attribute("data-busy", "no")
    await twenty.locator("button.hyper-stake").click()  # a tap on a stake takes it back
    sent = await asyncio.wait_for(backend.received.get(), 10)
    assert sent.args == {"case": "20", "box": 3, "cents": 0, "behind": False}
    await expect(page.locator(".hyper-case[data-case='bust'] .hyper-unassigned")).to_have_text(
        "25,00\u00a0€ à attribuer")
    await page.locator("#lang-en").click()
    await expect(twenty.locator(".hyper-unassigned")).to_have_text("€5.00 to assign")
    await expect(twenty.locator(".hyper-odds")).to_have_text("4 for 1")


async def test_settled_the_result_the_payouts_the_check_and_the_order_show(
        page: Page, hyper_server: tuple[DisplayServer, ScriptedBackend]) -> None:
    server, backend = hyper_server
    backend.current = settled()
    await open_display(page, server)
    await expect(page.locator("#hyper-result")).to_have_text("Résultat de la banque : BUST")
    bust = page.locator(".hyper-case[data-case='bust']")
    await expect(bust).to_have_attribute("data-won", "yes")
    await expect(bust.locator(".hyper-payout")).to_have_text(["+50,00\u00a0€", "+10,00\u00a0€"])
    await expect(bust.locator(".zone-check")).to_have_attribute("data-match", "no")
    await expect(bust.locator(".zone-verdict")).to_have_text("manque 10,00\u00a0€")
    await expect(page.locator(".hyper-case[data-case='20'] .zone-check")).to_have_attribute("data-match", "yes")
    await expect(page.locator(".hyper-steps li")).to_have_text(
        ["1 ramasser hyper 10,00\u00a0€", "2 ramasser —", "3 payer 30,00\u00a0€", "4 payer hyper 60,00\u00a0€"])
    await page.locator("#lang-en").click()
    await expect(page.locator("#hyper-result")).to_have_text("Bank's result: BUST")
    await expect(page.locator(".hyper-steps li").first).to_have_text("1 collect hyper €10.00")


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("phase", ["betting", "settled"])
@pytest.mark.parametrize("size", list(SIZES))
async def test_the_field_fits_every_screen(browser: Browser, size: str, phase: str, language: str) -> None:
    width, height = SIZES[size]
    context = await browser.new_context(viewport={"width": width, "height": height}, locale="fr-FR")
    page = await context.new_page()
    backend = ScriptedBackend(betting() if phase == "betting" else settled())
    try:
        async with DisplayServer(backend, port=0, supervisor_pin="2468", language=language) as server:
            await open_display(page, server)
            await page.evaluate("document.fonts.ready.then(() => new Promise(requestAnimationFrame))")
            SHOTS.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(SHOTS / f"hyper-{phase}-{size}-{language}.png"))
            assert await page.evaluate(CHECK, MIN_TEXT_PX) == []
    finally:
        await context.close()
