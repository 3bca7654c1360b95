"""The demo's séances (simulators/seance_dealer.py): the simulated dealer opens and closes a séance every K rounds,
asks for fills when its tray runs low, takes buy-ins and tips; for every séance the table's accounts satisfy
closer − opener + credits − fills + drop = −(the players' settled net the demo counted), to the cent, tips never
in the win; `table-runtime accounts` prints the same séances from the journal alone. The live demo reads its tray
by RFID (simulators/demo_tray.py): its openers and closers are the table's reads of the tray, and the tray's
reconciliation after every round finds no variance."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table_runtime.cli import main


def demo(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["demo", *args, "--json"]) == 0
    summary: dict[str, Any] = json.loads(capsys.readouterr().out)
    return summary


def check_identity(seances: list[dict[str, Any]]) -> None:
    for seance in seances:
        assert not seance["open"], seance
        win = seance["closer_cents"] - seance["opener_cents"] + seance["credits_cents"] - seance["fills_cents"] \
            + seance["drop_cents"]
        assert seance["win_cents"] == win == -seance["players_net_cents"], seance


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_100_seances_of_the_fast_demo_balance_to_the_cent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = demo(capsys, "--fast", "--rounds", "300", "--seance-rounds", "3", "--data-dir", str(tmp_path))
    seances = summary["seances"]
    assert len(seances) == 100 and all(seance["rounds"] == 3 for seance in seances)
    check_identity(seances)
    assert sum(seance["fills"] for seance in seances) > 0  # the tray ran low
    assert sum(seance["tips"] for seance in seances) > 0 and sum(seance["drop_cents"] for seance in seances) > 0
    assert summary["alarms"].get("aml_identity_required", 0) > 0  # a player past 2,000 € in a séance
    # The accounts from the journal alone are the demo's séances.
    assert main(["accounts", "--data-dir", str(tmp_path), "--json"]) == 0
    accounts = json.loads(capsys.readouterr().out)
    assert [{key: seance[key] for key in seances[0] if key != "players_net_cents"}
            for seance in accounts["seances"]] == [
        {key: value for key, value in seance.items() if key != "players_net_cents"} for seance in seances]
    assert accounts["folded_from"] > 0  # from the newest checkpoint: it carries the séances closed before it
    assert accounts["journal_head"]["seq"] == summary["journal_rows"]


def test_the_fast_demo_of_60_rounds_has_three_seances(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = demo(capsys, "--fast", "--rounds", "60", "--seance-rounds", "20", "--data-dir", str(tmp_path))
    seances = summary["seances"]
    assert [seance["rounds"] for seance in seances] == [20, 20, 20]
    assert all(seance["tips_cents"] > 0 for seance in seances)
    check_identity(seances)
    assert main(["accounts", "--data-dir", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "== séance 3 (closed)" in text and "3 séance(s)" in text


def check_tray(capsys: pytest.CaptureFixture[str], data_dir: Path, summary: dict[str, Any]) -> None:
    """The live demo reads its tray by RFID: every opener and closer is the table's read of it (`source` tray), the
    tray's own moves never a variance, a fill when it ran low, tips taken (and never in the win)."""
    assert summary["alarms"].get("tray_variance", 0) == 0, summary["alarms"]
    seances = summary["seances"]
    assert sum(seance["fills"] for seance in seances) > 0 and all(seance["tips_cents"] > 0 for seance in seances)
    assert main(["accounts", "--data-dir", str(data_dir), "--json"]) == 0
    accounts = json.loads(capsys.readouterr().out)["seances"]
    assert [(seance["opener"]["source"], seance["closer"]["source"]) for seance in accounts] == [("tray", "tray")] * 3
    # Each séance opens with the tray the last one closed with: the same chips, read again.
    assert [seance["opener_cents"] for seance in seances[1:]] == [seance["closer_cents"] for seance in seances[:-1]]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_live_demo_of_60_rounds_and_3_seances_balances(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = demo(capsys, "--rounds", "60", "--seance-rounds", "20", "--pace", "0", "--http", "off",
                   "--devices-in-process", "--data-dir", str(tmp_path))
    seances = summary["seances"]
    assert [seance["rounds"] for seance in seances] == [20, 20, 20]
    check_identity(seances)
    check_tray(capsys, tmp_path, summary)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_live_demo_with_its_devices_process_reads_the_tray_and_balances(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = demo(capsys, "--rounds", "60", "--seance-rounds", "20", "--pace", "0", "--http", "off",
                   "--data-dir", str(tmp_path))
    assert summary["devices"] == "started"  # the tray's rows on the reader of the devices process
    check_identity(summary["seances"])
    check_tray(capsys, tmp_path, summary)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_live_demo_counts_the_tray_by_hand_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = demo(capsys, "--rounds", "20", "--seance-rounds", "10", "--pace", "0", "--http", "off",
                   "--devices-in-process", "--manual-tray", "--data-dir", str(tmp_path))
    check_identity(summary["seances"])
    assert main(["accounts", "--data-dir", str(tmp_path), "--json"]) == 0
    accounts = json.loads(capsys.readouterr().out)["seances"]
    assert {seance["opener"]["source"] for seance in accounts} == {"manual"}
