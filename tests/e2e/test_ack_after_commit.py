"""Ack after commit: the runtime killed with SIGKILL between a card's decoding and its journal commit, or between
the commit and the ACK, loses nothing and doubles nothing.

The real `table-runtime run` process reads a simulated shoe firmware that lives in this test's process (so
the kill leaves the shoe and its retransmit buffer alone). The process kills itself at a crash point
(injected by the tests' assembly, tests/e2e/crashing_run.py) at the third card; it is restarted on the
same data directory: the shoe, never acknowledged for that card, resends it, and the card is journaled
exactly once, with no shoe count mismatch.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from simulators.mosquitto import free_port
from simulators.shoe import SimulatedShoe
from tests.e2e.external_shoe import RuntimeProcess, dealt, external_shoe_config, loaded, shoe_inputs, wait_until

pytestmark = pytest.mark.timeout(180)
CRASH_AT = 3


@pytest.fixture
def shoe() -> Iterator[SimulatedShoe]:
    with SimulatedShoe(seed=11, announce=True) as simulated:
        yield simulated


@pytest.mark.parametrize("point", ["before-commit", "after-commit"])
def test_a_kill_between_the_read_and_the_ack_journals_the_card_exactly_once(
    tmp_path: Path, shoe: SimulatedShoe, point: str
) -> None:
    port = free_port()
    data = tmp_path / "data"
    config = external_shoe_config(tmp_path, data_dir=data, shoe_link=shoe.link, port=port)
    runtime = RuntimeProcess(config, port, crash_at=(point, CRASH_AT))
    try:
        runtime.wait_for("the shoe online and loaded", loaded)
        drawn = []
        for count in range(1, CRASH_AT):
            drawn.append(shoe.draw().code)
            runtime.wait_for(f"card {count}", dealt(count))
        wait_until("the first cards acknowledged", lambda: shoe.firmware.unacknowledged == 0)
        drawn.append(shoe.draw().code)  # the runtime dies on this one
        assert runtime.wait_exit() == -9, runtime.log
    finally:
        runtime.kill()
    assert shoe.firmware.unacknowledged >= 1  # the shoe still holds the card: it was never acknowledged
    journaled = [body["card"] for body in shoe_inputs(data) if body["type"] == "CardDrawn"]
    assert journaled == (drawn if point == "after-commit" else drawn[:-1])

    restarted = RuntimeProcess(config, port)
    try:
        restarted.wait_for("the shoe online again", loaded)
        snapshot = restarted.wait_for("the resent card", dealt(CRASH_AT))
        wait_until("the resent card acknowledged", lambda: shoe.firmware.unacknowledged == 0)
        drawn.append(shoe.draw().code)  # and play goes on
        snapshot = restarted.wait_for("the next card", dealt(CRASH_AT + 1))
        assert snapshot["shoe"]["cards_dealt"] == CRASH_AT + 1
        kinds = [alarm["kind"] for alarm in snapshot["alarms"]]
        assert "shoe_count_mismatch" not in kinds and "missed_cards" not in kinds, snapshot["alarms"]
    finally:
        assert restarted.terminate() == 0, restarted.log
    inputs = [body for body in shoe_inputs(data) if body["type"] == "CardDrawn"]
    assert [body["card"] for body in inputs] == drawn  # each card once, in order
    assert all(body["origin"]["device"] == "shoe" and body["origin"]["boot_id"] == shoe.firmware.boot_id
               for body in inputs)
    assert "Traceback" not in restarted.log
