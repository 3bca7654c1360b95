"""After a restart, the shoe's own count of cards drawn must match the journal's (docs/rules.md "Shoe integrity").

And a shoe that reports another shoe than the journal's, and never says it was shuffled, is an alarm: the
driver acknowledges a shoe message when it arrives; the runtime journals it a moment later. A crash in between
loses a SHOE_LOADED the shoe will not send again: the table would count the new shoe's cards (its burns
included) against the old one.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from drivers.shoe import SerialShoe
from simulators.shoe import SimulatedShoe
from table_runtime.core.shoe_watch import SHOE_COUNT_GRACE_S
from table_runtime.game.cards import parse_cards
from table_runtime.game.inputs import CardDrawn, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController


async def run_until_online(controller: TableController, shoe: SimulatedShoe) -> list[str]:
    """Until the shoe is online and the runtime has had time to count what it resends."""
    app = TableApp(controller, shoe=SerialShoe(str(shoe.link)))
    runner = asyncio.create_task(app.run())
    try:
        async with asyncio.timeout(20):
            while controller.devices["shoe"] != "online":
                with contextlib.suppress(TimeoutError):  # a loaded machine: the 20 s above bound it
                    await app.wait_for_change(1.0)
        await asyncio.sleep(SHOE_COUNT_GRACE_S + 0.5)
    finally:
        app.stop()
        await runner
    return [str(alarm["kind"]) for alarm in controller.alarms.active]


def burned(journal: Journal) -> TableController:
    """A controller whose journal has shoe S1 loaded and its five burns drawn."""
    controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(),
                                 journal=journal, clock=lambda: 1.0)
    controller.submit(ShoeShuffled(shoe_id="S1"))
    for card in parse_cards("2C 3C 4C 5C 6C"):
        controller.submit(CardDrawn(card=card))
    return controller


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("drawn_by_shoe", "alarmed"), [(5, False), (7, True), (3, True)])
async def test_a_shoe_that_drew_cards_the_journal_never_saw_is_an_alarm(
    tmp_path: Path, drawn_by_shoe: int, alarmed: bool
) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = burned(journal)
        with SimulatedShoe(seed=1, shoe_number=1, cards_already_drawn=drawn_by_shoe, announce=False) as shoe:
            kinds = await run_until_online(controller, shoe)
    assert ("shoe_count_mismatch" in kinds) == alarmed


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("shoe_number", "announce", "alarmed"),
                         [(1, False, False), (2, False, True), (2, True, False)],
                         ids=["same shoe", "another shoe, unannounced", "another shoe, announced"])
async def test_a_shoe_the_journal_never_saw_loaded_is_an_alarm(
    tmp_path: Path, shoe_number: int, announce: bool, alarmed: bool
) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = burned(journal)
        drawn = 5 if shoe_number == 1 else 0
        with SimulatedShoe(seed=1, shoe_number=shoe_number, cards_already_drawn=drawn, announce=announce) as shoe:
            kinds = await run_until_online(controller, shoe)
        alarms = [alarm for alarm in controller.alarms.active if alarm["kind"] == "shoe_count_mismatch"]
    assert bool(alarms) == alarmed, kinds
    if alarmed:
        assert "shoe S2" in alarms[0]["message"] and "shoe S1" in alarms[0]["message"]
        assert alarms[0]["amounts"] == {"shoe_cards_drawn": 0, "journal_cards": 5}
    if announce:
        assert controller.table.shoe.shoe_id == "S2"
