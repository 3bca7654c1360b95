"""`table-runtime run` under systemd's eyes: READY, WATCHDOG from the event loop, STATUS, STOPPING, refusals.

A real unix datagram socket stands in for systemd's notify socket (NOTIFY_SOCKET), around a real
`table-runtime run` process on the demo table (simulated devices), as `Type=notify` with
`WatchdogSec=` would start it (deploy/table-runtime.service).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_runtime.runtime.systemd import Notifier

from .support import REPO, NotifyListener, demo_table

pytestmark = pytest.mark.timeout(120)
WATCHDOG_USEC = 1_000_000  # pings every 0.5 s


@pytest.fixture
def listener() -> Iterator[NotifyListener]:
    notify = NotifyListener()
    yield notify
    notify.close()


def start(config: Path, listener: NotifyListener, log: Path, **environ: str) -> subprocess.Popen[bytes]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("TABLE_", "NOTIFY_", "WATCHDOG_", "JOURNAL_STREAM"))}
    env.update(NOTIFY_SOCKET=listener.address, **environ)
    with log.open("wb") as stderr:
        return subprocess.Popen([sys.executable, "-m", "table_runtime", "run", "--config", str(config)], cwd=REPO,
                                env=env, stdout=subprocess.DEVNULL, stderr=stderr)


def status_rows(journal: Path) -> list[str]:
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT body FROM entries WHERE kind = 'status' ORDER BY seq").fetchall()
    return [json.loads(body)["type"] for (body,) in rows]


@pytest.mark.slow
def test_ready_after_the_journal_and_devices_watchdog_from_the_loop_stopping_at_sigterm(
        tmp_path: Path, listener: NotifyListener) -> None:
    config = demo_table(tmp_path)
    port = int(next(line.split("=")[1] for line in config.read_text().splitlines() if line.startswith("port =")))
    process = start(config, listener, tmp_path / "run.log", WATCHDOG_USEC=str(WATCHDOG_USEC))
    try:
        _, ready = listener.next_with("READY")
        # READY comes once the journal is open and replayed (its Started row) and the devices are entered:
        # the display answers, the status line names the devices.
        assert status_rows(tmp_path / "data" / "journal.db")[0] == "Started"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/snapshot", timeout=5) as response:
            assert json.loads(response.read())["table_id"] == "DEMO1"
        assert ready["READY"] == "1"
        assert ready["STATUS"].startswith("table DEMO1: between rounds; shoe ") and "alarm" in ready["STATUS"]
        before = [fields for _, fields in listener.received[:-1]]
        assert any(fields.get("STATUS", "").startswith("starting table DEMO1") for fields in before)
        # Then the watchdog, every WATCHDOG_USEC/2, for as long as the loop runs.
        pings = [listener.next_with("WATCHDOG", timeout=5)[0] for _ in range(6)]
        gaps = [later - earlier for earlier, later in itertools.pairwise(pings)]
        assert max(gaps) < WATCHDOG_USEC / 1e6, gaps  # never late enough for systemd to kill it
        assert min(gaps) > WATCHDOG_USEC / 1e6 / 4, gaps  # and not a busy loop
        process.send_signal(signal.SIGTERM)
        _, stopping = listener.next_with("STOPPING", timeout=10)
        assert stopping["STATUS"].startswith("stopping (SIGTERM)")
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    assert status_rows(tmp_path / "data" / "journal.db")[-1] == "Stopping"


def test_a_bad_configuration_exits_2_with_a_status_naming_the_key(tmp_path: Path, listener: NotifyListener) -> None:
    config = demo_table(tmp_path)
    config.write_text(config.read_text().replace('language = "fr"', 'language = "de"'), encoding="utf-8")
    process = start(config, listener, tmp_path / "run.log")
    assert process.wait(timeout=60) == 2  # RestartPreventExitStatus=2 in the unit: not restarted
    _, status = listener.next_with("STATUS", timeout=5)
    assert status["STATUS"] == "bad configuration, not restarted: display.language: 'de' is not one of fr, en"
    assert "READY" not in status and not (tmp_path / "data").exists()


def test_a_table_refused_at_start_exits_2_with_a_status(tmp_path: Path, listener: NotifyListener) -> None:
    missing = tmp_path / "chips.sqlite"
    config = demo_table(tmp_path)
    config.write_text(config.read_text().replace(
        'panel_pin_factory = "mock"', f'panel_pin_factory = "mock"\nchip_registry = "{missing}"'), encoding="utf-8")
    process = start(config, listener, tmp_path / "run.log")
    assert process.wait(timeout=60) == 2
    statuses = [fields["STATUS"] for _, fields in listener.drain() if "STATUS" in fields]
    assert statuses[-1].startswith(f"refused to start, not restarted: devices.chip_registry: no such file: {missing}")
    log = (tmp_path / "run.log").read_text().splitlines()
    assert log[-1].startswith("table-runtime: error: devices.chip_registry: no such file")  # one line
    assert "Traceback" not in "\n".join(log)


async def test_the_watchdog_pings_stop_while_the_event_loop_is_blocked(listener: NotifyListener) -> None:
    notifier = Notifier({"NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": str(WATCHDOG_USEC)})
    assert notifier.watchdog_interval == pytest.approx(0.5)
    pinger = asyncio.create_task(notifier.keep_alive())
    try:
        await asyncio.to_thread(listener.next_with, "WATCHDOG", 5)  # the loop runs while the test waits
        await asyncio.sleep(0)  # let the pinger reach its pause
        blocked_at = time.monotonic()
        time.sleep(1.5)  # noqa: ASYNC251  # a call that hangs in the event loop: the fault under test
        unblocked_at = time.monotonic()
        after = (await asyncio.to_thread(listener.next_with, "WATCHDOG", 5))[0]
    finally:
        pinger.cancel()
    pings = [at for at, fields in listener.received if "WATCHDOG" in fields]
    assert not [at for at in pings if blocked_at + 0.05 < at < unblocked_at], "pinged while the loop was blocked"
    assert after >= unblocked_at  # the pings come back with the loop (systemd would have killed it by then)


def test_notifier_addresses_and_messages(tmp_path: Path) -> None:
    on_path = NotifyListener(abstract=False, directory=tmp_path)
    try:
        notifier = Notifier({"NOTIFY_SOCKET": on_path.address})
        assert notifier.enabled and notifier.watchdog_interval is None
        notifier.status("two\nlines")
        notifier.status("two\nlines")  # unchanged: not sent again
        notifier.ready("ready")
        assert on_path.next_with("STATUS", timeout=5)[1] == {"STATUS": "two lines"}
        assert on_path.next_with("READY", timeout=5)[1] == {"READY": "1", "STATUS": "ready"}
    finally:
        on_path.close()
    assert not Notifier({}).enabled and not Notifier({}).send(READY=1)  # outside systemd: nothing, no error
    assert Notifier({"NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"},
                    pid=2).watchdog_interval is None  # the watchdog is another process's
    assert not Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone.sock")}).send(READY=1)  # never raises
