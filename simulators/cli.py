"""`table-sim`: run simulated table devices from the command line, for a test bench or a human.

One module per subcommand; each has `register(subparsers)` that sets
`handler=` via set_defaults. Add yours to SUBCOMMAND_MODULES.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from table_runtime.cli import add_version, run_handler

SUBCOMMAND_MODULES: tuple[str, ...] = (
    "simulators.shoe_console",
    "simulators.devices_console",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="table-sim", description=__doc__.splitlines()[0])
    add_version(parser)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="DEVICE")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_handler(build_parser(), argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
