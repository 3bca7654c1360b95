"""The command names are defined once (table_runtime/game/commands.py); the panel's driver, which may not
import the table, names its buttons in drivers/ports.py: the two must say the same names."""

from __future__ import annotations

from drivers.panel_buttons import BUTTONS as DRIVER_BUTTONS
from drivers.ports import PanelCommand
from simulators.bench.model import BUTTONS as BENCH_BUTTONS
from simulators.bench.model import TOUCHES
from table_runtime.config import BUTTONS as CONFIG_BUTTONS
from table_runtime.display.backend import ALL_COMMANDS
from table_runtime.game.commands import PANEL_BUTTONS, ROUND_COMMANDS, Command


def test_the_panel_gives_the_commands_of_the_table_by_their_names() -> None:
    assert tuple(PANEL_BUTTONS) == DRIVER_BUTTONS
    assert {command.value for command in PanelCommand} <= {command.value for command in Command}
    assert PanelCommand.VOID.value == Command.VOID  # the CONFIRM+UNDO chord


def test_every_list_of_commands_refers_to_the_one_definition() -> None:
    assert tuple(CONFIG_BUTTONS) == tuple(BENCH_BUTTONS) == tuple(PANEL_BUTTONS)
    assert set(TOUCHES) == set(Command)
    assert set(ROUND_COMMANDS) <= set(Command) and set(ALL_COMMANDS) <= set(Command)
