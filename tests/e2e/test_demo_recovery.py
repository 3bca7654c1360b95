"""The demo table end to end as a user runs it, and power loss in the middle of a round (kill -9).

TABLE.md 'Power loss': after a crash mid-round the controller restarts into the
same round, same cards, same bets, and says so.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from table_runtime.core.significant_events import KINDS, significant_events
from table_runtime.journal import Journal, journal_path, verify_file
from table_runtime.runtime.recall import recall_rounds
from table_runtime.version import installed_version

CLI = [sys.executable, "-m", "table_runtime"]


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, check=False)


def demo_json(data_dir: Path, rounds: int, *extra: str) -> dict[str, Any]:
    done = cli("demo", "--rounds", str(rounds), "--fast", "--json", "--data-dir", str(data_dir), *extra)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.timeout(300)
@pytest.mark.slow
def test_fast_demo_reports_rounds_and_the_journal_verifies(tmp_path: Path) -> None:
    summary = demo_json(tmp_path, 50)
    assert summary["rounds"] == 50 and summary["recovered"] is False
    assert set(summary) >= {"rounds", "alarms", "recovered"}
    assert summary["alarms"], "the simulated dealer errs now and then: alarms are raised"
    verify = cli("journal", "verify", "--data-dir", str(tmp_path))
    assert verify.returncode == 0, verify.stdout
    recall = cli("recall", "--data-dir", str(tmp_path), "--last", "10", "--json")
    rounds = json.loads(recall.stdout)
    assert len(rounds) == 10 and all(r["result"] in ("settled", "voided") for r in rounds)
    assert [r["round"] for r in rounds] == list(range(41, 51))
    text = cli("recall", "--data-dir", str(tmp_path), "--last", "10")
    assert "10 round(s) recalled" in text.stdout


def last_round_in_journal(data_dir: Path) -> dict[str, Any]:
    with Journal.open(journal_path(data_dir)) as journal:
        rounds = recall_rounds(journal, last=1)
    return rounds[-1] if rounds else {"result": "none"}


def wait_for_play(data_dir: Path, child: subprocess.Popen[bytes]) -> None:
    """Until the child has journaled its first rounds (start-up takes a while on a loaded machine)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and child.poll() is None:
        if journal_path(data_dir).exists() and journal_path(data_dir).stat().st_size > 64_000:
            return
        time.sleep(0.05)
    raise AssertionError("the demo did not start playing")


@pytest.mark.timeout(600)
@pytest.mark.slow
def events_json(data_dir: Path) -> list[dict[str, Any]]:
    """`table-runtime events --json` of a data directory."""
    done = subprocess.run([*CLI, "events", "--json", "--data-dir", str(data_dir)], capture_output=True, text=True,
                          timeout=60, check=True)
    events: list[dict[str, Any]] = json.loads(done.stdout)
    return events


def test_kill_9_mid_round_then_restart_resumes_the_same_round(tmp_path: Path) -> None:
    """Kill the demo at many points; each restart resumes the interrupted round with its cards and stakes."""
    recovered_runs = 0
    for attempt, delay in enumerate((0.05, 0.13, 0.21, 0.34, 0.55, 0.89)):
        data_dir = tmp_path / f"run{attempt}"
        child = subprocess.Popen([*CLI, "demo", "--rounds", "100000", "--fast", "--json", "--data-dir", str(data_dir),
                                  "--seed", str(attempt)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for_play(data_dir, child)
        time.sleep(delay)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        assert verify_file(journal_path(data_dir)).ok
        before = last_round_in_journal(data_dir)
        summary = demo_json(data_dir, 3, "--seed", str(attempt))
        assert summary["rounds"] == 3
        assert verify_file(journal_path(data_dir)).ok
        with Journal.open(journal_path(data_dir)) as journal:
            statuses = [{**e.body, "seq": e.seq} for e in journal.entries()
                        if e.kind == "status" and e.body["type"] == "Recovered"]
            again = {r["round"]: r for r in recall_rounds(journal, last=5)}
        if before["result"] != "in_progress":
            continue
        recovered_runs += 1
        assert summary["recovered"] is True
        assert statuses and statuses[-1]["round"] == before["round"]
        assert statuses[-1]["version"] == installed_version()  # which release recovered it
        # The significant events: the kill is a power loss found at the restart, the round resumed.
        if recovered_runs == 1:  # the command once, the same projection in this process after
            events = [(event["code"], event["name"], event["seq"]) for event in events_json(data_dir)]
        else:
            with Journal.open(journal_path(data_dir)) as journal:
                events = [(event.code, event.name, event.seq) for event in significant_events(
                    (entry.seq, entry.ts, entry.kind, entry.body) for entry in journal.entries(kinds=KINDS))]
        codes = [(code, name) for code, name, seq in events if seq >= statuses[-1]["seq"]]
        assert codes[:3] == [(102, "power_loss"), (100, "table_started"), (104, "round_resumed")], codes
        resumed = again[before["round"]]
        assert resumed["result"] in ("settled", "voided")  # the interrupted round was played to its end
        # the steps journaled before the kill are the first steps of the finished round, unchanged
        assert [s["seq"] for s in resumed["steps"][: len(before["steps"])]] == [s["seq"] for s in before["steps"]]
        last = before["steps"][-1]["snapshot"]
        same = resumed["steps"][len(before["steps"]) - 1]["snapshot"]
        assert same == last  # same cards, same stakes, same turn
    assert recovered_runs >= 3, "most kill points fall inside a round"
