"""The table's séance on the pit's live view of it, in Chromium, on real parts (a table publishing through the real
feed publisher to a real Mosquitto, the pit following the broker): the séance's figures as the table's snapshots give
them, updated each round, and the chart of its win and its float (the tray the table expects) through the séance,
an inline SVG the page draws, a point a round; a new séance starts a new chart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from simulators.mosquitto import MosquittoBroker
from table_runtime.core.seance import Count, SeanceAccount, SeanceOpened, Seances, Signature
from tests.display.conftest import screenshot
from tests.floor.pit.pit_support import PIT_TOKEN, pit_stack, publishing_tables, snapshot

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(90)]

DEALER = Signature(role="dealer")
OPENER = Count(chips=((50000, 20), (10000, 50)))  # 15,000.00 €
# Per round closed: the players' net so far (the house's win is its opposite), the drop so far.
ROUNDS = [(0, 0), (-12_000, 50_000), (4_500, 50_000), (-30_500, 80_000)]


def seance_snapshot(seances: Seances, round_number: int, seq: int) -> dict[str, Any]:
    made = snapshot("betting", round_number=round_number, seq=seq)
    made["seance"] = seances.view()  # the table's own view of its séances (core/seance.py)
    return made


def at_round(account: SeanceAccount, rounds: int, players_net: int, drop: int) -> None:
    account.rounds, account.players_net_cents, account.drop_cash_cents = rounds, players_net, drop


async def points(page: Page, series: str) -> list[tuple[int, int]]:
    circles = page.locator(f"#seance-chart [data-series='{series}'] circle.point")
    found: list[list[str]] = await circles.evaluate_all(
        "nodes => nodes.map(n => [n.dataset.round, n.dataset.cents])")
    return [(int(round_), int(cents)) for round_, cents in found]


async def test_the_pit_follows_the_seance_figures_and_charts_its_win_and_float_round_by_round(
        page: Page, broker: MosquittoBroker, prefix: str, tmp_path: Path) -> None:
    seances = Seances()
    seances.apply(SeanceOpened(opener=OPENER, by=DEALER))
    account = seances.current
    assert account is not None
    async with pit_stack(broker.url, prefix) as (_, server, _), \
            publishing_tables(broker.url, prefix, ["T1"], tmp_path) as tables:  # fmt: skip
        table = tables["T1"]
        table.offer(seance_snapshot(seances, 1, 10))
        await page.goto(f"{server.url.split('?')[0]}table/T1?pit={PIT_TOKEN}&lang=en")
        panel = page.locator("#seance-panel")
        await expect(panel).to_be_visible()
        await expect(panel.locator("h2")).to_have_text("Séance 1: 0 round(s)")
        for number, (net, drop) in enumerate(ROUNDS[1:], start=1):
            at_round(account, number, net, drop)
            table.offer(seance_snapshot(seances, number + 1, 10 + 10 * number))
            await expect(page.locator("#seance-chart")).to_have_attribute("data-points", str(number + 1))
            # The figures follow each round: the win so far, the float the table expects.
            await expect(panel.locator("[data-figure='win_so_far'] td")).to_contain_text(f"{abs(net) / 100:,.2f}")
        expected_float = [account.opener.cents - drop - net for net, drop in ROUNDS]
        assert await points(page, "win") == [(index, -net) for index, (net, _) in enumerate(ROUNDS)]
        assert await points(page, "float") == list(enumerate(expected_float))
        assert account.expected_tray_cents == expected_float[-1]
        await expect(panel.locator("[data-figure='expected_tray_cents'] td")).to_contain_text(
            f"{expected_float[-1] / 100:,.2f}")
        await expect(panel.locator("[data-figure='expected_tray_cents'] th")).to_have_text("Expected float")
        # The line through the points: one x,y pair a round.
        line = await page.locator("#seance-chart [data-series='win'] polyline").get_attribute("points")
        assert line is not None and len(line.split()) == len(ROUNDS)
        # A snapshot of the same round again (a card, a bet) changes that round's point, adds none.
        table.offer(seance_snapshot(seances, 4, 41))
        await expect(page.locator("body")).to_have_attribute("data-seq", "41")
        await expect(page.locator("#seance-chart")).to_have_attribute("data-points", str(len(ROUNDS)))
        # In French, the same figures in the floor's words.
        await page.locator("#lang-fr").click()
        await expect(panel.locator("[data-figure='expected_tray_cents'] th")).to_have_text("Plateau attendu")
        await expect(page.locator("#seance-chart [data-series='win'] text")).to_contain_text("Résultat")
        await page.locator("#seance-panel").scroll_into_view_if_needed()
        await screenshot(page, "pit-seance-fr")
        # The next séance starts a chart of its own.
        seances.current = None
        seances.closed.append(account)
        seances.apply(SeanceOpened(opener=OPENER, by=DEALER))
        table.offer(seance_snapshot(seances, 5, 50))
        await expect(panel).to_have_attribute("data-seance", "2")
        await expect(page.locator("#seance-chart")).to_have_attribute("data-points", "1")
        assert await points(page, "float") == [(0, OPENER.cents)]


async def test_a_table_without_a_seance_shows_no_seance_panel(
        page: Page, broker: MosquittoBroker, prefix: str, tmp_path: Path) -> None:
    async with pit_stack(broker.url, prefix) as (_, server, _), \
            publishing_tables(broker.url, prefix, ["T1"], tmp_path) as tables:  # fmt: skip
        tables["T1"].offer(snapshot("betting", round_number=3, seq=30))
        await page.goto(f"{server.url.split('?')[0]}table/T1?pit={PIT_TOKEN}")
        await expect(page.locator("body")).to_have_attribute("data-seq", "30")
        await expect(page.locator("#seance-panel")).to_be_hidden()
