"""`table-runtime check-config FILE`: every problem of a configuration file, with its key.

It refuses what `table-runtime run` would refuse, without opening the journal:
the keys and values (`table_runtime.config`), then what the assembly checks
before it starts (`table_runtime.runtime.assembly.preflight`): the chip registry
(there, readable, one casino or `devices.casino_id`), the readers' and the
simulated shoe's URLs, the feed's credentials, the data directory. Past that it
opens what the service would open first and could not do without: the dealer
panel's GPIO pin factory on its chip (on the Pi: lgpio and ``/dev/gpiochipN``),
and the metrics library when ``[metrics]`` asks for it. All of it in one pass: a
file whose keys have problems still has its GPIO chip and metrics checked (each
section that could be read). Each problem is one line naming its key; exit 1.
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
    """Every problem in one pass: the keys and values, what the assembly checks, and what the service opens
    first (the pin factory on its chip, the metrics library), the last two for every section that could be
    read even when others could not."""
    from table_runtime.runtime.assembly import preflight, service_part_problems

    try:
        config = checked_config(args.file)
    except ConfigInvalidError as error:
        more, _ = service_part_problems(error.devices, error.metrics)
        print_problems(args.file, _distinct([*error.problems, *more]), sys.stdout)
        return 1
    problems = preflight(config)
    more, opened = service_part_problems(config.devices, config.metrics)
    problems = _distinct([*problems, *more])
    if problems:
        print_problems(args.file, problems, sys.stdout)
        return 1
    print(f"{args.file}: ok: {describe(config)}; opened {opened}")
    return 0


def _distinct(problems: list[ConfigError]) -> list[ConfigError]:
    """Each problem once (the assembly's checks and the service's own may name the same chip)."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for problem in problems:
        if (problem.key, problem.message) not in seen:
            seen.add((problem.key, problem.message))
            kept.append(problem)
    return kept
