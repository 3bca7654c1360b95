"""An alarm belongs to the round in play when it is raised; between rounds it belongs to none (round 0), so the
recall of the round before does not show what happened after it closed (docs/rules.md "Corrections and recall")."""

from __future__ import annotations

from pathlib import Path

from table_runtime.game.cards import parse_cards
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Confirm, Discard, Next, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.recall import recall_rounds


def test_an_alarm_between_rounds_is_in_no_round(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1.0)

        def draw(text: str) -> None:
            for card in parse_cards(text):
                controller.submit(CardDrawn(card=card), source="shoe")

        controller.submit(ShoeShuffled(shoe_id="S1"))
        draw("9C 9D 9H 9S 8C")
        controller.submit(BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="p1"),)))
        draw("TS 6D TC")  # box1 20 against a 6
        controller.submit(Next())
        draw("TH 2S 5C")  # the bank 18, then a card for a bank that must stand: an alarm of round 1
        controller.submit(Discard())  # the held card to the discard rack
        controller.submit(Confirm())
        assert controller.table.round is not None and controller.table.round.phase == "closed"
        draw("4H")  # no bets on the table: no hand may take it, and no round is in play
        rounds = {(alarm["kind"], alarm["round"]) for alarm in controller.alarms.active}
        assert ("bank_must_stand", 1) in rounds and ("card_no_hand", 0) in rounds
        (recalled,) = recall_rounds(journal, last=1)
        assert {alarm["kind"] for alarm in recalled["alarms"]} >= {"bank_must_stand"}
        assert "card_no_hand" not in {alarm["kind"] for alarm in recalled["alarms"]}
