"""`table-floor` as the shell starts it: the floor's own dependencies looked for first, so a machine installed
without the `floor` extra gets one line saying what to install (for --help and --version too), never a traceback.

The floor's dependencies are an extra (pyproject.toml `[project.optional-dependencies] floor`): a table's Pi never
installs them, the README's first command does (`-e '.[floor]'`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.util import find_spec
from typing import Final

# The modules the floor imports that only the `floor` extra installs (pyproject.toml).
FLOOR_MODULES: Final = ("asyncpg", "orjson", "paho")
INSTALL: Final = "pip install -c constraints.txt -e '.[floor]'"


def missing_modules() -> list[str]:
    """The floor's modules this Python cannot import (a module set to None in sys.modules counts as missing)."""
    missing = []
    for name in FLOOR_MODULES:
        if name in sys.modules:
            found = sys.modules[name] is not None
        else:
            try:
                found = find_spec(name) is not None
            except (ImportError, ValueError):  # a broken package, or one without a spec
                found = False
        if not found:
            missing.append(name)
    return missing


def main(argv: Sequence[str] | None = None) -> int:
    missing = missing_modules()
    if missing:
        print(f"table-floor: the floor needs {', '.join(missing)}, not installed here: {INSTALL} "
              "(README, Quick start)", file=sys.stderr)
        return 2
    from casino_floor.cli import main as floor_main

    return floor_main(argv)
