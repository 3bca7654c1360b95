"""The broker killed (SIGKILL) under the live demo with `--mqtt`, again and again: the demo plays on, its feed
reconnects, and what it says on stderr is one line per thing, never a traceback (an error in a library's
event-loop callback, such as aiomqtt watching a socket paho closed with the broker, included:
table_runtime/loop_errors.py)."""

from __future__ import annotations

import contextlib
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from simulators.device_host import read_state
from simulators.device_link import process_alive
from simulators.mosquitto import MosquittoBroker
from table_runtime.journal import journal_path

pytestmark = pytest.mark.timeout(240)

KILLS = 4


def last_seq(data_dir: Path) -> int:
    path = journal_path(data_dir)
    if not path.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)) as db:
            return int(db.execute("SELECT coalesce(max(seq), 0) FROM entries").fetchone()[0])
    except sqlite3.Error:
        return 0


def wait_until(condition: Callable[[], bool], what: str, demo: subprocess.Popen[bytes], errors: Path) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert demo.poll() is None, f"the demo exited ({demo.returncode}) before {what}: {errors.read_text()[-2000:]}"
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


@pytest.mark.slow
def test_a_broker_killed_under_the_live_demo_is_one_line_never_a_traceback(broker: MosquittoBroker, prefix: str,
                                                                           tmp_path: Path) -> None:
    rng = random.Random(20261201)
    data_dir, errors = tmp_path / "table", tmp_path / "demo.err"
    with errors.open("wb") as stderr:
        demo = subprocess.Popen(
            [sys.executable, "-m", "table_runtime", "demo", "--rounds", "100000", "--pace", "0.01", "--http", "off",
             "--seed", "3", "--data-dir", str(data_dir), "--mqtt", broker.url, "--mqtt-prefix", prefix,
             "--table-id", "T1"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)
    devices_pid = None
    try:
        def said(words: str) -> int:
            return errors.read_text(errors="replace").count(words)

        wait_until(lambda: said("devices process: started") == 1, "the devices started", demo, errors)
        state = read_state(data_dir)
        assert state is not None
        devices_pid = int(state["pid"])
        def connections() -> int:  # the broker logs each client it accepts; the demo's feed is the only one
            return broker.log_file.read_text(errors="replace").count("New client connected")

        for kill in range(KILLS):
            wait_until(lambda: connections() > kill, f"the feed connected ({kill})", demo, errors)  # noqa: B023
            # a random moment of play: 1 to 40 more rows journaled (and published) since the feed connected
            target = last_seq(data_dir) + rng.randint(1, 40)
            wait_until(lambda: last_seq(data_dir) >= target, f"play before kill {kill}", demo, errors)  # noqa: B023
            broker.kill()
            broker.start()
        wait_until(lambda: connections() > KILLS, "the feed reconnected after the last kill", demo, errors)
        played = last_seq(data_dir)
        wait_until(lambda: last_seq(data_dir) > played + 20, "play after the last restart", demo, errors)
    finally:
        demo.send_signal(signal.SIGTERM)
        demo.wait(timeout=60)
        if devices_pid is not None and process_alive(devices_pid):  # a normal stop ends them; a failure may not
            with contextlib.suppress(ProcessLookupError):
                subprocess.run(["kill", "-9", str(devices_pid)], check=False)
    said_lines = errors.read_text(errors="replace")
    assert demo.returncode == 0, said_lines[-2000:]
    assert "Traceback" not in said_lines, said_lines
    assert "feed: lost" in said_lines  # the kills were seen, each said in one line
