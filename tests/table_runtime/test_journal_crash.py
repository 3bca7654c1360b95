"""Crash test: a real writer process killed with SIGKILL at random points, reopened each time.

The child prints each seq (and hash) only after `append`/`append_many` returned;
every printed row must be there after the kill, the chain must verify, and the
next writer must continue it. (SIGKILL shows commit-on-return and atomicity; a
power cut additionally relies on the fsyncs of synchronous=FULL.)
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from table_runtime.journal import Journal, journal_path, verify_file

CHILD = r"""
import sys, time
from table_runtime.journal import Journal
journal = Journal.open(sys.argv[1])
generation = int(sys.argv[2])
i = 0
while True:
    i += 1
    if i % 3 == 0:
        entries = journal.append_many([("batch", {"g": generation, "i": i, "part": p}) for p in range(3)],
                                      ts=time.time())
    else:
        entries = [journal.append("single", {"g": generation, "i": i, "pad": "x" * (i % 200)}, ts=time.time())]
    for entry in entries:
        print(entry.seq, entry.hash, flush=True)
"""


def run_and_kill(path: Path, generation: int, rng: random.Random) -> dict[int, str]:
    """Start a writer, let it commit a random number of rows, SIGKILL it mid-stride."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), str(generation)],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert child.stdout is not None
    reported: dict[int, str] = {}
    wanted = rng.randint(1, 60)
    while len(reported) < wanted:
        line = child.stdout.readline()
        assert line, f"writer died early with status {child.poll()}"
        seq, digest = line.split()
        reported[int(seq)] = digest
    time.sleep(rng.random() * 0.02)  # land somewhere inside the next append
    child.send_signal(signal.SIGKILL)
    rest = child.stdout.read()
    child.wait(timeout=30)
    child.stdout.close()
    for line in rest.splitlines():
        parts = line.split()
        if len(parts) == 2 and len(parts[1]) == 64:  # a torn last line was never reported
            reported[int(parts[0])] = parts[1]
    assert child.returncode == -signal.SIGKILL
    return reported


@pytest.mark.timeout(120)
def test_every_returned_append_survives_sigkill(tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    rng = random.Random(20261129)
    reported: dict[int, str] = {}
    for generation in range(12):
        reported.update(run_and_kill(path, generation, rng))
        result = verify_file(path)
        assert result.ok, result.reason
        with Journal.open(path) as journal:
            stored = {entry.seq: entry.hash for entry in journal.entries()}
            assert journal.last_seq == len(stored) == result.rows
        missing = {seq: digest for seq, digest in reported.items() if stored.get(seq) != digest}
        assert missing == {}, f"generation {generation}: rows reported durable are gone or differ"
        assert sorted(stored) == list(range(1, len(stored) + 1))
    with Journal.open(path) as journal:
        batches = [e for e in journal.entries() if e.kind == "batch"]
    by_append: dict[tuple[int, int], int] = {}
    for entry in batches:
        key = (entry.body["g"], entry.body["i"])
        by_append[key] = by_append.get(key, 0) + 1
    assert set(by_append.values()) <= {3}, "append_many is all or nothing"


@pytest.mark.timeout(60)
def test_another_process_reads_while_a_writer_appends(tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    Journal.open(path).close()
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), "0"], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    try:
        child.stdout.readline()
        seen = []
        for _ in range(20):
            result = verify_file(path)
            assert result.ok, result.reason
            seen.append(result.rows)
            child.stdout.readline()
        assert seen == sorted(seen) and seen[-1] > seen[0]
    finally:
        child.kill()
        child.wait(timeout=30)
        child.stdout.close()
    assert verify_file(path).ok
