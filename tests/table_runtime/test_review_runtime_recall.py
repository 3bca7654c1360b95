"""Review of game recall: each step's snapshot is the table as it stood right after that input."""

from __future__ import annotations

from pathlib import Path

from table_runtime.game.cards import Card
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Input, Next, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds


def test_a_step_that_raised_an_alarm_shows_it_in_its_own_snapshot(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1_800_000_000.0)
        steps: list[Input] = [
            ShoeShuffled(shoe_id="S1"), *(CardDrawn(card=Card.parse(c)) for c in ("9C", "9D", "9H", "9S", "8C")),
            BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="p1"),)),
            *(CardDrawn(card=Card.parse(c)) for c in ("TS", "6D", "TC")), Next(),
            *(CardDrawn(card=Card.parse(c)) for c in ("TH", "2S")),  # the bank: 16, then 18, stands
            CardDrawn(card=Card.parse("3H")),  # a card for the bank when it must stand: an alarm
        ]
        for step in steps:
            controller.submit(step)
        raised = [alarm for alarm in controller.alarms.active if alarm["round"] == 1]
        assert raised, controller.alarms.active
        [recalled] = recall_rounds(journal, last=1)
    last = recalled["steps"][-1]
    assert "3H" in last["text"]
    assert [alarm["id"] for alarm in last["snapshot"]["alarms"]] == [alarm["id"] for alarm in raised]
    # The step before it had raised nothing yet.
    assert recalled["steps"][-2]["snapshot"]["alarms"] == []
