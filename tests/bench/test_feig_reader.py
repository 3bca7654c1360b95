"""Scenarios of the library with a FEIG ISO-Host reader in the reference reader's place (`table-bench run --reader
feig`): the real FEIG driver on a pty, the simulated reader behind a two-level multiplexer at realistic timing.

A representative subset, one per thing the reader must get right: bets read and locked, a double's chips, payouts
verified, past-posting, refused chips (the tag's data block read from the chip), flickering reads, the cable
pulled mid-round, and a power loss of the runtime with the reader still running. The whole library is run by hand
(docs/bench.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simulators.bench.cli import LIBRARY
from simulators.bench.runner import SharedBroker, run_scenario
from simulators.bench.scenario import load_scenario

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
async def test_scenario_with_a_feig_reader(name: str, tmp_path: Path, shared_broker: SharedBroker) -> None:
    scenario = load_scenario(LIBRARY / f"{name}.yaml")
    result = await run_scenario(scenario, work_dir=tmp_path, broker=shared_broker, reader="feig")
    expected = "xfail" if scenario.expected_fail is not None else "passed"
    assert result.status == expected, f"{name} with a FEIG reader: {result.first_difference}"
