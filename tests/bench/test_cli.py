"""`table-bench run` as an engineer runs it: the report, the exit code, JUnit, parallel jobs, the feed check."""

from __future__ import annotations

import os
import re
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from simulators.bench.cli import LIBRARY, Progress, main
from simulators.bench.runner import ScenarioResult

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
    captured = capsys.readouterr()
    out = captured.out
    # Each scenario on stderr as it finishes, with its place in the run and its time.
    assert re.search(r"(?m)^\[1/2\] FAIL  fr-casino, player 20 beats bank 17 \(\d+\.\d s\)$", captured.err)
    assert re.search(r"(?m)^\[2/2\] PASS  fr-casino, player 20 beats bank 17 \(\d+\.\d s\)$", captured.err)
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
    captured = capsys.readouterr()
    out = captured.out
    assert sorted(re.findall(r"(?m)^\[(\d)/2\] PASS ", captured.err)) == ["1", "2"]  # as each job finishes
    assert out.index("01-fr-casino") < out.index("02-blackjack")
    assert out.count('"status": "passed"') == 2


def test_a_bad_scenario_file_stops_the_run_before_anything_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("cites: x\nsteps:\n  - press: JUMP\n", encoding="utf-8")
    assert main(["run", str(BASIC), str(bad)]) == 2
    assert f"table-bench: error: {bad}: steps[0].press: a panel button" in capsys.readouterr().err


def test_on_a_terminal_the_progress_is_a_bar_with_the_lines_above_it() -> None:
    controller, terminal = os.openpty()
    with os.fdopen(terminal, "w", encoding="utf-8") as stream:
        progress = Progress(3, stream=stream)
        progress(ScenarioResult(name="one", path="one.yaml", status="passed", seconds=1.25))
        progress(ScenarioResult(name="two", path="two.yaml", status="failed", seconds=0.5))
        stream.flush()
        written = b""
        while b"FAIL  two" not in written or b"2/3" not in written.rsplit(b"FAIL  two", 1)[1]:  # the bar below it
            written += os.read(controller, 65536)
        progress.close()
    os.close(controller)
    seen = written.decode()
    assert "[1/3] PASS  one (1.2 s)" in seen and "[2/3] FAIL  two (0.5 s)" in seen
    assert "table-bench:  67%" in seen.rsplit("FAIL  two", 1)[1]
