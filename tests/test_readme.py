"""What the README counts is counted again here, so it cannot go stale: the scenario files the bench plays; and
it names no internal issue number (a reader of the README has no issue tracker of ours)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_scenario_count_is_the_number_of_scenario_files() -> None:
    stated = re.findall(r"plays (\d+) scenario files", README)
    files = sorted((ROOT / "simulators" / "scenarios").glob("*.yaml"))
    assert stated == [str(len(files))], (stated, len(files))


def test_no_internal_issue_number() -> None:
    # A library's own issues (gpiozero issues #1162) are public and fine; ours are "issue 23".
    assert re.findall(r"\bissues? \d+\b", README) == []


def test_the_compiled_engine_has_one_speed_figure() -> None:
    flat = " ".join(README.split())
    assert "four to five times" not in flat and "about 3x" not in flat
    assert flat.count("about four times faster") == 2  # the compiled engine's section and the dependency table
