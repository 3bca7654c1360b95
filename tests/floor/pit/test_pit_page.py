"""The pit page in Chromium, on real parts: tables publish through the real feed publisher to a real Mosquitto,
the pit follows the broker and shows every table, the alarms in the pit's order, the shift's figures, a
table's change within a second, and each table's live view read-only."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest
from playwright.async_api import Page, WebSocket, expect

from simulators.mosquitto import MosquittoBroker
from tests.floor.pit.pit_support import page_on_two_tables, pit_stack, publishing_tables, snapshot

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(90)]


async def test_the_page_shows_every_table_its_alarms_in_order_and_the_shift(
    page: Page, broker: MosquittoBroker, prefix: str, tmp_path: Path
) -> None:
    async with pit_stack(broker.url, prefix) as (_, server, _), \
            publishing_tables(broker.url, prefix, ["T1", "T2", "T3"], tmp_path) as tables:  # fmt: skip
        tables["T1"].offer(snapshot("betting", round_number=7))
        tables["T2"].offer(snapshot("alarms", round_number=30))
        tables["T3"].offer(snapshot("split", round_number=4))
        await tables["T1"].settle(6, [(1000, -1000), (2500, 2500)])  # the house keeps 10 €, pays 25 €
        await tables["T1"].settle(7, [(4000, -4000)])
        await tables["T3"].settle(3, [(1000, 1500)])
        await page.goto(server.url)
        cards = page.locator("#tables .table")
        await expect(cards).to_have_count(3)
        await expect(cards.nth(0)).to_have_attribute("data-table", "T1")
        await expect(cards.nth(0)).to_have_attribute("data-status", "online")
        await expect(cards.nth(0).locator(".round")).to_have_text("Manche 7")
        await expect(cards.nth(0).locator(".phase")).to_have_text("Mises")
        await expect(cards.nth(1).locator(".phase")).to_have_text("Paiement")
        # T1: handle 75 €, win 10 - 25 + 40 = 25 €, win / handle 33.3 %; no buy-in: no drop, no hold.
        await expect(cards.nth(0).locator(".handle")).to_have_text("75,00\u00a0€")
        await expect(cards.nth(0).locator(".drop")).to_have_text("0,00\u00a0€")
        await expect(cards.nth(0).locator(".win")).to_have_text("25,00\u00a0€")
        await expect(cards.nth(0).locator(".hold")).to_have_text("—")
        await expect(cards.nth(0).locator(".win-handle")).to_have_text("33,3\u00a0%")
        await expect(cards.nth(2).locator(".win")).to_have_text("−15,00\u00a0€")
        # The pit: handle 85 €, win 10 €, win / handle 11.8 %.
        await expect(page.locator("#pit-totals .handle")).to_have_text("85,00\u00a0€")
        await expect(page.locator("#pit-totals .win")).to_have_text("10,00\u00a0€")
        await expect(page.locator("#pit-totals .hold")).to_have_text("—")
        await expect(page.locator("#pit-totals .win-handle")).to_have_text("11,8\u00a0%")
        # T2's three alarms: the supervisor's wrong payout first, then the dealer's, oldest first.
        alarms = page.locator("#alarms .alarm")
        await expect(alarms).to_have_count(3)
        shown = await alarms.evaluate_all("rs => rs.map(r => [r.dataset.table, r.dataset.kind, r.dataset.supervisor])")
        assert shown == [["T2", "wrong_payout", "yes"], ["T2", "command_refused", "no"], ["T2", "bank_must_draw", "no"]]
        await expect(alarms.nth(0).locator(".alarm-kind")).to_have_text("Paiement erroné")
        await expect(alarms.nth(0)).to_contain_text("case 2")
        await expect(cards.nth(1)).to_have_attribute("data-supervisor-alarm", "yes")
        # A table that goes away is shown offline (its publisher's retained status).
        tables["T3"].feed.stop("table closed")
        await expect(cards.nth(2)).to_have_attribute("data-status", "offline")


async def test_a_table_change_reaches_the_page_within_a_second(
    page: Page, broker: MosquittoBroker, prefix: str, tmp_path: Path
) -> None:
    async with page_on_two_tables(page, broker.url, prefix, tmp_path) as tables:
        card = page.locator("#tables .table[data-table='T2']")
        await expect(card.locator(".round")).to_have_text("Manche 1")
        for number in range(2, 7):
            started = time.monotonic()
            tables["T2"].offer(snapshot("split", round_number=number, seq=10 * number))
            await expect(card.locator(".round")).to_have_text(f"Manche {number}", timeout=1000)
            assert time.monotonic() - started < 1.0
        await expect(card).to_have_attribute("data-phase", "playing")


async def test_a_click_opens_the_tables_live_view_read_only_and_it_sends_nothing(
    page: Page, broker: MosquittoBroker, prefix: str, tmp_path: Path
) -> None:
    sent: list[str] = []

    def watch(socket: WebSocket) -> None:
        socket.on("framesent", lambda frame: sent.append(str(frame)))

    page.on("websocket", watch)
    async with pit_stack(broker.url, prefix) as (_, server, _), \
            publishing_tables(broker.url, prefix, ["T1", "T2"], tmp_path) as tables:  # fmt: skip
        tables["T1"].offer(snapshot("betting"))
        shown = tables["T2"].offer(snapshot("alarms", round_number=30, seq=300))
        await page.goto(server.url)
        await page.locator("#tables .table[data-table='T2']").click()
        await expect(page).to_have_url(re.compile(r"/table/T2\?pit="))
        body = page.locator("body")
        await expect(body).to_have_attribute("data-connection", "connected")
        await expect(body).to_have_attribute("data-seq", "300")
        # The dealer display's rendering of the table's own snapshot: its round, boxes and alarms.
        await expect(page.locator("#table-id")).to_have_text("T2")
        await expect(page.locator("#round")).to_have_text("30")
        await expect(page.locator("#boxes .box")).to_have_count(len(shown["boxes"]))
        await expect(page.locator("#alarms .alarm")).to_have_count(3)
        await expect(page.locator("#pit-banner")).to_have_text("Vue de la salle : lecture seule")
        # Read-only: the only buttons are the language switch; no command, no acknowledgement.
        buttons = await page.locator("button").evaluate_all("nodes => nodes.map(n => n.id)")
        assert sorted(buttons) == ["lang-en", "lang-fr"]
        assert await page.locator(".command, .ack, [data-command], [data-ack]").count() == 0
        # A change on the table shows here too.
        tables["T2"].offer(snapshot("betting", round_number=31, seq=310))
        await expect(page.locator("#round")).to_have_text("31", timeout=1000)
        await page.locator("#lang-en").click()
        await expect(page.locator("#pit-banner")).to_have_text("Pit view: read-only")
        await expect(page.locator("#phase")).to_have_text(re.compile(r"\w"))
    assert sent == [], f"the read-only pages sent {sent}"


async def test_a_click_opens_a_table_while_the_floor_changes_several_times_a_second(
    page: Page, broker: MosquittoBroker, prefix: str, tmp_path: Path
) -> None:
    async with page_on_two_tables(page, broker.url, prefix, tmp_path) as tables:
        await expect(page.locator("#tables .table")).to_have_count(2)

        async def busy() -> None:
            for number in range(2, 1000):
                tables["T1"].offer(snapshot("split" if number % 2 else "betting", round_number=number, seq=10 * number))
                tables["T2"].offer(snapshot("betting", round_number=number, seq=10 * number))
                await asyncio.sleep(0.05)

        churn = asyncio.create_task(busy())
        try:
            rounds = page.locator("#tables .table[data-table='T1'] .round")
            await expect(rounds).not_to_have_text("Manche 1")
            # Cards keep their nodes while their text changes: a press and its release land on the same card.
            card = await page.locator("#tables .table[data-table='T1']").element_handle()
            before = await rounds.text_content()
            await expect(rounds).not_to_have_text(before or "")
            assert await card.evaluate("node => node.isConnected")
            await page.locator("#tables .table[data-table='T1']").click(timeout=5000)
            await expect(page).to_have_url(re.compile(r"/table/T1\?pit="))
            # The table's page loaded (its modules, the display's among them) and follows the table.
            await expect(page.locator("body")).to_have_attribute("data-connection", "connected")
        finally:
            churn.cancel()
