"""The mypyc-compiled engine is the same engine (setup.py, ``TABLE_RUNTIME_COMPILE=1``).

The wheel is built here the way a user builds it (pip, from a copy of the
sources), unpacked, and put first on the path of subprocesses. Against it:
every module setup.py names must be compiled, the engine's own tests must pass,
the digest of every event over simulated rounds must equal the interpreted
engine's, and `simulate` with two workers must give the same document.
One test, so the pytest-xdist workers do not each build the wheel.

The wheel is built with the C compiler at -O0 (``opt_level=0``): the same
modules compiled by mypyc from the same sources into the same C, which gcc
compiles in about half the CPU time of -O3. What the test proves is what
mypyc makes of the engine; that gcc's optimiser keeps C's meaning is gcc's
own test suite's work. The speed of a -O3 build is the benchmark's
(bench/simulate_speed.py). `simulate` plays 1000 rounds per profile (4000
before): the document of two workers compared key by key, every count and
sum exact, so a difference shows in a few hundred rounds as it would in
4000; the digest of every event over 150 rounds per profile and box count
is the exact check of the engine.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.compiled import ROOT, build_compiled, can_compile
from table_runtime.game.rules import PROFILES

ENGINE_TESTS = (
    "tests/table_runtime/test_golden_rounds.py",
    "tests/table_runtime/test_round_properties.py",
    "tests/table_runtime/test_cards_rules.py",
    "tests/table_runtime/test_snapshot_contract.py",
    "tests/table_runtime/strategy",
    "tests/simulators/test_simulation.py",
    "tests/simulators/test_players.py",
)
# Imported before pytest starts, so the compiled packages are the ones in sys.modules whatever pytest puts on sys.path.
PRELOAD = """
import sys
import simulators.simulation, table_runtime.game.round, table_runtime.strategy.chart
for module in (simulators.simulation, table_runtime.game.round, table_runtime.strategy.chart):
    assert not module.__file__.endswith(".py"), module.__file__
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


def compiled_modules() -> list[str]:
    """COMPILED_MODULES of setup.py, read without running it."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "COMPILED_MODULES" for t in node.targets):
            modules: list[str] = ast.literal_eval(node.value)
            return modules
    raise AssertionError("setup.py has no COMPILED_MODULES")


def run_python(args: list[str], path: list[Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"PYTHONPATH": os.pathsep.join(str(p) for p in path), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_the_compiled_build_is_the_same_engine(tmp_path: Path) -> None:
    missing = can_compile()
    if missing is not None:
        pytest.skip(f"{missing}: the compiled build cannot be made on this machine")
    site = build_compiled(tmp_path, opt_level=0)
    elsewhere = tmp_path / "cwd"  # not the repository: the interpreter puts the working directory first on sys.path
    elsewhere.mkdir()

    for module in compiled_modules():
        stem = module.removesuffix(".py")
        assert list(site.glob(f"{stem}.*.so")), f"{module} is not compiled in the wheel"

    # The engine's own tests, against the compiled modules (the repository last, for the `tests` package only).
    tests = run_python(["-c", PRELOAD, "-q", "-p", "no:cacheprovider", "--import-mode=append",
                        "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT),
                        *(str(ROOT / test) for test in ENGINE_TESTS)], [site, ROOT], elsewhere)
    assert tests.returncode == 0, tests.stdout[-5000:] + tests.stderr[-3000:]

    digest = str(ROOT / "tests" / "table_runtime" / "engine_digest.py")
    interpreted = run_python([digest, "150"], [ROOT], elsewhere)
    compiled = run_python([digest, "150"], [site], elsewhere)
    assert interpreted.returncode == 0 and compiled.returncode == 0, interpreted.stderr + compiled.stderr
    assert compiled.stdout == interpreted.stdout, "the compiled engine's events differ from the interpreted engine's"

    for profile in sorted(PROFILES):  # fr-2020 too: its surrender and hyper bets
        command = ["-m", "table_runtime", "simulate", "--profile", profile, "--boxes", "3", "--rounds", "1000",
                   "--workers", "2", "--seed", "7", "--json"]
        documents = []
        for path in ([ROOT], [site]):
            run = run_python(command, path, elsewhere)
            assert run.returncode == 0, run.stderr[-3000:]
            documents.append(json.loads(run.stdout))
        plain, fast = documents
        assert (plain.pop("compiled"), fast.pop("compiled")) == (False, True)
        plain.pop("rounds_per_second")
        fast.pop("rounds_per_second")
        assert fast == plain, f"{profile}: compiled {fast} != interpreted {plain}"
