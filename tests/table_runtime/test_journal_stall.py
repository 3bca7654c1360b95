"""A disk that stalls holds the table's step, never its event loop (runtime/journal_writer.py).

Real parts: the simulated shoe firmware on a pty read by the real `SerialShoe` driver, the dealer panel on
gpiozero's mock pins, the display server over HTTP, the journal on SQLite. The stall is real too: another
connection holds the journal's write lock (`BEGIN IMMEDIATE`), so the table's commit waits inside SQLite (its
busy timeout) as it would on a card that takes seconds to fsync. While it waits:

- the loop still serves: the display answers a snapshot, and that snapshot is the committed table (not the card
  whose rows are not durable yet, although the core has applied it);
- the card is not acknowledged to the shoe (it still holds it);
- a panel press made meanwhile is taken by the panel and waits its turn: not journaled, not lost.

Once the other connection lets go: the card is journaled once, then the press, in that order, the shoe is
acknowledged and the snapshot shows the card.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from drivers.dealer_panel import GpioDealerPanel
from drivers.shoe import SerialShoe
from simulators.shoe import SimulatedShoe
from table_runtime.config import load_config
from table_runtime.display.server import DisplayServer
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.journal import Journal
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController
from tests.deploy.support import demo_table
from tests.polling import until

pytestmark = pytest.mark.timeout(60)


def journaled(path: Path) -> list[tuple[int, str, dict[str, Any]]]:
    """The rows as another reader of the file sees them (what is durable, not what the table holds in memory)."""
    with sqlite3.connect(path) as reader:
        return [(int(seq), str(kind), json.loads(body))
                for seq, kind, body in reader.execute("SELECT seq, kind, body FROM entries ORDER BY seq")]


async def snapshot_of(session: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    async with asyncio.timeout(5), session.get(f"{url}api/snapshot") as response:
        assert response.status == 200
        answer: dict[str, Any] = await response.json()
        return answer


async def test_a_stalled_commit_holds_the_step_not_the_loop(tmp_path: Path) -> None:
    config = load_config(demo_table(tmp_path), environ={})
    factory = MockFactory(pin_class=MockPWMPin)
    with Journal.open(config.journal_path) as journal, SimulatedShoe(seed=5, announce=True) as simulated:
        controller = TableController(table_id=config.table_id, rules=config.rules, limits=config.limits,
                                     journal=journal, clock=time.time)
        panel = GpioDealerPanel(config.pins, pin_factory=factory)
        app = TableApp(controller, shoe=SerialShoe(simulated.url), panel=panel)
        app.display = display = DisplayServer(app, port=0)
        points: asyncio.Queue[tuple[str, int]] = asyncio.Queue()  # the shoe link's commit points, in order
        app.shoe_link.on_commit = lambda point, events: points.put_nowait((point, events[-1].sequence))
        holder = sqlite3.connect(config.journal_path, isolation_level=None, check_same_thread=False)
        running = asyncio.create_task(app.run())
        try:
            async with aiohttp.ClientSession() as session:
                await until(lambda: controller.committed.snapshot["devices"]["shoe"] == "online"
                            and controller.committed.snapshot["shoe"]["loaded"], "the shoe online, its shoe loaded")
                await until(lambda: simulated.firmware.unacknowledged == 0, "the shuffle acknowledged")
                while not points.empty():
                    points.get_nowait()
                before = await snapshot_of(session, display.url)

                await asyncio.to_thread(holder.execute, "BEGIN IMMEDIATE")  # the disk stalls from here
                await asyncio.to_thread(simulated.draw)
                async with asyncio.timeout(10):
                    point, card_sequence = await points.get()
                assert point == "before-commit"
                # The core has the card (a burn) while its rows wait for the disk ...
                await until(lambda: controller.table.shoe.dealt == before["shoe"]["cards_dealt"] + 1,
                            "the card applied to the core")
                assert controller.writer.stepping
                # ... the loop serves the display, which shows the table as the journal has it,
                stalled = await snapshot_of(session, display.url)
                assert stalled["seq"] == before["seq"] and stalled["shoe"] == before["shoe"]
                # the shoe is not acknowledged for the card,
                assert simulated.firmware.unacknowledged == 1
                # and a press made now is taken by the panel and waits its turn.
                pin = factory.pin(config.pins.next)
                pin.drive_low()
                async with asyncio.timeout(10):
                    await panel.wait_for_press("NEXT")
                pin.drive_high()
                async with asyncio.timeout(10):
                    await panel.wait_for_release("NEXT")
                assert (await snapshot_of(session, display.url))["seq"] == before["seq"]
                assert journaled(config.journal_path)[-1][0] == before["seq"]  # nothing of either is durable
                assert points.empty()  # the card's step has not committed

                await asyncio.to_thread(holder.execute, "ROLLBACK")  # the disk takes writes again
                async with asyncio.timeout(10):
                    assert await points.get() == ("after-commit", card_sequence)
                await until(lambda: simulated.firmware.unacknowledged == 0, "the card acknowledged")
                await until(lambda: bool([seq for seq, kind, body in journaled(config.journal_path)
                                          if kind == "alarm" and body["kind"] == AlarmKind.COMMAND_REFUSED]),
                            "the NEXT press journaled (refused: no round)")
                rows = journaled(config.journal_path)
                cards = [(seq, body) for seq, kind, body in rows if kind == "input" and body["type"] == "CardDrawn"]
                assert [body["origin"]["sequence"] for _, body in cards] == [card_sequence]  # once
                (refused,) = [seq for seq, kind, body in rows
                              if kind == "alarm" and body["kind"] == AlarmKind.COMMAND_REFUSED]
                assert cards[0][0] < refused  # in the order they came: the card, then the press
                assert [seq for seq, _, _ in rows] == list(range(1, len(rows) + 1))
                after = await snapshot_of(session, display.url)
                assert after["shoe"]["cards_dealt"] == before["shoe"]["cards_dealt"] + 1
        finally:
            holder.close()
            app.stop("test")
            async with asyncio.timeout(30):
                await running
