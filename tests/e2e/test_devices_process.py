"""Power cuts of the controller only: the live demo's runtime killed with SIGKILL at 10 random moments, its
devices (shoe, chip reader, the chips on the zones) running on in their own process (`--devices-process`).

Each restart on the same data directory reattaches to the same devices process,
resumes the interrupted round from the journal, finds the chips where they lay
and plays on. The chip alarms raised after each restart are counted.

Ten kills, 20 before: each restart of the runtime costs a second of CPU (a Python start, the imports, the
devices reattached), and the claim is the same at every kill, at a moment drawn at random. Ten moments
still land most often mid-round and several times with chips on the zones (both asserted), and the same
claim is tested at five more kills, each inside a round, by tests/e2e/test_demo_power_cut.py (the
default demo runs its devices in a process of their own as `--devices-process` does); KILL_SEED draws
other moments.
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
from simulators.device_link import DeviceLink, process_alive
from table_runtime.journal import journal_path, verify_file

CLI = [sys.executable, "-m", "table_runtime"]
KILLS = 10
CHIP_ALARMS = ("past_posting", "wrong_payout", "wrong_window_amount", "chips_out_of_place")


def start_demo(data_dir: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*CLI, "demo", "--devices-process", "--rounds", "100000", "--pace", "0.01", "--http",
                             "off", "--json", "--error-rate", "0", "--seed", "5", "--data-dir", str(data_dir)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def rows(data_dir: Path, sql: str = "SELECT seq, kind, body FROM entries WHERE seq > ?",
         after: int = 0) -> list[tuple[int, str, dict[str, Any]]]:
    """Journal rows after `after`, read beside the running writer (WAL: one reader is fine)."""
    path = journal_path(data_dir)
    if not path.exists():
        return []
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)) as db:
            return [(seq, kind, json.loads(body)) for seq, kind, body in db.execute(sql, (after,))]
    except sqlite3.Error:
        return []


def last_seq(data_dir: Path) -> int:
    found = rows(data_dir, "SELECT max(seq), '', '{}' FROM entries WHERE seq > ?")
    return int(found[0][0] or 0) if found else 0


def wait_until(condition: Callable[[], bool], what: str, child: subprocess.Popen[bytes] | None,
               seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if child is not None and child.poll() is not None:
            raise AssertionError(f"the demo exited ({child.returncode}) before {what}: "
                                 f"{child.stderr.read().decode() if child.stderr else ''}")
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what} (within {seconds:g} s)")
        time.sleep(0.02)


def chips_on_zones(socket_path: str) -> dict[str, int]:
    link = DeviceLink(socket_path)
    try:
        zones = link.call("zones")["zones"]
    finally:
        link.close()
    return {zone: sum(int(cents) for _, cents in chips) for zone, chips in zones.items() if chips}


@pytest.fixture
def devices_cleanup(tmp_path: Path) -> Iterator[None]:
    yield
    state = read_state(tmp_path)
    if state is not None:  # the test failed before the normal stop: do not leave the devices running
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(state["pid"]), signal.SIGKILL)


def committed(data_dir: Path, seq: int) -> Callable[[], bool]:
    return lambda: last_seq(data_dir) >= seq


def restarted(data_dir: Path, cut: int) -> Callable[[], bool]:
    """The restarted runtime wrote its first row: the round recovered, or the devices online again."""
    return lambda: any(kind == "status" for _, kind, _ in rows(data_dir, after=cut))


@pytest.mark.timeout(300)
@pytest.mark.usefixtures("devices_cleanup")
@pytest.mark.slow
def test_kill_9_of_the_runtime_leaves_the_chips_on_the_devices_and_the_round_resumes(tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("KILL_SEED", "20261201")))  # KILL_SEED: other moments, same test
    started = time.monotonic()
    child = start_demo(tmp_path)
    wait_until(lambda: read_state(tmp_path) is not None, "the devices process started", child)
    state = read_state(tmp_path)
    assert state is not None
    devices_pid, socket_path = int(state["pid"]), str(state["socket"])
    wait_until(committed(tmp_path, 20), "the first round dealt", child)
    cuts: list[int] = []  # the journal's last seq at each kill
    with_chips: list[bool] = []  # chips on the zones at each kill
    for kill in range(KILLS):
        # a random moment: this run commits 1 to 45 more journal rows (device status, cards, locks...), then
        # up to 80 ms pass (the dealer's hands work between two commits: chips put, a scan, a button)
        wait_until(committed(tmp_path, last_seq(tmp_path) + rng.randint(1, 45)), f"run {kill} playing on", child)
        time.sleep(rng.uniform(0, 0.08))
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        assert child.returncode == -signal.SIGKILL
        assert verify_file(journal_path(tmp_path)).ok
        cuts.append(last_seq(tmp_path))
        # the devices outlive the runtime: the same process, answering, the chips on the zones
        assert read_state(tmp_path) == state
        with_chips.append(bool(chips_on_zones(socket_path)))
        child = start_demo(tmp_path)
        wait_until(restarted(tmp_path, cuts[-1]), f"restart {kill}", child)
        assert read_state(tmp_path) == state, "the restarted demo reattached to the same devices"
    # the last restart plays its recovered round to the end, and one more
    final = last_seq(tmp_path)
    wait_until(lambda: sum(kind == "round" and body.get("result") in ("closed", "voided")
                           for _, kind, body in rows(tmp_path, after=final)) >= 2, "rounds after the last restart",
               child)
    child.send_signal(signal.SIGTERM)  # a normal stop switches the table off: the devices process ends too
    child.wait(timeout=60)
    assert child.returncode == 0
    wait_until(lambda: read_state(tmp_path) is None, "the devices process stopped", None, 20)
    wait_until(lambda: not process_alive(devices_pid), "the devices process exited", None, 20)
    assert verify_file(journal_path(tmp_path)).ok

    journal = rows(tmp_path)
    recovered = {cut: body["round"] for cut in cuts for seq, kind, body in journal
                 if kind == "status" and body["type"] == "Recovered" and cut < seq <= cut + 1}
    closed = {body["round"] for _, kind, body in journal if kind == "round"}
    assert set(recovered.values()) <= closed, "every round interrupted by a kill was played to its end"
    resumed_with_chips = sum(chips for cut, chips in zip(cuts, with_chips, strict=True) if cut in recovered)
    chip_alarms = [body for seq, kind, body in journal
                   if kind == "alarm" and body["kind"] in CHIP_ALARMS and seq > cuts[0]]
    print(f"{KILLS} kills in {time.monotonic() - started:.1f} s: {len(recovered)} mid-round, {resumed_with_chips} "
          f"with chips on the table; chip alarms after the restarts: "
          f"{[(alarm['seq'], alarm['kind'], alarm['message']) for alarm in chip_alarms]}")
    assert len(recovered) >= KILLS // 2, "most kills land inside a round"
    assert resumed_with_chips >= KILLS // 4, "many kills leave chips on the table mid-round"
    # The chips are where they lay and the chip state is the journal's: a restart raises no chip alarm at all,
    # a kill between a double's stake put on the zone and the DOUBLE press included.
    assert not chip_alarms
