"""`table-runtime`: the command line of the table controller."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from table_runtime import plugins
from table_runtime.errors import TableError

# One module per command group, under table_runtime/commands/. Add yours here. A bare name is a command another
# package provides through the `smart_table.commands` entry point group (table_runtime/plugins.py): the
# simulators' `demo` and `simulate`; the product never imports them.
COMMAND_MODULES: tuple[str, ...] = (
    "table_runtime.commands.rules",
    "table_runtime.commands.journal",
    "table_runtime.commands.config",
    "table_runtime.commands.feed",
    "table_runtime.commands.strategy",
    "table_runtime.commands.chips",
    "table_runtime.commands.recall",
    "demo",
    "simulate",
    "table_runtime.commands.run",
)


def build_parser(*, command_group: str = plugins.COMMANDS_GROUP) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="table-runtime", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(name) if "." in name else plugins.command_module(name, group=command_group)
        if module is None:
            plugins.missing_command(subparsers, name, group=command_group)
        else:
            module.register(subparsers)
    return parser


def run_handler(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> int:
    """Parse, run the chosen command's handler; our errors are one line on stderr and exit 2.

    Shared by `table-runtime`, `table-sim` and `table-bench`.
    """
    args, unknown = parser.parse_known_args(argv)
    if unknown and not getattr(args, "any_arguments", False):  # a missing plugin's stand-in takes any
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return int(handler(args))
    except TableError as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def main(argv: Sequence[str] | None = None) -> int:
    return run_handler(build_parser(), argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
