"""`--devices FILE`: which device is real. The switch is tested by making the shoe "real": the bench opens
it by URL and asks an operator to act, and the operator here is a helper driving a simulated shoe."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from simulators.bench.cli import LIBRARY
from simulators.bench.devices import DevicesFileError, Operator, devices_from_mapping, load_devices
from simulators.bench.runner import BenchTable, run_scenario
from simulators.bench.scenario import load_scenario
from simulators.shoe import SimulatedShoe
from table_runtime.game.cards import parse_cards

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_sim_is_everything_simulated_and_a_file_names_the_real_ones(tmp_path: Path) -> None:
    assert load_devices("sim").all_simulated
    registry = tmp_path / "chips.csv"
    registry.write_text("uid,denomination,casino_id,status\n", encoding="utf-8")
    devices = tmp_path / "devices.toml"
    devices.write_text(f'shoe = "serial:///dev/ttyUSB0"\nchips = "usb://1209:7ab1?serial=R1"\n'
                       f'chips_registry = "{registry}"\nantennas = {{ 1 = "box1", 2 = "box1.behind" }}\n',
                       encoding="utf-8")
    choice = load_devices(str(devices))
    assert choice.real("shoe") and choice.real("chips") and not choice.real("panel") and not choice.real("broker")
    assert choice.antennas == {1: "box1", 2: "box1.behind"}


def test_the_table_config_gives_the_real_panel_its_pins_and_pin_factory() -> None:
    choice = devices_from_mapping({"table_config": str(CONFIGS / "demo.toml"), "panel": "gpio"})
    assert choice.real("panel") and choice.pins is not None
    assert choice.pins.buttons["DEAL"] == 5 and choice.pin_factory == "mock"
    with pytest.raises(DevicesFileError) as raised:
        devices_from_mapping({"table_config": str(CONFIGS / "missing.toml")})
    assert raised.value.key == "table_config"


@pytest.mark.parametrize(("raw", "key"), [
    ({"shoe": "/dev/ttyUSB0x", "lamp": "on"}, "lamp"),
    ({"shoe": "tcp://shoe"}, "shoe"),
    ({"chips": "usb://1209:7ab1"}, "chips_registry"),
    ({"panel": "spi"}, "panel"),
    ({"broker": "http://x"}, "broker"),
    ({"operator_timeout": 0}, "operator_timeout"),
    ({"casino_id": "seven"}, "casino_id"),
])
def test_a_bad_devices_file_names_the_key(raw: dict[str, object], key: str) -> None:
    with pytest.raises(DevicesFileError) as raised:
        devices_from_mapping(raw)
    assert raised.value.key == key


class ShoeOperator(Operator):
    """Does what the bench asks of the person at the shoe, on a simulated shoe that the bench sees as real."""

    def __init__(self, shoe: SimulatedShoe) -> None:
        super().__init__(stream=open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - closed by the test
        self.shoe = shoe

    def ask(self, text: str) -> None:
        super().ask(text)
        if text.startswith("load a stacked shoe"):
            cards = re.search(r"first card out: ([^;]+)", text)
            assert cards is not None
            self.shoe.load_stack(parse_cards(cards.group(1)))
        elif text == "draw one card from the shoe":
            self.shoe.draw()


@pytest.mark.timeout(120)
async def test_a_real_shoe_is_opened_by_url_and_the_operator_is_asked_to_act(tmp_path: Path) -> None:
    with SimulatedShoe(seed=3, announce=False, link=tmp_path / "ttyREAL", cut_cards_behind=0) as shoe:
        choice = devices_from_mapping({"shoe": shoe.url, "operator_timeout": 20})
        operator = ShoeOperator(shoe)
        try:
            scenario = load_scenario(LIBRARY / "02-blackjack-pays-3-to-2.yaml")
            bench = BenchTable(scenario, data_dir=tmp_path, devices=choice, operator=operator)
            found = await bench.run()
        finally:
            operator.stream.close()
    assert found == []
    assert operator.asked[0].startswith("load a stacked shoe, in this order from the first card out: 2C 3C 4C")
    assert operator.asked.count("draw one card from the shoe") == 9
    assert not bench.shoe_sim.plugged  # the bench's own simulated shoe was never started


@pytest.mark.hw
@pytest.mark.skipif(os.environ.get("TABLE_HW") != "1" or not os.environ.get("TABLE_SHOE_URL"),
                    reason="needs a real shoe: TABLE_HW=1 TABLE_SHOE_URL=serial:///dev/ttyUSB0")
@pytest.mark.timeout(900)
async def test_the_basic_round_on_a_real_shoe(tmp_path: Path) -> None:
    """A person at the bench loads the printed stack and draws the cards when asked."""
    choice = devices_from_mapping({"shoe": os.environ["TABLE_SHOE_URL"]})
    result = await run_scenario(load_scenario(LIBRARY / "01-fr-casino-player-20-beats-bank-17.yaml"),
                                work_dir=tmp_path, devices=choice)
    assert result.status == "passed", result.first_difference
