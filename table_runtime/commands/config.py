"""`table-runtime check-config FILE`: every problem of a configuration file, with its key."""

from __future__ import annotations

import argparse
from typing import Any

from table_runtime.config import ConfigInvalidError, describe, load_config


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check-config", help="check a table configuration file; print every problem with its key"
    )
    parser.add_argument("file", help="the TOML configuration file")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.file)
    except ConfigInvalidError as error:
        count = len(error.problems)
        print(f"{args.file}: {count} problem{'s' if count != 1 else ''}")
        for problem in error.problems:
            print(f"  {problem.key}: {problem.message}")
        return 1
    print(f"{args.file}: ok: {describe(config)}")
    return 0
