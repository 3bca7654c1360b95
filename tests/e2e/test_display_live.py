"""The dealer display of the live runtime in headless Chromium: the round as the devices played it.

A stacked shoe over the pty, chips on the simulated reader, and the dealer's
touch buttons on the page drive the round; the page shows the cards, soft
totals, whose turn it is, the payouts, and the alarm the dealer acknowledges.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, async_playwright, expect

from table_runtime.game.cards import parse_cards
from tests.e2e.conftest import Live

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"

# burns | box1 A, box2 5, bank 6, box1 6 (soft 17), box2 6 | box2 doubles: T | bank: T, 8 (bust)
STACK = parse_cards("9C 9D 9H 9S 8C  AS 5H 6D 6S 6H  TC  TD 8C 4C")

pytestmark = [pytest.mark.timeout(120), pytest.mark.with_display]


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield chromium
        await chromium.close()


@pytest.mark.slow
async def test_the_display_follows_and_drives_a_live_round(live: Live, browser: Browser) -> None:
    assert live.app.display is not None
    context = await browser.new_context(viewport={"width": 1920, "height": 1080}, locale="fr-FR")
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(live.app.display.url)

    hands = live.hands
    await live.load_stack(STACK)
    await live.draw(5)
    hands.put("box1", 1000)
    hands.put("box2", 2000)
    await hands.settle_zones()
    await hands.press("DEAL")
    await live.draw(5)

    first = page.locator("#boxes .box[data-box='1']")
    second = page.locator("#boxes .box[data-box='2']")
    await expect(first.locator(".card")).to_have_count(2)
    await expect(first.locator(".card").nth(0)).to_have_attribute("data-card", "AS")
    await expect(first.locator(".hand .total")).to_have_text("7/17")  # soft total shown as such
    await expect(second.locator(".hand .total")).to_have_text("11")
    await expect(page.locator("#bank-cards .card")).to_have_attribute("data-card", "6D")
    await expect(first).to_have_attribute("data-turn", "")

    await page.locator("#actions [data-command='NEXT']").click()  # box1 stands on soft 17, from the screen
    await expect(second).to_have_attribute("data-turn", "")
    round_ = live.controller.table.round
    assert round_ is not None and round_.turn == (2, 0)

    hands.put("box2", 2000)
    await hands.settle_zones()
    await page.locator("#actions [data-command='DOUBLE']").click()
    await hands.until("the double", lambda: round_.boxes[1].hands[0].doubled)
    await live.draw(3)  # TC to box2, then the bank: TD 8C, 24
    await expect(page.locator("#phase")).to_have_text("Paiement")
    await expect(first.locator(".payout[data-outcome='win']")).to_contain_text("+10,00\u00a0€")
    await expect(second.locator(".payout[data-outcome='win']")).to_have_count(2)
    # Not paid yet: the chip readers say what is missing on each zone (docs/rules.md "A round", step 6)...
    check = first.locator(".zone-check[data-zone='box1']")
    await expect(check).to_have_attribute("data-match", "no")
    await expect(check).to_have_attribute("data-difference", "-1000")
    await expect(second.locator(".zone-check[data-zone='box2']")).to_have_attribute("data-difference", "-4000")
    hands.put("box1", 1000)  # ...the dealer pays box1 its 10,00 €, and the page says it is right
    await hands.settle_zones()
    await expect(check).to_have_attribute("data-match", "yes")

    await live.draw(1)  # a card for a bank that has finished: an alarm on the banner
    alarm = page.locator("[data-alarm]").first
    await expect(alarm.locator(".alarm-message")).to_have_text(  # in French; the bank's total a number, not money
        "Carte 4♣ tirée pour la banque, qui ne tire plus (24) : la DÉFAUSSER")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / "live-settlement-alarm.png"))
    await page.locator("[data-ack]").first.click()
    await expect(page.locator("[data-alarm]")).to_have_count(0)
    assert not live.controller.alarms.active
    assert errors == []
    await context.close()
