"""Every scenario of the shipped library, through the bench, against the real runtime on the real transports.

One test per scenario file so that `pytest -n 2` spreads them over both
cores; a scenario marked `expected_fail` must fail (a runtime bug it shows),
and turns red the day it passes so the mark is removed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simulators.bench.cli import LIBRARY
from simulators.bench.runner import SharedBroker, run_scenario
from simulators.bench.scenario import load_scenario, scenario_paths

SCENARIOS = scenario_paths([LIBRARY])


def test_the_library_has_at_least_40_scenarios_each_citing_its_rule() -> None:
    assert len(SCENARIOS) >= 40
    for path in SCENARIOS:
        scenario = load_scenario(path)
        assert scenario.cites and all(cite.strip() for cite in scenario.cites), path.name
    profiles = {load_scenario(path).rules.profile for path in SCENARIOS}
    assert profiles == {"fr-casino", "fr-classic", "online", "fr-2020"}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
async def test_scenario(path: Path, tmp_path: Path, shared_broker: SharedBroker) -> None:
    scenario = load_scenario(path)
    result = await run_scenario(scenario, work_dir=tmp_path, broker=shared_broker)
    if scenario.expected_fail is not None:
        assert result.status == "xfail", f"{path.name} is marked expected_fail but passed: remove the mark"
    else:
        assert result.status == "passed", f"{path.name}: {result.first_difference}"
