"""Imports point one way, down: firmware_bridge <- drivers <- table_runtime <- casino_floor <- simulators
(docs/architecture.md; the floor service consumes the tables' feeds, and the floor demo in simulators drives it).

Every module is parsed with `ast` (nothing is imported or executed), so an import inside a function, under
`if TYPE_CHECKING:` or in a `try:` counts like any other. Also checked: the device ports import no
third-party library, the round engine (`table_runtime/game/`) no I/O library. No line count: a module holds
one idea, long or short (docs/architecture.md).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# Each may import only those before it.
LAYERS = ("firmware_bridge", "drivers", "table_runtime", "casino_floor", "simulators")
PORTS = "drivers/ports.py"
BUILDS_DRIVERS = frozenset({"table_runtime/runtime/assembly.py"})  # the one product module that makes real devices
PURE_CORE = ("table_runtime/game", "table_runtime/core",  # the round engine and the table core over it
             "table_runtime/rating")  # the advantage-play detection: folds over the record
IO_LIBRARIES = frozenset({"asyncio", "serial", "serial_asyncio_fast", "usb", "gpiozero", "aiohttp", "aiomqtt",
                          "sqlite3", "socket", "threading", "subprocess"})


def modules(package: str) -> Iterator[Path]:
    yield from sorted((REPO / package).rglob("*.py"))


def imported_modules(path: Path) -> Iterator[tuple[int, str]]:
    """(line, dotted module) of every absolute import in the module, wherever it stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            if "." in node.module:
                yield node.lineno, node.module
            else:  # `from drivers import ports` imports drivers.ports
                for alias in node.names:
                    yield node.lineno, f"{node.module}.{alias.name}"


def imported(path: Path) -> Iterator[tuple[int, str]]:
    """(line, top-level package) of every absolute import in the module."""
    for line, module in imported_modules(path):
        yield line, module.split(".")[0]


def relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


@pytest.mark.parametrize("layer", LAYERS)
def test_no_module_imports_a_layer_above_its_own(layer: str) -> None:
    above = set(LAYERS[LAYERS.index(layer) + 1:])
    upward = [f"{relative(path)}:{line} imports {package}"
              for path in modules(layer) for line, package in imported(path) if package in above]
    assert not upward, f"{layer} may import only {', '.join(LAYERS[:LAYERS.index(layer)]) or 'no project package'}: " \
                       + "; ".join(upward)


def test_the_ports_import_no_third_party_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"firmware_bridge", "drivers"}
    third_party = [f"line {line}: {package}" for line, package in imported(REPO / PORTS) if package not in allowed]
    assert not third_party, f"{PORTS} must name the devices without their libraries: {third_party}"


def test_the_product_names_devices_by_their_ports() -> None:
    """Outside the assembly, table_runtime imports a driver module only for its port (no pyserial, pyusb, gpiozero)."""
    found = [f"{relative(path)}:{line} imports {module}"
             for path in modules("table_runtime") if relative(path) not in BUILDS_DRIVERS
             for line, module in imported_modules(path)
             if module.split(".")[0] == "drivers" and module != "drivers.ports"]
    assert not found, "import drivers.ports (the assembly builds the drivers): " + "; ".join(found)


def test_the_round_engine_and_the_table_core_do_no_io() -> None:
    found = [f"{relative(path)}:{line} imports {package}"
             for pure in PURE_CORE for path in modules(pure) for line, package in imported(path)
             if package in IO_LIBRARIES or package.split(".")[0] in ("time", "datetime")]  # no clock read either
    assert not found, "the core is pure (inputs and time in, events out): " + "; ".join(found)


def test_the_checks_see_an_upward_import(tmp_path: Path) -> None:
    """The parser finds the imports the layer test must refuse, wherever they hide."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from table_runtime.game.cards import Card\n"
        "def later():\n    import simulators.shoe\n"
        "from . import sibling\n",
        encoding="utf-8")
    assert sorted(package for _, package in imported(sample)) == ["simulators", "table_runtime", "typing"]


def test_the_rating_reads_only_the_game_and_the_strategy() -> None:
    """table_runtime/rating is folds over the game's record with the strategy's mathematics: no runtime,
    journal or feed under it. The rated sessions (sessions.py, session_fold.py) also read the table core: the
    seat inputs and the journal's one fold (core/record.py), which they call rather than walk the rows again;
    the core never imports the rating."""
    allowed = ("table_runtime.game", "table_runtime.strategy", "table_runtime.rating", "table_runtime.errors")
    reads_core = {"table_runtime/rating/sessions.py", "table_runtime/rating/session_fold.py"}
    found = [f"{relative(path)}:{line} imports {module}"
             for path in modules("table_runtime/rating") for line, module in imported_modules(path)
             if module.split(".")[0] in LAYERS and not module.startswith(allowed)
             and not (relative(path) in reads_core and module.startswith("table_runtime.core"))]
    assert not found, "the rating imports only table_runtime.game and table_runtime.strategy: " + "; ".join(found)
    upward = [f"{relative(path)}:{line} imports {module}"
              for package in ("table_runtime/core", "table_runtime/game", "table_runtime/strategy")
              for path in modules(package) for line, module in imported_modules(path)
              if module.startswith("table_runtime.rating")]
    assert not upward, "the core, the game and the strategy never import the rating: " + "; ".join(upward)
