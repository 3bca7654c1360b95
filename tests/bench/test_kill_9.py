"""Power loss for real: the live demo runtime (pty shoe, pyusb reader, mock GPIO) is killed with SIGKILL
mid-round and restarted on the same data directory; it resumes the interrupted round and its journal verifies.

The scenarios emulate power loss in-process (`fault: power_loss`); this test is the real `kill -9`.

One kill, inside a round (the journal's last round started and not ended), where there were three at fixed
delays, of which one landing mid-round was enough: the restart must now say it recovered the round every
time. More kills of the live demo at random moments are tests/e2e/test_devices_process.py's and
tests/e2e/test_demo_power_cut.py's.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from table_runtime.journal import journal_path, verify_file

CLI = [sys.executable, "-m", "table_runtime"]


def start_live_demo(data_dir: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*CLI, "demo", "--rounds", "100000", "--pace", "0.01", "--http", "off", "--json",
                             "--error-rate", "0", "--seed", "5", "--data-dir", str(data_dir)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def journal_events(data_dir: Path) -> list[str]:
    """The types of the events committed so far, read beside the running writer (WAL allows one reader)."""
    path = journal_path(data_dir)
    if not path.exists():
        return []
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)) as db:
            return [str(json.loads(body)["type"]) for (body,) in db.execute(
                "SELECT body FROM entries WHERE kind = 'event' ORDER BY seq")]
    except sqlite3.Error:
        return []


def mid_round(events: list[str]) -> bool:
    """A round started and not ended (closed or voided) yet."""
    for event in reversed(events):
        if event in ("RoundClosed", "RoundVoided"):
            return False
        if event == "RoundStarted":
            return True
    return False


def wait_mid_round(data_dir: Path, child: subprocess.Popen[bytes], after_rounds: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and child.poll() is None:
        events = journal_events(data_dir)
        if events.count("RoundStarted") > after_rounds and mid_round(events) and events[-1] != "RoundStarted":
            return
        time.sleep(0.02)
    raise AssertionError("the live demo did not play into a round")


@pytest.mark.timeout(300)
@pytest.mark.slow
def test_kill_9_of_the_live_runtime_resumes_the_round(tmp_path: Path) -> None:
    data_dir = tmp_path / "table"
    child = start_live_demo(data_dir)
    try:
        wait_mid_round(data_dir, child, after_rounds=0)  # inside the first round, its cards coming
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    assert verify_file(journal_path(data_dir)).ok
    again = subprocess.run([*CLI, "demo", "--rounds", "1", "--pace", "0", "--http", "off", "--json", "--seed", "5",
                            "--data-dir", str(data_dir)], capture_output=True, text=True, timeout=120, check=False)
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert summary["rounds"] == 1
    assert summary["recovered"] is True, "the kill landed inside a round: the restart resumes it"
    assert verify_file(journal_path(data_dir)).ok
