"""The amended text on the page (55-4 as amended on 6 May 2020): the SURRENDER touch while the rules offer it,
a surrendered hand and its half-stake payout in both languages, and who sits where (SEAT on a box's number)."""

from __future__ import annotations

import copy

import pytest
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from tests.display.helpers import box, open_display, publish_and_wait
from tests.display.scripted import ScriptedBackend, bank_hand, hand, payout, playing, table
from tests.display.scripted import box as box_of

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]


async def test_surrender_is_shown_only_while_offered_and_reaches_the_table(
    page: Page, server: DisplayServer, backend: ScriptedBackend
) -> None:
    await open_display(page, server)
    await expect(page.locator("#actions [data-command='SURRENDER']")).to_be_hidden()  # not in `allowed`
    offered = copy.deepcopy(playing(seq=1236))
    offered["allowed"] = ["NEXT", "DOUBLE", "SURRENDER", "VOID"]
    await publish_and_wait(page, server, offered)
    button = page.locator("#actions [data-command='SURRENDER']")
    await expect(button).to_be_visible()
    await expect(button).to_have_text("ABANDON")
    await button.click()
    received = await backend.next_command()
    assert (received.name, received.args, received.role) == ("SURRENDER", {}, "dealer")


def surrendered(seq: int) -> dict[str, object]:
    snapshot = table(
        seq=seq, round_number=18, phase="settlement", allowed=["CONFIRM", "VOID"], bank=bank_hand(["9D"], 9),
        boxes=[box_of(2, owner="box2", seated_cents=2000, hands=[hand(["TS", "6H"], 16, 2000, status="surrendered")],
                      payouts=[payout(0, "box2", "original", 2000, "surrender", -1000)], net_cents=-1000)])
    snapshot["seats"] = {"2": "A", "4": "B"}
    return snapshot


@pytest.mark.parametrize(("language", "status", "outcome", "player"), [
    ("fr", "abandon", "abandon, ½ rendue", "joueur A"), ("en", "surrendered", "surrender, ½ back", "player A")])
async def test_a_surrendered_hand_and_who_sits_where_in_both_languages(
    page: Page, server: DisplayServer, language: str, status: str, outcome: str, player: str
) -> None:
    await open_display(page, server, f"?lang={language}")
    await publish_and_wait(page, server, surrendered(1300))
    second = box(page, 2)
    await expect(second.locator(".hand .status")).to_have_text(status)
    await expect(second.locator(".payout[data-outcome='surrender'] .payout-outcome")).to_have_text(outcome)
    await expect(second.locator(".payout-net")).to_contain_text("10,00" if language == "fr" else "10.00")
    await expect(second.locator("header .owner")).to_have_text(player)
    await expect(box(page, 4).locator("header .owner")).to_contain_text("B")


async def test_the_dealer_seats_a_player_by_touching_a_box_between_rounds(
    page: Page, server: DisplayServer, backend: ScriptedBackend
) -> None:
    await open_display(page, server)
    await box(page, 3).locator("header").click()  # round in play: nothing opens
    await expect(page.locator("#seat-dialog")).not_to_be_visible()
    between = table(seq=1301, round_number=18, phase="closed", bank=bank_hand([], 0), boxes=[])
    await publish_and_wait(page, server, between)
    await box(page, 3).locator("header").click()
    await expect(page.locator("#seat-dialog")).to_be_visible()
    await expect(page.locator("#seat-send")).to_be_disabled()
    await page.locator("#seat-players [data-player='B']").click()
    await page.locator("#seat-send").click()
    received = await backend.next_command()
    assert (received.name, received.args) == ("SEAT", {"box": 3, "player": "B"})
    await box(page, 5).locator("header").click()
    await page.locator("#seat-clear").click()
    received = await backend.next_command()
    assert (received.name, received.args) == ("SEAT_CLEAR", {"box": 5})
