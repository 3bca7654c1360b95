"""A FEIG reader in the configuration: its URL and antenna numbers, checked by load_config and check-config."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_runtime.config import ConfigInvalidError, load_config
from table_runtime.runtime.assembly import preflight
from tests.table_runtime.test_config import MINIMAL, write


def feig(url: str, antennas: str) -> str:
    return MINIMAL.replace('url = "sim://reader"\nantennas = { 1 = "box1", 2 = "box2", 3 = "box2.behind" }',
                           f'url = "{url}"\nantennas = {{ {antennas} }}')


def test_a_multiplexed_feig_reader_loads_with_level_numbers(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, feig("feig:///dev/serial/by-id/usb-FEIG-if00?mux=1&adr=3",
                                              '11 = "box1", 42 = "box2", 88 = "box2.behind"')), environ={})
    (reader,) = config.devices.chip_readers
    assert dict(reader.antennas) == {11: "box1", 42: "box2", 88: "box2.behind"}
    assert not [problem for problem in preflight(config) if problem.key.startswith("devices.chip_readers")]


def test_an_antenna_beyond_the_levels_is_refused_by_its_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigInvalidError) as caught:
        load_config(write(tmp_path, feig("feig+tcp://10.0.0.9", '1 = "box1", 2 = "box2", 89 = "box2.behind"')),
                    environ={})
    keys = {problem.key: problem.message for problem in caught.value.problems}
    assert keys["devices.chip_readers[0].antennas.89"] == "antenna numbers are whole numbers from 1 to 88"


@pytest.mark.parametrize(("url", "antennas", "key", "message"), [
    ("feig:///dev/ttyUSB0", '1 = "box1", 9 = "box2"', "devices.chip_readers[0].antennas", "a reader output is 1..8"),
    ("feig:///dev/ttyUSB0?mux=1", '1 = "box1", 19 = "box2"', "devices.chip_readers[0].antennas",
     "a multiplexer channel"),
    ("feig:///dev/ttyUSB0?baud=fast", '1 = "box1", 2 = "box2"', "devices.chip_readers[0].url", "fast"),
])
def test_check_config_names_what_the_feig_driver_refuses(tmp_path: Path, url: str, antennas: str, key: str,
                                                        message: str) -> None:
    config = load_config(write(tmp_path, feig(url, antennas)), environ={})
    found = {problem.key: problem.message for problem in preflight(config)}
    assert key in found and message in found[key], found
