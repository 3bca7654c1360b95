"""The pit page speaks French or English: every string in both catalogues, the switch changes every text."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from simulators.mosquitto import MosquittoBroker
from tests.floor.pit.pit_support import pit_stack, publishing_tables, snapshot

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


async def test_every_string_is_in_french_and_english_and_the_switch_changes_the_page(
    page: Page, broker: MosquittoBroker, prefix: str, tmp_path: Path
) -> None:
    async with pit_stack(broker.url, prefix) as (_, server, _), \
            publishing_tables(broker.url, prefix, ["T1"], tmp_path) as tables:  # fmt: skip
        tables["T1"].offer(snapshot("alarms"))
        await page.goto(server.url)
        strings: dict[str, dict[str, str]] = await page.evaluate("() => window.PIT_STRINGS")
        assert set(strings) == {"fr", "en"}
        assert set(strings["fr"]) == set(strings["en"])
        assert all(text.strip() for language in strings.values() for text in language.values())
        card = page.locator("#tables .table[data-table='T1']")
        await expect(card.locator(".round")).to_have_text("Manche 12")
        await expect(page.locator("h1")).to_have_text(strings["fr"]["title"])
        await expect(page.locator("#alarms .alarm").first.locator(".alarm-kind")).to_have_text("Paiement erroné")
        await page.locator("#lang-en").click()
        await expect(page.locator("html")).to_have_attribute("lang", "en")
        await expect(page.locator("h1")).to_have_text(strings["en"]["title"])
        await expect(card.locator(".round")).to_have_text("Round 12")
        await expect(card.locator(".phase")).to_have_text("Settlement")
        await expect(page.locator("#alarms .alarm").first.locator(".alarm-kind")).to_have_text("Wrong payout")
        await expect(page.locator("#pit-totals .drop")).to_have_text("€0.00")
        await expect(page.locator("#pit-totals .hold")).to_have_text("—")
