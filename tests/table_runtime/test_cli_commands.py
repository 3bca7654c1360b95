"""A start of `table-runtime COMMAND` builds its own command's parser alone (table_runtime/cli.py, COMMAND_OF):
the same parser as in the whole command line, and no other command's module imported."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from table_runtime.cli import COMMAND_MODULES, COMMAND_OF, build_parser


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [action for action in parser._actions if action.dest == "command"]
    assert isinstance(action.choices, dict)
    return dict(action.choices)


def test_every_command_is_named_with_the_module_that_registers_it() -> None:
    assert set(COMMAND_OF) == set(commands(build_parser()))
    assert set(COMMAND_OF.values()) == set(COMMAND_MODULES)


@pytest.mark.parametrize("command", sorted(COMMAND_OF))
def test_a_command_alone_parses_as_in_the_whole_command_line(command: str) -> None:
    alone = commands(build_parser(command=command))
    assert command in alone
    assert alone[command].format_help() == commands(build_parser())[command].format_help()


def test_a_start_imports_no_other_commands_module() -> None:
    probe = ("import sys; from table_runtime import cli; code = cli.main(['rules', '--profile', 'fr-casino']); "
             "print('MODULES', ' '.join(sorted(sys.modules))); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    imported = set(done.stdout.rsplit("MODULES ", 1)[1].split())
    assert "table_runtime.commands.rules" in imported
    others = {name for name in COMMAND_MODULES if "." in name} - {"table_runtime.commands.rules"}
    assert not others & imported
    assert "simulators.commands.demo" not in imported
