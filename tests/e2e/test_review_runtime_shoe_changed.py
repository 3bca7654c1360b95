"""After a restart, a shoe that reports another shoe than the journal's, and never says it was shuffled, is an alarm.

The driver acknowledges a shoe message when it arrives; the runtime journals it a moment later. A crash in
between loses a SHOE_LOADED the shoe will not send again: the table would count the new shoe's cards (its
burns included) against the old one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simulators.shoe import SimulatedShoe
from table_runtime.journal import Journal, journal_path
from tests.e2e.test_shoe_count_mismatch import burned, run_until_online


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
