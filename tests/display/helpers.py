"""Small helpers shared by the display tests."""

from __future__ import annotations

import itertools
import re
from typing import Any

import aiohttp
from playwright.async_api import Locator, Page, expect

from table_runtime.core.alarm_ledger import is_advice
from table_runtime.display import DisplayServer
from table_runtime.game.cards import Card
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.rating_watch import RatingWatch
from table_runtime.runtime.recall import recall_rounds


class ManualClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def dealt_to_box_3(journal: Journal, limits: TableLimits | None = None) -> TableController:
    """A controller on `journal` in round 1: the shoe shuffled and burned, box 3's 10.00 locked, its two cards and
    the bank's card dealt (a clock that ticks a second a call)."""
    ticks = itertools.count()
    controller = TableController(table_id="T01", rules=profile("fr-casino"), limits=limits or TableLimits(),
                                 journal=journal, clock=lambda: 1_800_000_000.0 + next(ticks))
    controller.submit(ShoeShuffled(shoe_id="S1"), source="shoe")
    for code in ("9C", "9D", "9H", "9S", "8C"):
        controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
    controller.submit(BetsLocked(bets=(BoxBet(box=3, seated_cents=1000, owner="box3"),)), source="chips")
    for code in ("TD", "TC", "6D"):
        controller.draw(CardDrawn(card=Card.parse(code)), source="shoe")
    return controller


class ControllerBackend:
    """The display's backend over a real controller, as runtime/app.py's TableApp is: its snapshot, its command
    table's replies, its journal's recall."""

    def __init__(self, controller: TableController, watch: RatingWatch | None = None) -> None:
        self.controller = controller
        self.watch = watch

    def snapshot(self) -> dict[str, Any]:
        return self.controller.snapshot()

    async def command(self, name: str, args: dict[str, Any], *, role: str) -> dict[str, Any]:
        return await self.controller.step(self.controller.press, name, args, role=role, source="display")

    def recall(self, last: int) -> list[dict[str, Any]]:
        controller = self.controller
        return recall_rounds(controller.journal, last=last)

    async def security_alarm(self, kind: str, message: str, rule: str) -> None:
        await self.controller.step(self.controller.raise_alarms, [Alarm(kind=kind, message=message, rule=rule)])

    def ratings(self) -> dict[str, Any]:
        """The rated players as the runtime's watch has them (when the test runs one), and the advice raised."""
        flags = [alarm for alarm in self.controller.snapshot()["alarms"] if is_advice(alarm)]
        return {"sessions": [] if self.watch is None else self.watch.sessions, "flags": flags}


async def open_display(page: Page, server: DisplayServer, query: str = "") -> None:
    """Open the display and wait until it is connected and shows the backend's snapshot."""
    await page.goto(server.url + query)
    await expect(page.locator("body")).to_have_attribute("data-connection", "connected")
    await expect(page.locator("body")).to_have_attribute("data-shown-seq", re.compile(r"^\d+$"))


async def publish_and_wait(page: Page, server: DisplayServer, snapshot: dict[str, Any]) -> None:
    """Publish a snapshot and wait until the live page has rendered it."""
    await server.publish(snapshot)
    await expect(page.locator("body")).to_have_attribute("data-seq", str(snapshot["seq"]))


def box(page: Page, number: int) -> Locator:
    """The box `number` (1-7) on the page."""
    return page.locator(f"#boxes .box[data-box='{number}']")


async def ask(ws: aiohttp.ClientWebSocketResponse, message: dict[str, Any]) -> dict[str, Any]:
    """Send one request on the display's WebSocket and return the reply carrying its request id
    (snapshots in between are skipped)."""
    await ws.send_json({**message, "request": 99})
    while True:
        reply: dict[str, Any] = await ws.receive_json(timeout=5)
        if reply.get("request") == 99:
            return reply
