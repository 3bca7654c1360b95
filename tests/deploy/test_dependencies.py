"""`pip install -e .` is enough to run the table and the demo: the test extras are for the tests only.

Every third-party module the shipped packages import is a distribution of `[project] dependencies` (or
of the optional feature extra that enables it, e.g. `metrics`); and
the demo plays, live (pty shoe, pyusb reader, mock GPIO, display) and fast, with the test extras made
unimportable.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from simulators.mosquitto import free_port

REPO = Path(__file__).resolve().parents[2]
SHIPPED = ("firmware_bridge", "drivers", "table_runtime", "casino_floor", "simulators")
TEST_ONLY = ("pytest", "pytest_asyncio", "hypothesis", "jsonschema", "playwright", "mypy", "ruff", "setuptools",
             "yaml_stubs")

pytestmark = pytest.mark.timeout(180)


def _requirement_name(text: str) -> str:
    for stop in "<>=!~;[ ":
        text = text.split(stop, 1)[0]
    return text.lower().replace("_", "-")


def _third_party_imports() -> dict[str, str]:
    """Top-level module -> the first file importing it, over the shipped packages."""
    found: dict[str, str] = {}
    for package in SHIPPED:
        for path in sorted((REPO / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                         else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level
                         else [])
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in SHIPPED and top != "__future__":
                        found.setdefault(top, str(path.relative_to(REPO)))
    return found


def test_every_third_party_import_is_a_runtime_dependency() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = {_requirement_name(text) for text in project["dependencies"]}
    # an optional feature's extra (e.g. `metrics`) is a runtime dependency of that feature, not a test extra
    runtime |= {_requirement_name(text) for extra, texts in project["optional-dependencies"].items()
                if extra != "test" for text in texts}
    test_extras = {_requirement_name(text) for text in project["optional-dependencies"]["test"]}
    distributions = packages_distributions()
    imports = _third_party_imports()
    assert imports, "the shipped code imports pyserial, pyusb, gpiozero, aiomqtt, aiohttp..."
    for module, where in imports.items():
        names = {_requirement_name(name) for name in distributions.get(module, [module])}
        assert names & runtime, f"{where} imports {module} ({sorted(names)}), not in [project] dependencies"
        assert not (names & test_extras - runtime), f"{where} imports {module}, a test extra"


BLOCKER = f"""
import importlib.abc, runpy, sys
class NoTestExtras(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {TEST_ONLY!r}:
            raise ImportError(f"{{name}} is a test extra")
        return None
sys.meta_path.insert(0, NoTestExtras())
sys.argv = ["table-runtime", *sys.argv[1:]]
runpy.run_module("table_runtime", run_name="__main__")
"""


@pytest.mark.parametrize("mode", ["live", "fast"])
@pytest.mark.slow
def test_the_demo_runs_without_the_test_extras(mode: str, tmp_path: Path) -> None:
    options = (["--pace", "0.01", "--http", f"127.0.0.1:{free_port()}"] if mode == "live" else ["--fast"])
    result = subprocess.run([sys.executable, "-c", BLOCKER, "demo", "--rounds", "2", "--json", "--data-dir",
                             str(tmp_path), *options], capture_output=True, text=True, timeout=150, cwd=REPO,
                            check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    assert '"rounds": 2' in result.stdout
