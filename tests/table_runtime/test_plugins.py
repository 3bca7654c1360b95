"""The simulators reach the product through entry points only: found when installed, one line when not."""

from __future__ import annotations

import pytest

from simulators import devices
from simulators.commands import demo, simulate
from table_runtime import plugins
from table_runtime.cli import build_parser, run_handler
from table_runtime.errors import ConfigError

NOWHERE = "smart_table.nothing_registers_this"


def test_the_installed_simulators_provide_the_sim_devices_and_commands() -> None:
    assert plugins.shoe_starter("sim://shoe", "devices.shoe") is devices.start_shoe
    assert plugins.reader_opener("sim://reader", "devices.chip_readers[0].url") is devices.open_reader
    assert plugins.shoe_checker("sim://shoe", "devices.shoe") is devices.check_shoe
    assert plugins.command_module("demo") is demo
    assert plugins.command_module("simulate") is simulate


def test_the_cli_keeps_its_commands_in_their_order() -> None:
    parser = build_parser()
    actions = [action for action in parser._actions if action.dest == "command"]
    names = list(actions[0].choices or ())
    assert names[names.index("recall"):] == ["recall", "events", "meters", "release", "verify", "update", "demo",
                                             "simulate", "run"]


@pytest.mark.parametrize("lookup", [plugins.shoe_starter, plugins.shoe_checker, plugins.reader_opener])
def test_a_sim_device_without_simulators_is_one_configuration_error(lookup: object) -> None:
    assert callable(lookup)
    with pytest.raises(ConfigError) as raised:
        lookup("sim://shoe?seed=3", "devices.shoe", group=NOWHERE)
    assert raised.value.key == "devices.shoe"
    assert "not installed" in str(raised.value) and "\n" not in str(raised.value)


def test_a_command_without_simulators_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser(command_group=NOWHERE)
    assert run_handler(parser, ["demo", "--fast", "--rounds", "3"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("table-runtime: error: 'demo' comes with the simulators, which are not installed")
    assert run_handler(build_parser(command_group=NOWHERE), ["rules"]) == 0  # the product's own commands work
