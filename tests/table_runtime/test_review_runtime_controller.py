"""Review of the controller: what the table shows is always what the journal holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_runtime.errors import JournalError
from table_runtime.game.cards import Card
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Input, Next, ShoeShuffled, Void
from table_runtime.game.rules import TableLimits, profile
from table_runtime.game.snapshot import table_snapshot
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController

BURNS = ["9C", "9D", "9H", "9S", "8C"]


def controller_on(journal: Journal) -> TableController:
    return TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                           clock=lambda: 1_800_000_000.0)


def deal(controller: TableController) -> None:
    """A shuffled shoe, burns, box 1 at 10.00 and the first three cards: box 1 plays."""
    steps: list[Input] = [ShoeShuffled(shoe_id="S1"), *(CardDrawn(card=Card.parse(c)) for c in BURNS),
                          BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="p1"),)),
                          *(CardDrawn(card=Card.parse(c)) for c in ("5H", "7D", "6C"))]
    for step in steps:
        controller.submit(step)


def refuse_writes(journal: Journal, refuse: bool) -> None:
    """A journal that cannot write (a full or failing SD card), as SQLite reports it."""
    journal._db().execute(f"PRAGMA query_only = {int(refuse)}")


@pytest.mark.parametrize("item", [CardDrawn(card=Card.parse("4S")), Next()], ids=["card", "stand"])
def test_an_input_the_journal_refused_leaves_the_table_as_the_journal_has_it(tmp_path: Path, item: Input) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        deal(controller)
        before = table_snapshot(controller.table)
        last_seq = journal.last_seq
        refuse_writes(journal, True)
        with pytest.raises(JournalError):
            controller.submit(item)
        refuse_writes(journal, False)
        assert journal.last_seq == last_seq
        # The dealer sees the table as it was: the input did not happen.
        assert table_snapshot(controller.table) == before
        # And the same input, once the journal writes again, is applied once, as a restart would replay it.
        controller.submit(item)
        live = table_snapshot(controller.table)
    with Journal.open(journal_path(tmp_path)) as journal:
        assert table_snapshot(controller_on(journal).table) == live


def test_a_void_whose_reason_cannot_be_journaled_is_refused_and_the_round_goes_on(tmp_path: Path) -> None:
    with Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        deal(controller)
        last_seq = journal.last_seq
        with pytest.raises(JournalError):  # a display page sent "\ud800" in its JSON: no UTF-8 text can hold it
            controller.submit(Void(by="supervisor", reason="misdeal \ud800"))
        assert journal.last_seq == last_seq and journal.verify().ok
        round_ = controller.table.round
        assert round_ is not None and round_.phase == "playing"
