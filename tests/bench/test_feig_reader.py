"""Scenarios of the library with a FEIG ISO-Host reader in the reference reader's place (`table-bench run --reader
feig`): the real FEIG driver on a pty, the simulated reader behind a two-level multiplexer at realistic timing.

A representative subset, one per thing the reader must get right: bets read and locked, a double's chips, payouts
verified, past-posting, refused chips (the tag's data block read from the chip), flickering reads, the cable
pulled mid-round, and a power loss of the runtime with the reader still running. The whole library is run by hand
(docs/bench.md).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from simulators.bench.cli import LIBRARY
from simulators.bench.devices import Operator, devices_from_mapping
from simulators.bench.runner import BenchTable, SharedBroker, run_scenario
from simulators.bench.scenario import load_scenario
from simulators.feig_reader import SimulatedFeigReader, level_number
from simulators.rfid_chips import DENOMINATIONS_CENTS, ChipIssuer

SUBSET = [
    "01-fr-casino-player-20-beats-bank-17",
    "07-double-on-any-two-fr-casino",
    "33-past-posting-chips-added-during-the-deal",
    "35-wrong-payout-short",
    "50-chip-reader-unplugged-mid-round",
    "53-other-casino-and-relabelled-chips",
    "60-power-loss-mid-round",
    "82-flickering-chips-stay-stable",
]


def test_the_subset_names_scenarios_of_the_library() -> None:
    assert all((LIBRARY / f"{name}.yaml").is_file() for name in SUBSET)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name", SUBSET)
@pytest.mark.slow
async def test_scenario_with_a_feig_reader(name: str, tmp_path: Path, shared_broker: SharedBroker) -> None:
    scenario = load_scenario(LIBRARY / f"{name}.yaml")
    result = await run_scenario(scenario, work_dir=tmp_path, broker=shared_broker, reader="feig")
    expected = "xfail" if scenario.expected_fail is not None else "passed"
    assert result.status == expected, f"{name} with a FEIG reader: {result.first_difference}"


class ChipOperator(Operator):
    """The person at a bench with a real FEIG reader: places and takes chips of the casino's float when asked.

    The reader is the simulated one, opened by URL as the bench opens a real reader (docs/bench.md)."""

    def __init__(self, reader: SimulatedFeigReader, issuer: ChipIssuer) -> None:
        super().__init__(stream=open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - closed by the test
        self.reader = reader
        self.float = {cents: issuer.issue(cents, 20) for cents in DENOMINATIONS_CENTS}

    def ask(self, text: str) -> None:
        super().ask(text)
        placed = re.fullmatch(r"place (\d+)\.(\d\d) EUR of chips on (\S+)", text)
        taken = re.fullmatch(r"take (\d+)\.(\d\d) EUR off (\S+)", text)
        if placed:
            left = int(placed[1]) * 100 + int(placed[2])
            for cents in DENOMINATIONS_CENTS:
                while left >= cents:
                    self.reader.place(placed[3], self.float[cents].pop())
                    left -= cents
        elif taken:
            left = int(taken[1]) * 100 + int(taken[2])
            for chip in sorted(self.reader.chips(taken[3]), key=lambda c: -(c.denomination_cents or 0)):
                if (chip.denomination_cents or 0) <= left:
                    self.reader.remove(taken[3], chip.uid)
                    left -= chip.denomination_cents or 0


@pytest.mark.timeout(120)
@pytest.mark.slow
async def test_a_real_feig_reader_is_opened_by_url_and_the_operator_places_the_chips(tmp_path: Path) -> None:
    scenario = load_scenario(LIBRARY / f"{SUBSET[0]}.yaml")
    antennas = {level_number(index): zone for index, zone in enumerate(scenario.zones)}
    issuer = ChipIssuer(7, seed=9)
    with SimulatedFeigReader(antennas, mux=True, link=tmp_path / "ttyFEIG") as reader:
        operator = ChipOperator(reader, issuer)
        registry = tmp_path / "chips.csv"
        registry.write_text(issuer.csv(delimiter=","), encoding="utf-8")
        choice = devices_from_mapping({"chips": f"{reader.url}&mux=1", "chips_registry": str(registry),
                                       "antennas": {str(n): zone for n, zone in antennas.items()},
                                       "operator_timeout": 30})
        try:
            bench = BenchTable(scenario, data_dir=tmp_path / "data", devices=choice, operator=operator)
            found = await bench.run()
        finally:
            operator.stream.close()
    assert found == []
    assert any(text.startswith("place ") for text in operator.asked), operator.asked
    assert reader.firmware.inventories > 0


HOSTILE = """\
name: a hostile FEIG reader (another COM-ADR answering, endless more data, replies later than the timeout) is an
  alarm each time and never a wrong amount
cites: ["docs/rules.md Shoe integrity (shoe or reader disconnected)", "docs/rules.md Devices (RFID chip readers)"]
shoe: 2C 3C 4C 5C 6C  TS 9D 8H  8C
steps:
  - draw: 5
  - place: {box1: 1000}
  - press: DEAL
  - draw: 3
  - fault: reader_impostor        # every chip of the table read on box1 by another reader on the bus
  - expect: {devices: {chips: offline}, alarms_include: [reader_offline], zones: {box1: 1000}}
  - fault: reader_heal
  - expect: {devices: {chips: online}, zones: {box1: 1000}}
  - fault: {fault: reader_more_data, wait: false}
  - wait: {alarm: antenna_fault}
  - wait: {alarm: reader_offline}
  - expect: {zones: {box1: 1000}}
  - fault: reader_heal
  - expect: {devices: {chips: online}, zones: {box1: 1000}}
  - fault: {fault: reader_slow, wait: false}
  - wait: {alarm: reader_offline}
  - fault: reader_heal
  - expect: {devices: {chips: online}, zones: {box1: 1000}}
  - press: NEXT
  - draw: 1                       # 9D 8C = 17
  - expect: {phase: settlement, payouts: {box1.hand0.original: 1000}}
  - settle: {}
expect:
  phase: closed
  alarms_include: [reader_offline, antenna_fault]
"""


@pytest.mark.timeout(180)
async def test_the_hostile_feig_reader_modes_in_a_scenario(tmp_path: Path, shared_broker: SharedBroker) -> None:
    """The bench's FEIG faults (docs/bench.md): each mode ends in an alarm, the zones keep their amounts, the round
    is paid and verified once the reader is healed."""
    path = tmp_path / "hostile-feig.yaml"
    path.write_text(HOSTILE, encoding="utf-8")
    result = await run_scenario(load_scenario(path), work_dir=tmp_path, broker=shared_broker, reader="feig")
    assert result.status == "passed", result.first_difference
