"""Drop means drop, on real parts: a table plays two rounds through the real engine and publishes through its real
feed publisher to a real Mosquitto; the floor service stores them in a real PostgreSQL and the pit page beside it
shows them in Chromium; `table-floor query money` answers from the store.

The issue's example: the players win both rounds at even money. With the stakes as the drop the pit showed
-100 % hold; the stakes are the handle, and with no buy-in there is no drop and no hold ("—"), only the
win / handle (-100 %). Once the dealer records a buy-in, the hold is the win over it."""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import io
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from casino_floor.shifts import Shifts
from casino_floor.store import FloorStore
from simulators.mosquitto import MosquittoBroker
from simulators.postgres import PostgresServer
from table_runtime.game.cards import Card
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Confirm, Next, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.runtime.controller import TableController
from tests.floor.support import floor_config, floor_toml, fresh_database

from .pit_support import pit_beside_service, publishing_tables

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(120)]


def players_win_two_rounds(controller: TableController) -> None:
    """Box 1 stakes 10.00 twice, stands on T 6 each time and the bank busts (T 2 T): the house loses 20.00."""
    controller.submit(ShoeShuffled(shoe_id="S1"), source="shoe")
    for code in ("9C", "9D", "9H", "9S", "8C"):
        controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
    for _ in range(2):
        controller.submit(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="box1"),)), source="chips")
        for code in ("TD", "TC", "6D"):
            controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
        controller.submit(Next(), source="panel")
        for code in ("2S", "TH"):
            controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
        controller.submit(Confirm(), source="panel")


async def query_money(config: Path, shift: str, *extra: str) -> str:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "casino_floor", "query", "money", "--shift", shift, *extra, "--config", str(config),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    return out.decode()


async def test_the_hold_is_the_win_over_the_buy_ins_not_over_the_stakes(
        page: Page, tmp_path: Path, floor_broker: MosquittoBroker, postgres: PostgresServer, prefix: str) -> None:
    # One shift a day, starting 12 hours from now: the test cannot run across a shift change.
    start_hour = (time.gmtime().tm_hour + 12) % 24
    shifts = Shifts((start_hour,))
    async with fresh_database(postgres, migrated=True) as database:
        config = dataclasses.replace(floor_config(database, [floor_broker.url], prefix, check_interval=0.1),
                                     pit_bind="127.0.0.1:0", pit_token=None, shifts=shifts)
        store = await FloorStore.open(database)
        try:
            async with pit_beside_service(config, store) as server, \
                    publishing_tables(floor_broker.url, prefix, ["T01"], tmp_path) as tables:  # fmt: skip
                ticks = itertools.count()
                now = time.time()
                controller = TableController(table_id="T01", rules=profile("fr-casino"), limits=TableLimits(),
                                             journal=tables["T01"].journal, clock=lambda: now + next(ticks) / 1000)
                players_win_two_rounds(controller)
                tables["T01"].feed.notify()
                await page.goto(server.url)
                card = page.locator("#tables .table[data-table='T01']")
                await expect(card.locator(".handle")).to_have_text("20,00\u00a0€")
                await expect(card.locator(".win")).to_have_text("−20,00\u00a0€")
                await expect(card.locator(".drop")).to_have_text("0,00\u00a0€")
                await expect(card.locator(".hold")).to_have_text("—")  # no drop yet: no hold (it was -100 %)
                await expect(card.locator(".win-handle")).to_have_text("−100,0\u00a0%")
                await expect(card.locator("dt[data-text='hold']")).to_have_text("Hold (résultat / drop)")

                reply = controller.press("BUY_IN", {"cents": 10_000, "tender": "cash", "box": 1}, role="dealer",
                                         source="display")
                assert reply["ok"], reply
                tables["T01"].feed.notify()
                await expect(card.locator(".drop")).to_have_text("100,00\u00a0€")
                await expect(card.locator(".hold")).to_have_text("−20,0\u00a0%")  # -20.00 / 100.00
                await expect(card.locator(".win-handle")).to_have_text("−100,0\u00a0%")
                await expect(page.locator("#pit-totals .hold")).to_have_text("−20,0\u00a0%")
                await page.locator("#lang-en").click()
                await expect(card.locator("dt[data-text='hold']")).to_have_text("Hold (win / drop)")
                await expect(card.locator("dt[data-text='handle']")).to_have_text("Handle")
                last = tables["T01"].journal.last_seq

                async with asyncio.timeout(20):  # the service stored every row, the buy-in among them
                    while True:
                        async with store.pool.acquire() as connection:
                            held = await connection.fetchval("SELECT max(seq) FROM events")
                        if held == last:
                            break
                        await asyncio.sleep(0.05)
        finally:
            await store.close()

        toml = tmp_path / "floor.toml"
        toml.write_text(floor_toml(database, [floor_broker.url], prefix) + f"[shifts]\nstarts = [{start_hour}]\n",
                        encoding="utf-8")
        shift = shifts.name_of(now)
        answer: list[dict[str, Any]] = json.loads(await query_money(toml, shift, "--format", "json"))
        assert answer == [{"shift": shift, "table_id": "T01", "rounds": 2, "handle_cents": 2000, "buy_ins": 1,
                           "drop_cents": 10_000, "win_cents": -2000, "hold_pct": -20.0,
                           "win_to_handle_pct": -100.0}]
        rows = list(csv.DictReader(io.StringIO(await query_money(toml, shift))))
        assert [(row["handle_cents"], row["drop_cents"], row["win_cents"], row["hold_pct"], row["win_to_handle_pct"])
                for row in rows] == [("2000", "10000", "-2000", "-20.0", "-100.0")]
