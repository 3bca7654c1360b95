"""At settlement the page shows, in each box, what each chip zone must end at and what is on it now
(the snapshot's `payout_check`): green with a check mark when right, red with the difference when not."""

from __future__ import annotations

import copy

import pytest
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from tests.display.conftest import screenshot
from tests.display.helpers import box, open_display, publish_and_wait
from tests.display.scripted import being_paid, settlement

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


def zone(page: Page, name: str) -> str:
    return f".zone-check[data-zone='{name}']"


async def test_each_zone_shows_due_and_seen_right_in_green_wrong_in_red_with_the_difference(
    page: Page, server: DisplayServer
) -> None:
    await open_display(page, server)
    await publish_and_wait(page, server, being_paid())

    third = box(page, 3)
    await expect(third.locator(".zone-check")).to_have_count(3)  # seated, behind, insurance, in that order
    await expect(third.locator(".zone-check .zone-name")).to_have_text(["Assis", "Derrière", "Assurance"],
                                                                          ignore_case=True)
    seated = third.locator(zone(page, "box3"))  # right: one line, the amount with a check mark
    await expect(seated).to_have_attribute("data-match", "yes")
    await expect(seated.locator(".zone-verdict")).to_have_text("✓ 20,00\u00a0€")
    assert await seated.evaluate("node => getComputedStyle(node).borderColor") == "rgb(56, 210, 107)"
    behind = third.locator(zone(page, "box3.behind"))  # short: due, seen and what is missing
    await expect(behind).to_have_attribute("data-match", "no")
    await expect(behind).to_have_attribute("data-difference", "-500")
    await expect(behind.locator(".zone-due b")).to_have_text("10,00\u00a0€")
    await expect(behind.locator(".zone-seen b")).to_have_text("5,00\u00a0€")
    await expect(behind.locator(".zone-verdict")).to_have_text("manque 5,00\u00a0€")
    assert await behind.evaluate("node => getComputedStyle(node).borderColor") == "rgb(224, 57, 62)"
    await expect(third.locator(zone(page, "box3.insurance"))).to_have_attribute("data-match", "yes")  # collected
    # The whole check is in view at 1080p: nothing to scroll to in the fullest box.
    assert await third.evaluate("node => node.scrollHeight <= node.clientHeight")

    await expect(box(page, 6).locator(zone(page, "box6") + " .zone-verdict")).to_have_text("5,00\u00a0€ de trop")
    await expect(box(page, 5).locator(zone(page, "box5") + " .zone-verdict")).to_have_text("manque 40,00\u00a0€")
    seventh = box(page, 7)  # chips on a box nobody played: shown, not dimmed
    await expect(seventh).not_to_have_attribute("data-empty", "")
    await expect(seventh.locator(zone(page, "box7") + " .zone-verdict")).to_have_text("25,00\u00a0€ de trop")
    await expect(box(page, 2).locator(".chip-check")).to_have_count(0)
    await screenshot(page, "settlement-payout-check-fr")

    await page.locator("#lang-en").click()
    await expect(behind.locator(".zone-verdict")).to_have_text("€5.00 short")
    await expect(behind.locator(".zone-due")).to_have_text("due €10.00")
    await expect(behind.locator(".zone-seen")).to_have_text("seen €5.00")
    await expect(box(page, 6).locator(zone(page, "box6") + " .zone-verdict")).to_have_text("€5.00 over")
    await expect(third.locator(".chip-check-title")).to_have_text("Chips on the box")
    await page.locator("#lang-fr").click()


async def test_the_check_follows_each_snapshot_and_goes_when_the_snapshot_has_none(
    page: Page, server: DisplayServer
) -> None:
    await open_display(page, server)
    paying = being_paid()
    await publish_and_wait(page, server, paying)
    behind = box(page, 3).locator(zone(page, "box3.behind"))
    await expect(behind).to_have_attribute("data-match", "no")

    paid = copy.deepcopy(paying)  # the dealer adds the 5.00 € missing behind
    paid["seq"] += 1
    paid["payout_check"]["box3.behind"]["seen_cents"] = 1000
    await publish_and_wait(page, server, paid)
    await expect(behind).to_have_attribute("data-match", "yes")
    await expect(behind.locator(".zone-verdict")).to_have_text("✓ 10,00\u00a0€")
    await expect(behind.locator(".zone-due")).to_have_count(0)

    await publish_and_wait(page, server, settlement(paid["seq"] + 1))  # no payout_check: chips not being checked
    await expect(page.locator(".chip-check")).to_have_count(0)
    await expect(box(page, 3)).not_to_have_attribute("data-checking", "")
    await expect(box(page, 7)).to_have_attribute("data-empty", "")
