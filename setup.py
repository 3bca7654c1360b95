"""Build script. All metadata lives in pyproject.toml; this file only adds the optional compiled engine.

By default the package is plain Python. With ``TABLE_RUNTIME_COMPILE=1`` the
modules below are compiled by mypyc from the same source files (the code that
`mypy --strict` checks): the round state machine and what it runs per card,
the strategy chart and the Monte Carlo loop. Nothing else changes; the
compiled build gives the same events byte for byte
(tests/table_runtime/test_compiled_engine.py) and runs `table-runtime simulate`
about four times faster (bench/README.md, "Speed comparison"). An editable
install (``pip install -e``) is refused compiled: the sources you edit must be
the code that runs.

    TABLE_RUNTIME_COMPILE=1 pip install .

``TABLE_RUNTIME_COMPILE_OPT`` (0 to 3, default 3) is the C compiler's
optimisation level for the generated code. A build you run keeps the default;
the test of the compiled engine builds at 0, which gives the same compiled
modules from the same generated C in a fraction of gcc's time
(tests/README.md, "The profile").
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup

COMPILED_MODULES = [
    "table_runtime/game/alarm_kinds.py",
    "table_runtime/game/bank.py",
    "table_runtime/game/box.py",
    "table_runtime/game/cards.py",
    "table_runtime/game/decisions.py",
    "table_runtime/game/events.py",
    "table_runtime/game/hand.py",
    "table_runtime/game/held.py",
    "table_runtime/game/inputs.py",
    "table_runtime/game/phases.py",
    "table_runtime/game/recurring.py",
    "table_runtime/game/round.py",
    "table_runtime/game/round_state.py",
    "table_runtime/game/rules.py",
    "table_runtime/game/settlement.py",
    "table_runtime/game/shoe_count.py",
    "table_runtime/game/table.py",
    "table_runtime/game/undo.py",
    "table_runtime/strategy/chart.py",
    "simulators/players.py",
    "simulators/simulation.py",
]

MYPY_REQUIREMENT = "mypy>=1.10"
METADATA_ONLY = {"egg_info", "dist_info"}
OPT_LEVELS = ("0", "1", "2", "3")


def compiled_extensions() -> list[Extension]:
    """The mypyc extensions, or [] while pip only asks what the build needs (mypy is not installed yet)."""
    if "editable_wheel" in sys.argv:
        raise SystemExit("TABLE_RUNTIME_COMPILE=1 is for 'pip install .', not an editable install: compiled modules "
                         "next to the sources would run instead of the code you edit")
    if METADATA_ONLY.intersection(sys.argv):
        # pip's get_requires and metadata steps (setup_requires below tells pip to install mypy): mypycify would
        # type-check and generate the C code for each of them, only for the build step to do it again.
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        raise SystemExit(f"TABLE_RUNTIME_COMPILE=1 needs mypyc: pip install '{MYPY_REQUIREMENT}'") from None
    opt_level = os.environ.get("TABLE_RUNTIME_COMPILE_OPT", "3")
    if opt_level not in OPT_LEVELS:
        raise SystemExit(f"TABLE_RUNTIME_COMPILE_OPT must be one of {', '.join(OPT_LEVELS)}, not {opt_level!r}")
    return mypycify(COMPILED_MODULES, opt_level=opt_level)


if os.environ.get("TABLE_RUNTIME_COMPILE") == "1":
    setup(setup_requires=[MYPY_REQUIREMENT], ext_modules=compiled_extensions())
else:
    setup()
