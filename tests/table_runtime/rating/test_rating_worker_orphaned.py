"""The rating worker outlives a runtime killed with kill -9 only to end quietly: no traceback on the console the
runtime shared with it (issue 30: a whole BrokenPipeError traceback was printed), whatever it was doing.

A real runtime's side (`RatingWorker`, the spawned process at its real priority) in a process of its own: it
hands the worker a batch of rows and is killed with SIGKILL at once, so the worker answers a pipe nobody holds."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

RUNTIME = textwrap.dedent("""
    import os, signal, sys, time
    from pathlib import Path
    from table_runtime.game.rules import TableLimits, profile
    from table_runtime.journal import Journal
    from table_runtime.rating.session_flags import AdviceSettings
    from table_runtime.runtime.controller import TableController
    from table_runtime.runtime.rating_worker import RatingWorker

    path = Path(sys.argv[1])
    with Journal.open(path) as journal:  # a table's journal (its terms, its start) for the worker to fold
        TableController(table_id="T01", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                        clock=time.time)
    worker = RatingWorker(path, AdviceSettings(), nice=0)
    worker._connection.send((1_800_000_010.0, 100))  # the request in flight: its answer finds no runtime
    print(worker._process.pid, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


@pytest.mark.timeout(120)
def test_an_orphaned_worker_ends_without_a_traceback(tmp_path: Path) -> None:
    runtime = subprocess.Popen([sys.executable, "-c", RUNTIME, str(tmp_path / "journal.db")], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    # stderr is the worker's too (spawn inherits it): it reaches its end once the worker has ended.
    out, err = runtime.communicate(timeout=100)
    assert runtime.returncode == -9
    worker = int(out.split()[0])
    assert not _alive(worker)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
