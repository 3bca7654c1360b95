"""The installed version of the table software: in `--version`, the first log line and the feed's status rows."""

from __future__ import annotations

import functools
from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "smart-blackjack-table"  # pyproject.toml's [project] name


@functools.cache
def installed_version() -> str:
    """The version pip installed (``pyproject.toml``); ``0+unknown`` when run from a tree that was never installed."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"
