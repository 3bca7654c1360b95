"""`table-runtime run` with a FEIG ISO-Host reader (``feig://``) plays the demo table's rounds through the real
driver on a pty.

The configuration is configs/demo.toml with its two simulated USB readers replaced by one FEIG reader behind a
two-level antenna multiplexer (21 channels, one per zone), simulated in this test's process on a pty at realistic
timing, with the shoe on a pty too and a chip registry of the chips the test places. Two rounds: box1 wins and is
paid, box2 busts and is collected; each closes on CONFIRM with the payout the readers verified. Then the reader's
cable is pulled (an alarm names it) and plugged back (online again at the same path).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from simulators.feig_reader import SimulatedFeigReader, level_number
from simulators.mosquitto import free_port
from simulators.rfid_chips import ChipIssuer
from simulators.shoe import SimulatedShoe
from table_runtime.config import zone_names
from table_runtime.game.cards import parse_cards
from tests.e2e.external_shoe import DEMO_CONFIG, RuntimeProcess, loaded
from tests.e2e.test_run_config import touch

pytestmark = pytest.mark.timeout(180)

ZONES = {level_number(index): zone for index, zone in enumerate(zone_names(7))}
# burns | box1 bank box1 | bank (box1 20 against 17) || box2 bank box2 | box2 hits 16 and busts
STACK = parse_cards("9C 9D 9H 9S 8C  TS 7H KD  TC  TD TH 6D  9S")


def feig_config(directory: Path, *, shoe: SimulatedShoe, reader: SimulatedFeigReader, registry: Path,
                port: int) -> Path:
    text = DEMO_CONFIG.read_text(encoding="utf-8")
    text = re.sub(r'(?m)^data_dir = .*$', f'data_dir = "{directory / "data"}"', text)
    text = re.sub(r"(?m)^port = 8080$", f"port = {port}", text)
    text = re.sub(r'(?m)^shoe = .*$', f'shoe = "serial://{shoe.link}"\nchip_registry = "{registry}"', text)
    antennas = "\n".join(f'{number} = "{zone}"' for number, zone in sorted(ZONES.items()))
    readers = (f'[[devices.chip_readers]]\nname = "feig"\nurl = "{reader.url}&mux=1"\n'
               f'[devices.chip_readers.antennas]\n{antennas}\n\n')
    text = re.sub(r"(?s)# Two simulated readers.*?(?=\[pins\])", readers, text)
    path = directory / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def shoe() -> Iterator[SimulatedShoe]:
    with SimulatedShoe(seed=5, announce=True) as simulated:
        yield simulated


@pytest.fixture
def reader() -> Iterator[SimulatedFeigReader]:
    with SimulatedFeigReader(ZONES, mux=True, address=0) as simulated:  # realistic timing
        yield simulated


def zone(snapshot: dict[str, Any], name: str) -> int:
    return int(snapshot["zones"].get(name, 0))


async def press(runtime: RuntimeProcess, name: str) -> None:
    result = await touch(runtime.port, name, {})
    assert result["ok"], json.dumps(result)


def wait(runtime: RuntimeProcess, what: str, condition: Any) -> dict[str, Any]:
    return runtime.wait_for(what, condition, seconds=30.0)


@pytest.mark.slow
async def test_run_plays_rounds_through_a_feig_reader(tmp_path: Path, shoe: SimulatedShoe,
                                                      reader: SimulatedFeigReader) -> None:
    issuer = ChipIssuer(7, seed=3)
    registry = tmp_path / "chips.csv"
    stakes = {"box1": issuer.issue(1000, 1), "win": issuer.issue(1000, 1), "box2": issuer.issue(500, 1)}
    registry.write_text(issuer.csv(), encoding="utf-8")
    port = free_port()
    runtime = RuntimeProcess(feig_config(tmp_path, shoe=shoe, reader=reader, registry=registry, port=port), port)
    try:
        wait(runtime, "the shoe and the FEIG reader online",
             lambda s: loaded(s) and s["devices"].get("chips") == "online")
        shoe.load_stack(STACK)
        wait(runtime, "the stacked shoe", lambda s: s["shoe"]["shoe_id"] == "S2")
        for count in range(1, 6):
            shoe.draw()
            wait(runtime, f"burn {count}", lambda s, n=count: s["shoe"]["cards_dealt"] >= n)

        # round 1: 10.00 on box1, 20 against the bank's 17, paid 10.00
        reader.place("box1", *stakes["box1"])
        wait(runtime, "box1's stake read", lambda s: zone(s, "box1") == 1000)
        for count in range(3):  # the first card out of the shoe locks the bets (NO MORE BETS)
            shoe.draw()
            wait(runtime, f"deal card {count + 1}", lambda s, n=count: s["shoe"]["cards_dealt"] >= 6 + n)
        wait(runtime, "box1 to play", lambda s: s["phase"] == "playing")
        await press(runtime, "NEXT")
        shoe.draw()
        wait(runtime, "the settlement", lambda s: s["phase"] == "settlement")
        reader.place("box1", *stakes["win"])
        wait(runtime, "the payout read", lambda s: zone(s, "box1") == 2000)
        await press(runtime, "CONFIRM")
        first = wait(runtime, "round 1 closed", lambda s: s["phase"] == "closed")
        assert not [a for a in first["alarms"] if a["kind"] in ("wrong_payout", "reader_offline", "antenna_fault")]
        reader.take_all("box1")
        wait(runtime, "box1 cleared", lambda s: zone(s, "box1") == 0)

        # round 2: 5.00 on box2, which hits 16 and busts; the stake is collected
        reader.place("box2", *stakes["box2"])
        wait(runtime, "box2's stake read", lambda s: zone(s, "box2") == 500)
        for _ in range(4):
            shoe.draw()
        wait(runtime, "the settlement of round 2", lambda s: s["phase"] == "settlement" and s["round"] == 2)
        reader.take_all("box2")
        wait(runtime, "box2 collected", lambda s: zone(s, "box2") == 0)
        await press(runtime, "CONFIRM")
        second = wait(runtime, "round 2 closed", lambda s: s["phase"] == "closed" and s["round"] == 2)
        assert not [a for a in second["alarms"] if a["kind"] in ("wrong_payout", "reader_offline")]

        # the reader's cable pulled between rounds: an alarm naming it; back at the same path, online again
        reader.unplug()
        unplugged = wait(runtime, "the reader offline", lambda s: s["devices"].get("chips") == "offline")
        wait(runtime, "the reader_offline alarm",
             lambda s: any(a["kind"] == "reader_offline" and "feig" in a["message"] for a in s["alarms"]))
        assert unplugged["devices"]["shoe"] == "online"
        reader.replug()
        wait(runtime, "the reader online again", lambda s: s["devices"].get("chips") == "online")
    finally:
        code = runtime.terminate()
    assert code == 0, runtime.log
    assert re.search(r"FEIG reader at \S+, COM-ADR 0: device id 12345678, firmware 3\.03\.00", runtime.log), \
        runtime.log
    assert "Traceback" not in runtime.log
    assert reader.firmware.inventories > 10
