"""The lifetime meters through ten power cuts of a live table (issue 35's "done when").

The live demo (`table-runtime demo`: its shoe and chip readers simulated in a process of their own that
outlives a power cut of the controller, as a real table's devices do; its dealer dealing at its pace) plays
séances with buy-ins, fills and tips, and is killed with SIGKILL ten times while it plays, then restarted on
the same directory. After each kill `table-runtime meters --json` reads the meters from the journal (the one
fold, from the newest checkpoint): no meter ever went down. At the end the meters equal a recomputation made
here from the journal's own rows, read with SQL (the round records, the buy-ins' and the séance's events: not
the fold's code), and every séance's close snapshot equals that recomputation at its row.
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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from simulators.device_host import read_state
from simulators.device_link import process_alive
from table_runtime.journal import journal_path, verify_file

CLI = [sys.executable, "-m", "table_runtime"]
KILLS = 10
TABLE_METERS = ("handle_cents", "collected_cents", "paid_cents", "drop_cents", "drop_cash_cents", "drop_marker_cents",
                "rounds", "voids", "hands", "fills_cents", "fills", "credits_cents", "credits", "tips_cents", "tips")
BOX_METERS = ("handle_cents", "collected_cents", "paid_cents", "hands", "drop_cents", "tips_cents", "tips")
SEANCE_ACTIONS = {"fill_confirmed": ("fills_cents", "fills"), "credit_confirmed": ("credits_cents", "credits"),
                  "tip": ("tips_cents", "tips")}


def rows(data_dir: Path) -> list[tuple[int, str, dict[str, Any]]]:
    """The journal's rows, read with SQL beside whoever writes it."""
    with contextlib.closing(sqlite3.connect(f"file:{journal_path(data_dir)}?mode=ro", uri=True, timeout=5)) as db:
        return [(seq, kind, json.loads(body)) for seq, kind, body in db.execute("SELECT seq, kind, body FROM entries")]


def recomputed(journal: list[tuple[int, str, dict[str, Any]]], until: int | None = None) -> dict[str, Any]:
    """The meters summed here from the rows up to `until`: each round record's payouts, each buy-in, each séance
    step."""
    table = dict.fromkeys(TABLE_METERS, 0)
    boxes: dict[str, dict[str, int]] = {}

    def box(number: int) -> dict[str, int]:
        return boxes.setdefault(str(number), dict.fromkeys(BOX_METERS, 0))

    for seq, kind, body in journal:
        if until is not None and seq > until:
            break
        if kind == "round" and body["result"] == "voided":
            table["voids"] += 1
        elif kind == "round":
            table["rounds"] += 1
            hands = set()
            for payout in body["payouts"]:
                collected, paid = max(0, -payout["net_cents"]), max(0, payout["net_cents"])
                for meters in (table, box(payout["box"])):
                    meters["handle_cents"] += payout["staked_cents"]
                    meters["collected_cents"] += collected
                    meters["paid_cents"] += paid
                if payout["kind"] != "insurance" and not payout["kind"].startswith("hyper"):
                    hands.add((payout["box"], payout["hand"]))
            for number, _ in hands:
                box(number)["hands"] += 1
            table["hands"] += len(hands)
        elif kind == "event" and body["type"] == "BuyInRecorded":
            table["drop_cents"] += body["cents"]
            table["drop_marker_cents" if body["tender"] == "marker" else "drop_cash_cents"] += body["cents"]
            if body.get("box") is not None:
                box(body["box"])["drop_cents"] += body["cents"]
        elif kind == "event" and body["type"] == "SeanceUpdated" and body["action"] in SEANCE_ACTIONS:
            cents, count = SEANCE_ACTIONS[body["action"]]
            table[cents] += body["cents"]
            table[count] += 1
            if body["action"] == "tip":
                box(body["box"])["tips_cents"] += body["cents"]
                box(body["box"])["tips"] += 1
    return {**table, "boxes": dict(sorted(boxes.items(), key=lambda item: int(item[0])))}


