"""One journal, one writer: a second runtime on the same data directory is refused while the first lives, and the
claim dies with its process (kill -9 included), so a restart after a power cut is never blocked."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from table_runtime.errors import JournalError
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController

HOLDER = """
import sys, time
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal
from table_runtime.runtime.controller import TableController
journal = Journal.open(sys.argv[1])
TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(), journal=journal, clock=time.time)
print("ready", flush=True)
time.sleep(60)
"""


def controller(journal: Journal) -> TableController:
    return TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                           clock=lambda: 1.0)


def test_a_second_writer_is_refused_until_the_first_closes(tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    with Journal.open(path) as first:
        controller(first)
        controller(first)  # the same journal again (a restart in-process): its own claim
        with Journal.open(path) as second, pytest.raises(JournalError) as refused:
            controller(second)
        assert "written by another runtime" in str(refused.value) and f"pid {os.getpid()}" in str(refused.value)
        with Journal.open(path) as reader:
            assert list(reader.entries(limit=1))  # readers (recall, verify) need no claim
    with Journal.open(path) as again:
        controller(again)  # closed: free


@pytest.mark.timeout(60)
def test_the_claim_of_a_killed_runtime_is_gone_with_it(tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[2])
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with Journal.open(path) as journal, pytest.raises(JournalError) as refused:
            controller(journal)
        assert f"pid {holder.pid}" in str(refused.value)
    finally:
        holder.send_signal(signal.SIGKILL)  # the power goes
        holder.wait(timeout=10)
    with Journal.open(path) as journal:
        controller(journal)  # the restart takes the journal: no stale claim blocks it
