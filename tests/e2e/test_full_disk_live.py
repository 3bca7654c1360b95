"""The live table (real drivers over simulated devices, gpiozero mock pins, a real Mosquitto) with its journal on
a small tmpfs that fills up: the lamps go red and the feed's state carries the `journal_unwritable` alarm, no
card is acknowledged to the shoe, and freeing space resumes play (tests/e2e/test_full_disk.py runs the same
through the `table-runtime run` process and its display).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from drivers.dealer_panel import GpioDealerPanel
from drivers.ports import CardDrawn, Tower
from simulators.mosquitto import MOSQUITTO, MosquittoBroker
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.feed.settings import FeedSettings
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.journal import Journal, journal_path
from tests.e2e.conftest import live_table
from tests.small_disk import small_disk

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.skipif(not Path(MOSQUITTO).exists(), reason=f"{MOSQUITTO} is not installed")]


def kinds(alarms: list[dict[str, Any]]) -> list[str]:
    return [str(alarm["kind"]) for alarm in alarms]


async def latest_state(port: int, topic: str, want: Any) -> dict[str, Any]:
    """The retained state, then each new one, until `want(state)` holds."""
    async with aiomqtt.Client("127.0.0.1", port) as subscriber:
        await subscriber.subscribe(topic, qos=1)
        async with asyncio.timeout(20):
            async for message in subscriber.messages:
                assert isinstance(message.payload, bytes)
                state: dict[str, Any] = json.loads(message.payload)
                if want(state):
                    return state
    raise AssertionError("unreachable")


async def test_a_full_card_turns_the_lamps_red_and_the_feed_state_carries_the_alarm(tmp_path: Path) -> None:
    broker_dir = tmp_path / "broker"
    broker_dir.mkdir()
    prefix = f"test-{uuid.uuid4().hex[:10]}"
    with small_disk(tmp_path / "card") as disk, MosquittoBroker(directory=broker_dir) as broker:
        journal = Journal.open(journal_path(disk.path))
        feed = FeedPublisher(FeedSettings.from_mapping(
            {"url": broker.url, "prefix": prefix, "table_id": "E2E", "backoff_initial": 0.05, "backoff_max": 0.4,
             "poll_interval": 0.05}, environ={}), journal)
        state_topic = f"{prefix}/tables/E2E/state"
        try:
            async with live_table(journal, tmp_path, feed=feed, journal_retry_seconds=0.2) as live:
                controller, app, hands, shoe_sim = live.controller, live.app, live.hands, live.devices.shoe_sim
                await hands.until("shoe online", lambda: controller.devices["shoe"] == "online", 20)
                await asyncio.to_thread(shoe_sim.shuffle)
                await hands.until("the shoe loaded", lambda: controller.table.shoe.loaded, 20)
                disk.fill()
                for _ in range(60):
                    dealt = controller.table.shoe.dealt
                    await asyncio.to_thread(shoe_sim.draw)
                    await hands.until("the card or the outage", lambda: controller.outage is not None
                                      or controller.table.shoe.dealt > dealt)  # noqa: B023 - awaited at once
                    if controller.outage is not None:
                        break
                assert controller.outage is not None
                panel = app.panel
                assert isinstance(panel, GpioDealerPanel)
                await hands.until("the tower red", lambda: panel.tower is Tower.ALARM)
                state = await latest_state(broker.port, state_topic,
                                           lambda s: AlarmKind.JOURNAL_UNWRITABLE in kinds(s["snapshot"]["alarms"]))
                assert "cannot write: disk full" in state["snapshot"]["alarms"][-1]["message"]
                held = shoe_sim.firmware.unacknowledged
                assert held >= 1  # the refused card: the shoe holds it

                disk.free()
                await hands.until("the journal back", lambda: controller.outage is None, 20)
                await hands.until("the cards resent and acknowledged",
                                  lambda: shoe_sim.firmware.unacknowledged == 0, 20)
                await hands.until("the tower back", lambda: panel.tower is not Tower.ALARM)
                await latest_state(broker.port, state_topic,
                                   lambda s: AlarmKind.JOURNAL_UNWRITABLE not in kinds(s["snapshot"]["alarms"]))
                drawn = [event.code for event in shoe_sim.sent_events if isinstance(event, CardDrawn)]
                journaled = [entry.body["card"] for entry in journal.entries(kinds=("input",))
                             if entry.body["type"] == "CardDrawn"]
                assert journaled == drawn  # each card once, in the order drawn
        finally:
            journal.close()
