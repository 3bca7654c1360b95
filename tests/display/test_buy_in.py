"""The dealer records a buy-in on the display: the real page in Chromium, the real display server and a real
table controller and journal behind it (the runtime's backend methods, as runtime/app.py implements them).
A bad amount is one line on the screen in the page's language and journals nothing; a client that sends what
no keypad can (a negative amount, text) gets one line back, never a traceback; recall words the step."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from table_runtime.display import DisplayServer
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.rules import TableLimits
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from tests.display.conftest import screenshot
from tests.display.helpers import ControllerBackend, ask, dealt_to_box_3, open_display

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(60)]

LIMITS = TableLimits(buy_in_max_cents=200_000)


@pytest_asyncio.fixture(loop_scope="session")
async def table(tmp_path: Path) -> AsyncIterator[tuple[TableController, DisplayServer]]:
    """A table in round 1, cards dealt (a buy-in is taken during a round), its display listening."""
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = dealt_to_box_3(journal, LIMITS)
        server = DisplayServer(ControllerBackend(controller), port=0, supervisor_pin="2468")
        async with server:
            controller.subscribe(lambda: None)
            yield controller, server


def buy_ins(controller: TableController) -> list[dict[str, Any]]:
    return [entry.body for entry in controller.journal.entries() if entry.body.get("type") == "BuyInRecorded"]


async def type_amount(page: Page, keys: str) -> None:
    for key in keys:
        await page.locator(f"#buy-in-keys [data-key='{key}']").click()


async def test_the_dealer_records_a_buy_in_during_a_round(
        page: Page, table: tuple[TableController, DisplayServer]) -> None:
    controller, server = table
    await open_display(page, server)
    await expect(page.locator("#phase")).to_have_attribute("data-phase", "playing")
    await page.locator("#desk [data-command='BUY_IN']").click()
    dialog = page.locator("#buy-in-dialog")
    await expect(dialog).to_be_visible()
    await expect(dialog.locator("#buy-in-send")).to_be_disabled()
    await type_amount(page, "1250,5")
    await expect(dialog.locator("#buy-in-amount")).to_have_text("1\u202f250,50\u00a0€")
    await dialog.locator("[data-tender='marker']").click()
    await dialog.locator("#buy-in-boxes [data-box='3']").click()
    await screenshot(page, "buy-in-fr")
    await dialog.locator("#buy-in-send").click()
    await expect(dialog).to_be_hidden()
    await expect(page.locator("#toast")).to_have_text("Achat de 1\u202f250,50\u00a0€ (Marqueur) enregistré")
    assert [(body["cents"], body["tender"], body["box"], body["round"]) for body in buy_ins(controller)] == [
        (125_050, "marker", 3, 1)]
    assert controller.table.round is not None and controller.table.round.phase == "playing"  # the round goes on


@pytest.mark.parametrize(("keys", "line"), [
    ("0", "ACHAT refusé : le montant doit être plus de 0 (saisi : 0,00\u00a0€)"),
    ("2000,01", "ACHAT refusé : 2\u202f000,01\u00a0€ dépasse le maximum d’un achat, 2\u202f000,00\u00a0€"),
])  # fmt: skip
async def test_a_bad_amount_is_one_line_on_the_screen_and_journals_nothing(
        page: Page, table: tuple[TableController, DisplayServer], keys: str, line: str) -> None:
    controller, server = table
    before = controller.journal.last_seq
    await open_display(page, server)
    await page.locator("#desk [data-command='BUY_IN']").click()
    await type_amount(page, keys)
    await page.locator("#buy-in-send").click()
    await expect(page.locator("#buy-in-error")).to_have_text(line)
    await expect(page.locator("#buy-in-dialog")).to_be_visible()  # the dealer corrects it
    assert controller.journal.last_seq == before and buy_ins(controller) == []
    await page.locator("#buy-in-cancel").click()
    await page.locator("#lang-en").click()
    await page.locator("#desk [data-command='BUY_IN']").click()
    await type_amount(page, "0")
    await page.locator("#buy-in-send").click()
    await expect(page.locator("#buy-in-error")).to_have_text(
        "BUY-IN refused: the amount must be more than 0 (entered: €0.00)")


async def test_what_no_keypad_sends_is_refused_in_one_line(table: tuple[TableController, DisplayServer]) -> None:
    controller, server = table
    before = controller.journal.last_seq
    async with aiohttp.ClientSession() as session, session.ws_connect(server.url.replace("http", "ws") + "ws") as ws:
        for cents in (-500, "abc", None, 10**30, 1.5, [1]):
            reply = await ask(ws, {"type": "command", "name": "BUY_IN", "args": {"cents": cents}})
            words = "past the floor's 64-bit numbers" if cents == 10**30 else "the amount must be"
            assert reply["ok"] is False and reply["message"].startswith("BUY_IN refused: ")
            assert words in reply["message"] and "\n" not in reply["message"] and "Traceback" not in reply["message"]
        reply = await ask(ws, {"type": "command", "name": "BUY_IN", "args": {"cents": 500, "tender": "cheque"}})
        assert reply["message"] == "BUY_IN refused: paid with 'cheque': cash or marker only"
        reply = await ask(ws, {"type": "command", "name": "BUY_IN", "args": {"cents": 500}})
        assert reply == {"type": "result", "request": 99, "name": "BUY_IN", "ok": True,
                         "message": "buy-in 5.00 € cash recorded"}
    assert [body["cents"] for body in buy_ins(controller)] == [500]
    assert controller.journal.last_seq == before + 2  # the input and its event, nothing for the refusals
    assert not [entry for entry in controller.journal.entries(kinds=("alarm",))
                if entry.body["kind"] == AlarmKind.COMMAND_REFUSED]  # a refused touch is told, not an alarm


async def test_a_card_number_as_the_player_is_refused_and_never_journaled(
        table: tuple[TableController, DisplayServer]) -> None:
    """Issue 30: BUY_IN's player was free text, and a card number was journaled, published and stored at the
    floor. A client sending one (or any text that is not a pseudonym, or a NUL the floor's database cannot hold)
    gets one line with its code; the number is neither in the reply nor anywhere in the journal."""
    controller, server = table
    before = controller.journal.last_seq
    number = "6011987654321012"
    async with aiohttp.ClientSession() as session, session.ws_connect(server.url.replace("http", "ws") + "ws") as ws:
        for player, reason in ((number, "player_not_pseudonym"), ("Ann", "player_not_pseudonym"),
                               (f"p-{number[:12]}\u0000", "input_out_of_bounds")):
            reply = await ask(ws, {"type": "command", "name": "BUY_IN", "args": {"cents": 500, "player": player}})
            assert (reply["ok"], reply["reason"]) == (False, reason) and number not in reply["message"]
        reply = await ask(ws, {"type": "command", "name": "BUY_IN", "args": {"cents": 500, "player": "p-0123456789ab"}})
        assert reply["ok"] is True
    assert [(body["cents"], body["player"]) for body in buy_ins(controller)] == [(500, "p-0123456789ab")]
    assert controller.journal.last_seq == before + 2
    assert not [entry for entry in controller.journal.entries() if number in json.dumps(entry.body)]


async def test_recall_words_the_buy_in_step(page: Page, table: tuple[TableController, DisplayServer]) -> None:
    controller, server = table
    assert controller.press("BUY_IN", {"cents": 30_000, "box": 3}, role="dealer", source="display")["ok"]
    await open_display(page, server)
    await page.locator("#recall-open").click()
    bar = page.locator("#recall-bar")
    await expect(bar).to_be_visible()
    for _ in range(4):  # BetsLocked, three cards, then the buy-in
        await page.locator("#recall-next-step").click()
    await expect(bar).to_have_attribute("data-step", "4")
    await expect(page.locator("#recall-step-text .recall-what")).to_have_text(
        "ACHAT DE JETONS — 300,00\u00a0€ (Espèces), case 3")
