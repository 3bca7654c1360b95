"""A player card read at the table on the real page (Chromium), the real display server and a real controller and
journal behind it: the banner asks the dealer for the player's box in the page's language, a touch on the box's
header places the card there (SEAT_CARD), during a round too, and the banner goes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from table_runtime.core.player_cards import PlayerCardRead
from table_runtime.display import DisplayServer
from table_runtime.journal import Journal, journal_path
from table_runtime.rating.pseudonym import pseudonym
from table_runtime.runtime.controller import TableController
from tests.display.helpers import ControllerBackend, box, dealt_to_box_3, open_display
from tests.polling import until

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]

PLAYER = pseudonym(b"the casino's own secret", "6012345678901234")


@pytest_asyncio.fixture(loop_scope="session")
async def table(tmp_path: Path) -> AsyncIterator[tuple[TableController, DisplayServer]]:
    """A table in round 1, cards dealt to box 3, its display listening."""
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = dealt_to_box_3(journal)
        async with DisplayServer(ControllerBackend(controller), port=0) as server:
            yield controller, server


@pytest.mark.parametrize(("language", "prompt", "named"), [
    ("fr", "Carte joueur lue : touchez la case du joueur", f"joueur {PLAYER}"),
    ("en", "Player card read: tap the player's box", f"player {PLAYER}")])
async def test_a_card_read_asks_for_the_box_and_a_touch_on_the_box_seats_its_player(
        page: Page, table: tuple[TableController, DisplayServer], language: str, prompt: str, named: str) -> None:
    controller, server = table
    await open_display(page, server, f"?lang={language}")
    banner = page.locator("#card-waiting")
    await expect(banner).to_be_hidden()
    controller.submit(PlayerCardRead(player=PLAYER, reader="table"), source="card")
    await server.publish(controller.snapshot())
    await expect(banner).to_be_visible()
    await expect(page.locator("#card-waiting-text")).to_have_text(prompt)
    await expect(page.locator("#card-waiting-player")).to_have_text(named)
    await box(page, 3).locator("header").click()  # a round is in play: the card is placed all the same
    # the table as its journal has it (the committed view): the step is durable
    await until(lambda: controller.snapshot()["seats"] == {"3": PLAYER}, "the card placed on box 3")
    assert "card_waiting" not in controller.snapshot() and controller.core.card_waiting is None
    (seated,) = [entry.body for entry in controller.journal.entries(kinds=("input",))
                 if entry.body["type"] == "PlayerSeated"]
    assert (seated["box"], seated["seat_source"], seated["by"], seated["source"]) == (3, "card", "dealer", "display")
    await server.publish(controller.snapshot())
    await expect(banner).to_be_hidden()
    await expect(box(page, 3).locator("header .owner")).to_have_text(named)
