"""Power loss for real: the live demo runtime (pty shoe, pyusb reader, mock GPIO) is killed with SIGKILL
mid-round and restarted on the same data directory; it resumes the interrupted round and its journal verifies.

The scenarios emulate power loss in-process (`fault: power_loss`); this test is the real `kill -9`.
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


def journal_rows(data_dir: Path) -> int:
    """Rows committed so far, read beside the running writer (WAL allows one reader)."""
    path = journal_path(data_dir)
    if not path.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)) as db:
            return int(db.execute("SELECT count(*) FROM entries").fetchone()[0])
    except sqlite3.Error:
        return 0


def wait_for_rounds(data_dir: Path, child: subprocess.Popen[bytes], rows: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and child.poll() is None:
        if journal_rows(data_dir) > rows:
            return
        time.sleep(0.05)
    raise AssertionError("the live demo did not start playing")


@pytest.mark.timeout(300)
@pytest.mark.slow
def test_kill_9_of_the_live_runtime_resumes_the_round(tmp_path: Path) -> None:
    recovered = 0
    for attempt, delay in enumerate((0.3, 0.7, 1.1)):
        data_dir = tmp_path / f"run{attempt}"
        child = start_live_demo(data_dir)
        try:
            wait_for_rounds(data_dir, child, 100)
            time.sleep(delay)
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
        recovered += bool(summary["recovered"])
        assert verify_file(journal_path(data_dir)).ok
    assert recovered >= 1, "no kill landed mid-round in three tries"
