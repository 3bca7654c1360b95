"""The rated players on the pit page, in headless Chromium: the table publishes its ``ratings`` messages on a real
Mosquitto, the service beside the page stores them in a real PostgreSQL; the page lists each table's rated players
(pseudonym or anonymous box), sorts them by theo on a click of the header, speaks French and English, drops a
closed session, and a restarted page shows from the store who is still seated."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from typing import Any

import aiomqtt
import pytest
from playwright.async_api import Page, expect

from casino_floor.store import FloorStore
from simulators.mosquitto import MosquittoBroker
from simulators.postgres import PostgresServer
from tests.floor.rating_messages import Played, session_messages
from tests.floor.support import floor_config, fresh_database

from .pit_support import pit_beside_service

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(120)]

STARTED = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=30)


def seated(first_seq: int, player: str | None, box: int, theo: int, skill: int, rounds: int) -> list[dict[str, Any]]:
    return session_messages("T01", first_seq, player, box, STARTED,
                            [Played(f"r{n}", 2500, 0, theo // rounds, skill // rounds, 90) for n in range(rounds)],
                            close=True)


async def test_the_pit_lists_each_tables_rated_players_sortable_by_theo(
        page: Page, floor_broker: MosquittoBroker, postgres: PostgresServer, prefix: str) -> None:
    # the store in the test's own loop (the page's is the session's)
    async with fresh_database(postgres, migrated=True) as database:
        store = await FloorStore.open(database)
        try:
            await pit_shows_rated_players(page, floor_broker, store, database, prefix)
        finally:
            await store.close()


async def pit_shows_rated_players(page: Page, floor_broker: MosquittoBroker, store: FloorStore, database: str,
                                  prefix: str) -> None:
    config = dataclasses.replace(floor_config(database, [floor_broker.url], prefix, check_interval=0.1),
                                 pit_bind="127.0.0.1:0", pit_token=None)
    known = seated(100, "p-3f9a0c1b2d4e", 2, 500, 800, 2)  # theo 5.00, skill theo 8.00, 3 min
    anonymous = seated(200, None, 5, 1200, 300, 4)  # theo 12.00, skill theo 3.00, 6 min
    short = seated(300, "p-77aa01", 6, 100, 2000, 1)  # theo 1.00, skill theo 20.00
    async with pit_beside_service(config, store) as server, \
            aiomqtt.Client("127.0.0.1", floor_broker.port) as table:  # fmt: skip
        for message in [*known[:-1], *anonymous[:-1], *short[:-1]]:  # all three seated, none closed
            await table.publish(f"{prefix}/tables/T01/ratings", json.dumps(message), qos=1)
        await page.goto(server.url)
        block = page.locator("#rated .rated-table[data-table='T01']")
        rows = block.locator("tbody tr")
        await expect(rows.locator(".player")).to_have_text(["p-3f9a0c1b2d4e", "anonyme, case 5", "p-77aa01"])
        await expect(rows.locator(".box")).to_have_text(["2", "5", "6"])
        await expect(rows.locator(".time")).to_have_text(["3 min", "6 min", "1 min"])
        await expect(rows.locator(".average-bet")).to_have_text(["25,00\u00a0€"] * 3)
        await expect(rows.locator(".theo")).to_have_text(["5,00\u00a0€", "12,00\u00a0€", "1,00\u00a0€"])
        await expect(rows.locator(".theo-skill")).to_have_text(["8,00\u00a0€", "3,00\u00a0€", "20,00\u00a0€"])

        await block.locator("th.theo button").click()  # highest theo first
        await expect(block).to_have_attribute("data-sort", "theo_cents-desc")
        await expect(rows.locator(".theo")).to_have_text(["12,00\u00a0€", "5,00\u00a0€", "1,00\u00a0€"])
        await block.locator("th.theo button").click()  # again: lowest first
        await expect(rows.locator(".theo")).to_have_text(["1,00\u00a0€", "5,00\u00a0€", "12,00\u00a0€"])
        await block.locator("th.theo-skill button").click()
        await expect(rows.locator(".player")).to_have_text(["p-77aa01", "p-3f9a0c1b2d4e", "anonyme, case 5"])

        await page.locator("#lang-en").click()
        await expect(block.locator("th.theo")).to_have_text("Theo")
        await expect(block.locator("th.theo-skill")).to_have_text("Skill theo")
        await expect(block.locator("th.theo-skill")).to_have_attribute("aria-sort", "descending")
        await expect(rows.locator(".player")).to_have_text(["p-77aa01", "p-3f9a0c1b2d4e", "anonymous box 5"])
        await expect(page.locator("#rated-panel h2")).to_have_text("Rated players")

        await table.publish(f"{prefix}/tables/T01/ratings", json.dumps(short[-1]), qos=1)  # he leaves
        await expect(rows.locator(".player")).to_have_text(["p-3f9a0c1b2d4e", "anonymous box 5"])

    async with pit_beside_service(config, store) as server:  # the floor restarted: who sits is in the store
        await page.goto(server.url + "?lang=en")
        rows = page.locator("#rated .rated-table[data-table='T01'] tbody tr")
        await expect(rows.locator(".player")).to_have_text(["p-3f9a0c1b2d4e", "anonymous box 5"])
        await expect(rows.locator(".theo")).to_have_text(["€5.00", "€12.00"])
