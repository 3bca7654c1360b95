"""`table-runtime`: the command line of the table controller."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from table_runtime import plugins
from table_runtime.errors import TableError
from table_runtime.version import installed_version

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
    "table_runtime.commands.staff",
    "table_runtime.commands.accounts",
    "table_runtime.commands.recall",
    "table_runtime.commands.events",
    "table_runtime.commands.meters",
    "table_runtime.commands.release",
    "demo",
    "simulate",
    "table_runtime.commands.run",
)
# Which module registers each command: a start builds the parser of its own command alone and imports no
# other command's module (they cost about 0.2 s of CPU at every start, the configuration's and the feed's
# imports for commands that need neither). A command not named here (or no command: --help, --version)
# builds the whole parser; tests/table_runtime/test_cli_commands.py checks this table against it.
COMMAND_OF: dict[str, str] = {
    "rules": "table_runtime.commands.rules",
    "journal": "table_runtime.commands.journal",
    "check-config": "table_runtime.commands.config",
    "feed": "table_runtime.commands.feed",
    "strategy": "table_runtime.commands.strategy",
    "house-edge": "table_runtime.commands.strategy",
    "chips": "table_runtime.commands.chips",
    "staff": "table_runtime.commands.staff",
    "accounts": "table_runtime.commands.accounts",
    "recall": "table_runtime.commands.recall",
    "events": "table_runtime.commands.events",
    "meters": "table_runtime.commands.meters",
    "release": "table_runtime.commands.release",
    "verify": "table_runtime.commands.release",
    "update": "table_runtime.commands.release",
    "demo": "demo",
    "simulate": "simulate",
    "run": "table_runtime.commands.run",
}


def build_parser(*, command_group: str = plugins.COMMANDS_GROUP, command: str | None = None) -> argparse.ArgumentParser:
    """Every command's parser; with `command` (one `COMMAND_OF` names), that command's module's alone."""
    parser = argparse.ArgumentParser(prog="table-runtime", description=__doc__)
    add_version(parser)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in (COMMAND_OF[command],) if command in COMMAND_OF else COMMAND_MODULES:
        module = importlib.import_module(name) if "." in name else plugins.command_module(name, group=command_group)
        if module is None:
            plugins.missing_command(subparsers, name, group=command_group)
        else:
            module.register(subparsers)
    return parser


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version``: the program and the installed version (shared by the three entry points)."""
    parser.add_argument("--version", action="version", version=f"%(prog)s {installed_version()}")


def error_line(error: BaseException) -> str:
    """What went wrong, on one line: the file, line or key first, as our errors name them."""
    if isinstance(error, UnicodeDecodeError):
        return f"input that is not UTF-8: byte 0x{error.object[error.start]:02x} at offset {error.start}"
    if isinstance(error, OSError) and error.filename is not None and not isinstance(error, TableError):
        if error.filename2 is not None:  # a link or a rename: both paths
            return f"{error.filename2} -> {error.filename}: {error.strerror or error}"
        return f"{error.filename}: {error.strerror or error}"
    return "; ".join(line.strip() for line in str(error).splitlines() if line.strip()) or type(error).__name__


def run_handler(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> int:
    """Parse, run the chosen command's handler; a bad file, key or device is one line on stderr and exit 2.

    Shared by `table-runtime`, `table-sim` and `table-bench`: the one place that turns our errors (and a file
    the system cannot open or decode) into ``PROG: error: WHERE: WHAT`` instead of a traceback.
    """
    args, unknown = parser.parse_known_args(argv)
    if unknown and not getattr(args, "any_arguments", False):  # a missing plugin's stand-in takes any
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return int(handler(args))
    except (TableError, OSError, UnicodeError) as error:
        print(f"{parser.prog}: error: {error_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    return run_handler(build_parser(command=words[0] if words else None), argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
