"""The demo plays the 2020 profile for real: its simulated players surrender by the chart's surrender column
(55-4 1°) and stake the hyper black jack field (55-4 6°), and the journal holds the engine's own surrenders, hyper
bets and hyper payouts, fast (inputs fed straight in) and live (the dealer puts the chips on each case and assigns
them to their box on the display before DEAL)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from table_runtime.cli import main
from table_runtime.journal import Journal, journal_path


def journal_bodies(data_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    journal = Journal.open(journal_path(data_dir))
    try:
        return [(entry.kind, dict(entry.body)) for entry in journal.entries()]
    finally:
        journal.close()


def hyper_payouts(rows: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [payout for kind, body in rows if kind == "round" for payout in body["payouts"]
            if str(payout["kind"]).startswith("hyper.")]


def test_300_fast_rounds_of_fr_2020_journal_surrenders_and_hyper_bets(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--fast", "--rounds", "300", "--profile", "fr-2020", "--data-dir", str(tmp_path),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rounds"] == 300
    rows = journal_bodies(tmp_path)
    inputs = Counter(body["type"] for kind, body in rows if kind == "input")
    events = Counter(body["type"] for kind, body in rows if kind == "event")
    assert inputs["Surrender"] > 10 and events["HandSurrendered"] == inputs["Surrender"], (inputs, events)
    locks = [body for kind, body in rows if kind == "input" and body["type"] == "BetsLocked"]
    with_hyper = [lock for lock in locks if lock.get("hyper")]
    assert len(with_hyper) > 30, len(with_hyper)
    assert {bet["case"] for lock in with_hyper for bet in lock["hyper"]} == {
        "17", "18", "19", "20", "21", "blackjack", "bust"}  # at random cases
    assert events["HyperFieldSettled"] == len(with_hyper)
    payouts = hyper_payouts(rows)
    assert {payout["outcome"] for payout in payouts} == {"hyper_win", "hyper_lose"}
    # every surrendered stake is settled at half by the engine (game/surrender.py)
    surrendered = [payout for kind, body in rows if kind == "round" for payout in body["payouts"]
                   if payout["outcome"] == "surrender"]
    assert surrendered and all(payout["net_cents"] == -(payout["staked_cents"] - payout["staked_cents"] // 2)
                               for payout in surrendered)


@pytest.mark.timeout(240)
def test_the_live_dealer_assigns_each_cases_chips_to_its_box(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--rounds", "8", "--pace", "0", "--profile", "fr-2020", "--http", "off", "--seed", "3",
                 "--error-rate", "0", "--devices-in-process", "--data-dir", str(tmp_path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["rounds"] == 8
    assert not {"hyper_unassigned", "hyper_bet_refused", "settlement_order", "wrong_payout"} & set(summary["alarms"])
    rows = journal_bodies(tmp_path)
    assigned = [body for kind, body in rows if kind == "input" and body["type"] == "HyperAssigned"]
    locked = [bet for kind, body in rows if kind == "input" and body["type"] == "BetsLocked"
              for bet in body.get("hyper", ())]
    assert assigned and len(locked) == len(assigned)  # every stake on the field is a box's, as the dealer said
    assert {(bet["case"], bet["box"], bet["cents"]) for bet in locked} == {
        (item["case"], item["box"], item["cents"]) for item in assigned}
    assert len(hyper_payouts(rows)) == len(locked)
