"""Recall of a voided round says who voided it and why (docs/rules.md "Corrections and recall": every correction is
journaled with who and why): in `table-runtime recall`'s text, in its JSON (`void`), and in the step."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]  # no stubs in the test environment
import pytest

from table_runtime.cli import main
from table_runtime.display.schema import RECALLED_ROUND_SCHEMA
from table_runtime.game.cards import Card
from table_runtime.game.inputs import BetsLocked, BoxBet, CardDrawn, Confirm, Input, Next, ShoeShuffled, Void
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController

REASON = "two cards came out stuck together"


def play(data_dir: Path) -> None:
    """Round 1 voided by the supervisor mid-deal, round 2 played to its end."""
    with Journal.open(journal_path(data_dir)) as journal:
        controller = TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(),
                                     journal=journal, clock=lambda: 1_800_000_000.0)
        bet = BetsLocked(bets=(BoxBet(box=1, seated_cents=1000, owner="p1"),))
        steps: list[Input] = [
            ShoeShuffled(shoe_id="S1"), *(CardDrawn(card=Card.parse(c)) for c in ("9C", "9D", "9H", "9S", "8C")),
            bet, CardDrawn(card=Card.parse("TS")), Void(by="supervisor", reason=REASON),
            bet, *(CardDrawn(card=Card.parse(c)) for c in ("TD", "6D", "TC")), Next(),
            *(CardDrawn(card=Card.parse(c)) for c in ("TH", "2S")), Confirm(),
        ]
        for step in steps:
            controller.submit(step)


def recall(data_dir: Path, capsys: pytest.CaptureFixture[str], *options: str) -> str:
    assert main(["recall", "--data-dir", str(data_dir), "--last", "2", *options]) == 0
    return capsys.readouterr().out


def test_recall_says_who_voided_a_round_and_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    play(tmp_path)
    text = recall(tmp_path, capsys).splitlines()
    headers = [line for line in text if line.startswith("== round")]
    assert headers == [f"== round 1 (table T, shoe S1): voided by supervisor: {REASON}",
                       "== round 2 (table T, shoe S1): settled"]
    assert any(line.strip().endswith(f"round voided by supervisor: {REASON}") for line in text)

    voided, settled = json.loads(recall(tmp_path, capsys, "--json"))
    assert voided["result"] == "voided" and voided["void"] == {"by": "supervisor", "reason": REASON}
    assert settled["result"] == "settled" and "void" not in settled
    [event] = [event for event in voided["steps"][-1]["events"] if event["type"] == "RoundVoided"]
    assert (event["by"], event["reason"]) == ("supervisor", REASON)  # what the display words the step from

    for round_ in (voided, settled):  # the display's contract for a recalled round
        jsonschema.validate(round_, RECALLED_ROUND_SCHEMA)
