"""`table-runtime check-config FILE`: every problem of a configuration file, with its key.

It refuses what `table-runtime run` would refuse, without opening the journal:
the keys and values (`table_runtime.config`), then what the assembly checks
before it starts (`table_runtime.runtime.assembly.preflight`): the chip registry
(there, readable, one casino or `devices.casino_id`), the readers' and the
simulated shoe's URLs, the feed's credentials, the data directory. Past that it
opens what the service would open first and could not do without: the dealer
panel's GPIO pin factory on its chip (on the Pi: lgpio and ``/dev/gpiochipN``),
and the metrics library when ``[metrics]`` asks for it. Each problem is one line
naming its key; exit 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from table_runtime.config import ConfigInvalidError, TableConfig, describe, load_config
from table_runtime.errors import ConfigError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check-config", help="check a table configuration file as `run` would; print every problem with its key"
    )
    parser.add_argument("file", help="the TOML configuration file")
    parser.set_defaults(handler=run)


def checked_config(path: str | Path) -> TableConfig:
    """`load_config`, with a file that cannot be read at all (missing, not UTF-8, not TOML, empty) as one
    `ConfigError` naming the file; a file with problems in its keys raises `ConfigInvalidError` listing them."""
    try:
        return load_config(path)
    except ConfigInvalidError as error:
        if [problem.key for problem in error.problems] == ["file"]:
            raise ConfigError(str(path), error.problems[0].message) from error
        raise


def print_problems(source: str | Path, problems: tuple[ConfigError, ...] | list[ConfigError], stream: TextIO) -> None:
    count = len(problems)
    print(f"{source}: {count} problem{'s' if count != 1 else ''}", file=stream)
    for problem in problems:
        print(f"  {problem.key}: {problem.message}", file=stream)


def run(args: argparse.Namespace) -> int:
    from table_runtime.runtime.assembly import open_service_parts, preflight

    try:
        config = checked_config(args.file)
    except ConfigInvalidError as error:
        print_problems(args.file, error.problems, sys.stdout)
        return 1
    problems = preflight(config)
    if problems:
        print_problems(args.file, problems, sys.stdout)
        return 1
    try:
        opened = open_service_parts(config)
    except ConfigError as error:
        print_problems(args.file, [error], sys.stdout)
        return 1
    print(f"{args.file}: ok: {describe(config)}; opened {opened}")
    return 0
