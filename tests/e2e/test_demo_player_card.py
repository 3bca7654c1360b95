"""`table-runtime demo` has a player card reader: a simulated reader's FIFO read by the real driver. A rated player
swipes his card at a new shoe, the dealer taps his box; the journal holds his pseudonym and never the number."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from simulators.commands.demo import DEMO_CARD_SECRET
from table_runtime.journal import Journal, journal_path
from table_runtime.rating.pseudonym import pseudonym

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(180)


def test_the_demo_seats_a_player_by_his_card_and_journals_only_his_pseudonym(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "table_runtime", "demo", "--rounds", "2", "--pace", "0",
                           "--http", "off", "--devices-in-process", "--json", "--data-dir", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=150, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rounds"] == 2
    first_card = "40000000"  # the demo's first regular (simulators/live_table.py seat_by_card)
    with Journal.open(journal_path(tmp_path)) as journal:
        inputs = [entry.body for entry in journal.entries(kinds=("input",))]
        statuses = [entry.body for entry in journal.entries(kinds=("status",))]
    (read,) = [body for body in inputs if body["type"] == "PlayerCardRead"]
    (seated,) = [body for body in inputs if body["type"] == "PlayerSeated"]
    assert read["player"] == seated["player"] == pseudonym(DEMO_CARD_SECRET, first_card)
    assert seated["seat_source"] == "card" and read["source"] == "card"
    assert {"type": "DeviceStatus", "device": "player_cards", "status": "online", "schema_version": 1} in statuses
    assert not [path for path in tmp_path.rglob("*") if path.is_file() and first_card.encode() in path.read_bytes()]
