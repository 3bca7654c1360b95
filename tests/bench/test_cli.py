"""`table-bench run` as an engineer runs it: the report, the exit code, JUnit, parallel jobs, the feed check."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from simulators.bench.cli import LIBRARY, main

BASIC = LIBRARY / "01-fr-casino-player-20-beats-bank-17.yaml"
BLACKJACK = LIBRARY / "02-blackjack-pays-3-to-2.yaml"


@pytest.mark.timeout(120)
def test_a_failing_scenario_reports_its_first_difference_and_fails_the_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text(BASIC.read_text(encoding="utf-8").replace("box1.hand0.original: 1000", "box1.hand0.original: 999"),
                     encoding="utf-8")
    report = tmp_path / "report.xml"
    assert main(["run", str(wrong), str(BASIC), "--junit", str(report)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  fr-casino, player 20 beats bank 17" in out
    assert "first difference: expect[steps[7].expect].payouts.box1.hand0.original: expected 999, seen 1000" in out
    assert "PASS  fr-casino, player 20 beats bank 17" in out
    suite = ElementTree.parse(report).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"


@pytest.mark.timeout(180)
def test_parallel_jobs_keep_the_order_and_mqtt_checks_every_seq(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path in (BASIC, BLACKJACK):
        shutil.copy(path, tmp_path / path.name)
    assert main(["run", str(tmp_path), "--jobs", "2", "--mqtt", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.index("01-fr-casino") < out.index("02-blackjack")
    assert out.count('"status": "passed"') == 2


def test_a_bad_scenario_file_stops_the_run_before_anything_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("cites: x\nsteps:\n  - press: JUMP\n", encoding="utf-8")
    assert main(["run", str(BASIC), str(bad)]) == 2
    assert f"table-bench: error: {bad}: steps[0].press: a panel button" in capsys.readouterr().err
