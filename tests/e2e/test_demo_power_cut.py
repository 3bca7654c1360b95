"""The README's demo, as a user runs it (no device option), through five power cuts of its controller.

`table-runtime demo --data-dir DIR` is killed with SIGKILL at five random moments inside a round and
restarted on the same directory each time. Its devices (the shoe, the chip reader and the chips lying on
the zones) run in a process of their own by default, as a real table's outlive a power cut of its
controller: every restart reattaches to them, says it recovered the interrupted round, finds the chips
where they lay, and raises no chip alarm at all (the dealer errs never here, so any chip alarm is the
restart's). At the end a normal stop switches the devices off: no process is left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from simulators.device_host import read_state
from simulators.device_link import process_alive
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.journal import journal_path, verify_file

CLI = [sys.executable, "-m", "table_runtime"]
KILLS = 5
# The alarms about the chips on the table (docs/alarms.md: the chip watch of the table core, and the chips):
# what a restart that lost or doubled the chips on the zones raises.
CHIP_ALARMS = frozenset({
    AlarmKind.PAST_POSTING, AlarmKind.WRONG_WINDOW_AMOUNT, AlarmKind.WRONG_PAYOUT, AlarmKind.BEHIND_WITHOUT_SEATED,
    AlarmKind.CHIPS_OUT_OF_PLACE, AlarmKind.COUNTERFEIT_CHIP, AlarmKind.VOID_CHIP, AlarmKind.STOLEN_CHIP,
    AlarmKind.OTHER_CASINO_CHIP, AlarmKind.TAG_MISMATCH,
})
ROUND_ENDS = ("RoundClosed", "RoundVoided")


class Demo:
    """One run of the plain demo on `data_dir`, its output in files (a pipe nobody reads would stall it)."""

    def __init__(self, data_dir: Path, run: int, *extra: str) -> None:
        self.stdout = data_dir.parent / f"demo-{run}.out"
        self.stderr = data_dir.parent / f"demo-{run}.err"
        with self.stdout.open("wb") as out, self.stderr.open("wb") as err:
            self.process = subprocess.Popen(
                [*CLI, "demo", "--data-dir", str(data_dir), "--http", "off", "--pace", "0.01", "--seed", "5",
                 "--error-rate", "0", *extra], stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        STARTED.append(self)

    def said(self, words: str) -> bool:
        return words in self.stderr.read_text(errors="replace")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        assert self.process.returncode == -signal.SIGKILL


def rows(data_dir: Path, after: int = 0) -> list[tuple[int, str, dict[str, Any]]]:
    """The journal's rows after `after`, read beside the running writer (WAL: a reader does not stop it)."""
    path = journal_path(data_dir)
    if not path.exists():
        return []
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)) as db:
            return [(seq, kind, json.loads(body))
                    for seq, kind, body in db.execute("SELECT seq, kind, body FROM entries WHERE seq > ?", (after,))]
    except sqlite3.Error:
        return []


def last_seq(data_dir: Path) -> int:
    found = rows(data_dir)
    return found[-1][0] if found else 0


def round_open(journal: list[tuple[int, str, dict[str, Any]]]) -> bool:
    """Whether the journal's last round started and did not end (the table is mid-round)."""
    started = [seq for seq, kind, body in journal if kind == "event" and body["type"] == "RoundStarted"]
    ended = [seq for seq, kind, body in journal if kind == "event" and body["type"] in ROUND_ENDS]
    return bool(started) and (not ended or started[-1] > ended[-1])


def wait_until(condition: Callable[[], bool], what: str, demo: Demo | None, seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if demo is not None and demo.process.poll() is not None:
            raise AssertionError(f"the demo exited ({demo.process.returncode}) before {what}: "
                                 f"{demo.stderr.read_text(errors='replace')[-2000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what} (within {seconds:g} s)")
        time.sleep(0.01)


STARTED: list[Demo] = []  # every run of the test, for the clean-up whatever the test's outcome


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """The demo's directory; whatever happens, neither a demo nor its devices process outlives the test."""
    path = tmp_path / "table"
    path.mkdir()
    STARTED.clear()
    try:
        yield path
    finally:
        for demo in STARTED:
            if demo.process.poll() is None:
                demo.kill()
        state = read_state(path)  # the devices stop with the last demo's normal end, else they are killed
        if state is not None and process_alive(int(state["pid"])):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(state["pid"]), signal.SIGKILL)


@pytest.mark.timeout(420)
@pytest.mark.slow
def test_the_plain_demo_killed_five_times_mid_round_raises_no_chip_alarm(data_dir: Path) -> None:
    rng = random.Random(int(os.environ.get("KILL_SEED", "20261201")))  # KILL_SEED: other moments, same test
    demo = Demo(data_dir, 0, "--rounds", "100000")
    wait_until(lambda: demo.said("devices process: started"), "the devices process started", demo)
    state = read_state(data_dir)
    assert state is not None, "the plain demo runs its devices in a process of their own"
    devices_pid = int(state["pid"])
    kills: list[tuple[int, bool]] = []  # (the journal's last seq at the kill, a round open then)
    for run in range(1, KILLS + 1):
        # a random moment inside a round: this run commits 1 to 60 more rows (cards, chips, buttons), and the
        # round is still open at the last of them
        target = last_seq(data_dir) + rng.randint(1, 60)
        wait_until(lambda: (journal := rows(data_dir)) != [] and journal[-1][0] >= target  # noqa: B023
                   and round_open(journal), f"run {run - 1} mid-round past seq {target}", demo)
        demo.kill()
        assert verify_file(journal_path(data_dir)).ok
        journal = rows(data_dir)
        kills.append((journal[-1][0], round_open(journal)))
        # the devices outlive the controller
        assert read_state(data_dir) == state and process_alive(devices_pid)
        last = run == KILLS
        demo = Demo(data_dir, run, *(("--rounds", "2", "--json") if last else ("--rounds", "100000")))
        if not last:
            wait_until(lambda: demo.said("devices process: reattached"), f"restart {run} reattached",  # noqa: B023
                       demo)
        cut = kills[-1][0]
        wait_until(lambda: any(kind == "status" for _, kind, _ in rows(data_dir, cut)),  # noqa: B023
                   f"restart {run} journaled its start", demo)
        first = next(body for _, kind, body in rows(data_dir, cut) if kind == "status")
        assert first["type"] == ("Recovered" if kills[-1][1] else "Started"), (kills[-1], first)

    # the last restart plays its interrupted round to its end and one more, then stops by itself
    assert demo.process.wait(timeout=180) == 0, demo.stderr.read_text(errors="replace")[-2000:]
    summary = json.loads(demo.stdout.read_text())
    assert summary["devices"] == "reattached" and summary["recovered"] is kills[-1][1]
    assert summary["rounds"] == 2
    # a normal stop switches the table off, its devices with it: nothing is left running
    wait_until(lambda: not process_alive(devices_pid), "the devices process exited", None, 30)
    assert read_state(data_dir) is None
    assert verify_file(journal_path(data_dir)).ok

    journal = rows(data_dir)
    chip_alarms = [(seq, body["kind"], body.get("message")) for seq, kind, body in journal
                   if kind == "alarm" and body["kind"] in CHIP_ALARMS]
    mid_round = sum(open_ for _, open_ in kills)
    print(f"{KILLS} kills, {mid_round} mid-round; chip alarms: {len(chip_alarms)} {chip_alarms}")
    assert mid_round >= KILLS - 2, "the kills land inside a round"
    assert not chip_alarms
