"""Recall replays a hyper black jack round (55-4 6°) from its journal: the step that settles it names the bank's
result, each step's snapshot shows the field, and the round's payouts hold the hyper stakes'."""

from __future__ import annotations

from pathlib import Path

from table_runtime.journal import Journal
from table_runtime.runtime.recall import recall_rounds
from tests.table_runtime.core.hyper_table import play_hyper_round


def test_a_recalled_hyper_round_shows_the_field_its_result_and_its_payouts(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "hyper.db")
    play_hyper_round(journal)
    (round_,) = recall_rounds(journal, last=10)
    journal.close()
    assert round_["result"] == "settled"
    assert any("hyper black jack: the bank's result bust" in step["text"] for step in round_["steps"])
    assert any(event["type"] == "HyperFieldSettled" for step in round_["steps"] for event in step.get("events", []))
    first = round_["steps"][0]["snapshot"]["hyper"]
    assert [(case["case"], case["stakes"]) for case in first["cases"] if case["stakes"]] == [
        ("20", [{"box": 1, "owner": "box1", "cents": 500}]), ("bust", [{"box": 1, "owner": "box1", "cents": 1000}])]
    assert round_["steps"][-1]["snapshot"]["hyper"]["result"] == "bust"
    assert sorted((p["kind"], p["net_cents"]) for p in round_["payouts"]) == [
        ("hyper.20", -500), ("hyper.bust", 2000), ("original", 1000)]
