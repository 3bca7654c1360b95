"""`table-runtime run` and `demo` refuse to start on a forged, empty or cut journal: exit 2, one line naming the
file and the cause, no traceback, nothing written (docs/journal.md "What each forgery produces")."""

from __future__ import annotations

import itertools
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from simulators.fast_table import FastTable
from simulators.mosquitto import free_port
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.controller import TableController

REPO = Path(__file__).resolve().parents[2]
DEMO_CONFIG = REPO / "configs" / "demo.toml"

pytestmark = pytest.mark.timeout(120)


def config_in(tmp_path: Path) -> Path:
    """configs/demo.toml with its data in tmp_path/data and the display on a free port."""
    text = DEMO_CONFIG.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^data_dir = .*$", f'data_dir = "{tmp_path / "data"}"', text)
    text = re.sub(r"(?m)^port = 8080$", f"port = {free_port()}", text)
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def demo_journal(path: Path, *, checkpoint_rows: int) -> None:
    """40 rounds under the demo config's terms (table DEMO1, fr-casino, 5.00 to 5 000.00)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    ticks = itertools.count()
    with Journal.open(path) as journal:
        controller = TableController(table_id="DEMO1", rules=profile("fr-casino"),
                                     limits=TableLimits(min_bet_cents=500, max_bet_cents=500000), journal=journal,
                                     clock=lambda: 1_700_000_000.0 + next(ticks), checkpoint_rows=checkpoint_rows)
        FastTable(controller, seed=11, error_rate=0.05).run(40)


def forge_5s(path: Path, *, after: int) -> int:
    """The issue's forgery: a dealt 5S becomes KS in SQL (a middle one past row `after`; when none is, the middle
    card past it), the hash left as it was."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT seq, body FROM entries WHERE kind = 'input' AND body LIKE '%\"CardDrawn\"%' "
                          "AND seq > ? ORDER BY seq", (after,)).fetchall()
        fives = [(seq, body) for seq, body in rows if json.loads(body)["card"] == "5S"] or rows
        seq, body = fives[len(fives) // 2]
        card = json.loads(body)["card"]
        forged = body.replace(f'"{card}"', '"KS"' if card != "KS" else '"QS"')
        db.execute("UPDATE entries SET body = ? WHERE seq = ?", (forged, seq))
    return int(seq)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TABLE_")}
    return subprocess.run([sys.executable, "-m", "table_runtime", *args], capture_output=True, text=True,
                          timeout=90, cwd=REPO, env=env, check=False)


def assert_refused(result: subprocess.CompletedProcess[str], *expected: str) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, result.stderr
    for text in expected:
        assert text in errors[0], errors[0]
    return errors[0]


@pytest.mark.parametrize("checkpoint_rows", [10**9, 200], ids=["no-checkpoint", "after-the-checkpoint"])
@pytest.mark.slow
def test_run_refuses_a_journal_with_a_card_forged_in_sql(tmp_path: Path, checkpoint_rows: int) -> None:
    config = config_in(tmp_path)
    path = journal_path(tmp_path / "data")
    demo_journal(path, checkpoint_rows=checkpoint_rows)
    with sqlite3.connect(path) as db:
        last_checkpoint = db.execute("SELECT COALESCE(MAX(seq), 0) FROM checkpoints").fetchone()[0]
        rows_before = db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    assert (last_checkpoint > 0) == (checkpoint_rows == 200)
    seq = forge_5s(path, after=last_checkpoint)
    assert_refused(run("run", "--config", str(config)), str(path), f"row {seq}: hash does not match its contents")
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == rows_before  # no row written


@pytest.mark.slow
def test_run_and_demo_refuse_an_empty_journal_file(tmp_path: Path) -> None:
    config = config_in(tmp_path)
    path = journal_path(tmp_path / "data")
    path.parent.mkdir()
    path.write_bytes(b"")
    assert_refused(run("run", "--config", str(config)), str(path), "the journal file is empty (0 bytes)")
    assert_refused(run("demo", "--fast", "--rounds", "1", "--http", "off", "--data-dir", str(path.parent)),
                   str(path), "empty (0 bytes)")
    assert path.stat().st_size == 0


@pytest.mark.slow
def test_run_refuses_a_truncated_journal_file(tmp_path: Path) -> None:
    config = config_in(tmp_path)
    path = journal_path(tmp_path / "data")
    demo_journal(path, checkpoint_rows=200)
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size * 2 // 3)
    assert_refused(run("run", "--config", str(config)), str(path), "the journal file is truncated")


@pytest.mark.slow
def test_demo_refuses_a_journal_forged_before_its_checkpoint(tmp_path: Path) -> None:
    """`demo --fast` has no event loop to audit beside play: it audits the older rows first and refuses."""
    data = tmp_path / "data"
    played = run("demo", "--fast", "--rounds", "60", "--http", "off", "--data-dir", str(data))
    assert played.returncode == 0, played.stderr
    path = journal_path(data)
    with sqlite3.connect(path) as db:
        checkpoint = db.execute("SELECT MAX(seq) FROM checkpoints").fetchone()[0]
    assert checkpoint, "60 rounds are more than one checkpoint interval"
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT seq, body FROM entries WHERE kind = 'input' AND body LIKE '%\"5S\"%' AND seq < ? "
                          "ORDER BY seq", (checkpoint,)).fetchall()
        seq, body = rows[len(rows) // 2]
        db.execute("UPDATE entries SET body = ? WHERE seq = ?", (body.replace('"5S"', '"KS"'), seq))
    assert_refused(run("demo", "--fast", "--rounds", "1", "--http", "off", "--data-dir", str(data)),
                   str(path), f"row {seq}: hash does not match its contents (altered)")