def meters_json(data_dir: Path) -> dict[str, Any]:
    done = subprocess.run([*CLI, "meters", "--json", "--data-dir", str(data_dir)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    meters: dict[str, Any] = json.loads(done.stdout)["meters"]
    return meters


def counted(meters: dict[str, Any]) -> dict[str, Any]:
    """The meters the recomputation sums (the view also says the win and whether they are complete)."""
    return {**{name: meters[name] for name in TABLE_METERS},
            "boxes": {number: {name: values.get(name, 0) for name in BOX_METERS}
                      for number, values in meters["boxes"].items()}}


def never_down(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The meters that went down from `before` to `after` (the table's and each box's)."""
    down = [name for name in TABLE_METERS if after[name] < before[name]]
    for number, values in before["boxes"].items():
        now = after["boxes"].get(number, {})
        down += [f"box {number} {name}" for name in BOX_METERS if now.get(name, 0) < values[name]]
    return down


class Demo:
    """One run of the live demo on `data_dir`, its output in files (a pipe nobody reads would stall it)."""

    def __init__(self, data_dir: Path, run: int) -> None:
        self.stderr = data_dir.parent / f"demo-{run}.err"
        with self.stderr.open("wb") as err:
            self.process = subprocess.Popen(
                [*CLI, "demo", "--data-dir", str(data_dir), "--http", "off", "--pace", "0.005", "--seed", "5",
                 "--rounds", "100000", "--seance-rounds", "2", "--buy-in-cents", "5000"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        STARTED.append(self)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        assert self.process.returncode == -signal.SIGKILL


STARTED: list[Demo] = []


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """The demo's directory; whatever happens, neither a demo nor its devices process outlives the test."""
    STARTED.clear()
    path = tmp_path / "table"
    try:
        yield path
    finally:
        for demo in STARTED:
            if demo.process.poll() is None:
                demo.kill()
        state = read_state(path) if path.exists() else None
        if state is not None and process_alive(int(state["pid"])):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(state["pid"]), signal.SIGKILL)


def last_seq(data_dir: Path) -> int:
    if not journal_path(data_dir).exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{journal_path(data_dir)}?mode=ro", uri=True, timeout=5)) as db:
            return int(db.execute("SELECT coalesce(max(seq), 0) FROM entries").fetchone()[0])
    except sqlite3.OperationalError:  # the journal being created: no table yet
        return 0


def wait_for_rows(data_dir: Path, target: int, demo: Demo, seconds: float = 60.0) -> None:
    """Until the journal holds row `target` (the demo journals as it plays)."""
    deadline = time.monotonic() + seconds
    while last_seq(data_dir) < target:
        if demo.process.poll() is not None:
            raise AssertionError(f"the demo exited ({demo.process.returncode}): "
                                 f"{demo.stderr.read_text(errors='replace')[-2000:]}")
        assert time.monotonic() < deadline, f"the journal never reached row {target}"
        time.sleep(0.01)


@pytest.mark.timeout(240)
@pytest.mark.slow
def test_after_ten_kill_9_during_play_the_meters_never_went_down_and_equal_the_journal_s_rows(
        data_dir: Path) -> None:
    rng = random.Random(20261202)
    readings: list[dict[str, Any]] = []
    for run in range(KILLS):
        demo = Demo(data_dir, run)
        # a moment while it plays: 30 to 150 rows past where this run started (cards, chips, the séance's steps)
        wait_for_rows(data_dir, last_seq(data_dir) + rng.randint(30, 150), demo)
        demo.kill()
        assert verify_file(journal_path(data_dir)).ok
        readings.append(meters_json(data_dir))
        if len(readings) > 1:
            assert not never_down(readings[-2], readings[-1]), (run, never_down(readings[-2], readings[-1]))

    journal = rows(data_dir)
    final = readings[-1]
    assert counted(final) == recomputed(journal)
    assert final["complete"] and final["win_cents"] == final["collected_cents"] - final["paid_cents"]
    starts = [body["type"] for _, kind, body in journal if kind == "status" and body["type"] in ("Started",
                                                                                                   "Recovered")]
    assert len(starts) == KILLS and "Stopping" not in {body.get("type") for _, _, body in journal}
    # the table played what the meters count: rounds, séances with their buy-ins (tips come as the dealer's
    # players give them: counted above whenever there are)
    assert final["rounds"] >= KILLS // 2 and final["drop_cents"] > 0
    # each séance's close snapshot is the meters at its row, as the rows up to it sum them
    closes = [(seq, body) for seq, kind, body in journal if kind == "meters" and body["reason"] == "seance_closed"]
    assert closes, "the demo closes séances"
    for seq, body in closes:
        assert counted(body["meters"]) == recomputed(journal, seq), seq
    print(f"{KILLS} kills, {len(journal)} rows, {final['rounds']} rounds, {final['voids']} voids, "
          f"{len(closes)} séance closes")
