"""The simulated players' basic strategy, kept on disk between two starts of `demo` or `simulate`.

Solving the strategy of a profile costs 0.2 to 0.25 s of CPU (`table_runtime.strategy.solver`), at every
start, before the first round; reading it back costs under a millisecond. The file of a set of play terms
lives in this user's cache directory (``$XDG_CACHE_HOME/table-runtime``, else ``~/.cache/table-runtime``),
named by the SHA-256 of the terms and of the strategy code: a changed solver, chart or terms module (or
one compiled instead of interpreted) names another file, so a strategy is never read for the code that did
not compute it. The file holds its terms, its code digest, the tables and the SHA-256 of all three: a
file that is not whole or not that (cut short, edited, another version's) is solved again and written
again. The cache only saves time: a directory that cannot be written leaves the start solving as before.

Only `demo` and `simulate` read it (`remember_cached` at their start: the simulated dealer's players, the
Monte Carlo players, and whatever else asks `Strategy.for_rules` in that process). `run`, the table, never
does: its rating worker's models come from their sealed checkpoint or are solved (runtime/rating_worker.py).
The file holds what this code computed; its digest finds a damaged file, not a forged one (whoever can
write this user's home can change the code as well).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import table_runtime.strategy
from table_runtime.game.rules import RuleOptions
from table_runtime.strategy import PlayTerms, Strategy
from table_runtime.strategy.chart import CHART_WIDTH
from table_runtime.strategy.solver import solve

FORMAT = 1
HAND_CELLS = 64 * CHART_WIDTH  # by `cell_index`: a total (soft ones 32 up) times the up card
PAIR_CELLS = CHART_WIDTH * CHART_WIDTH  # by pair value times the up card
TABLES = {"hits": HAND_CELLS, "doubles": HAND_CELLS, "splits": PAIR_CELLS, "surrenders": HAND_CELLS,
          "pair_surrenders": PAIR_CELLS}  # `Strategy.tables`: each table's name and length


def cache_directory(environ: Mapping[str, str] = os.environ) -> Path:
    """This user's cache directory for the program (the XDG base directory specification's)."""
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "table-runtime"


def code_digest() -> str:
    """The SHA-256 of the strategy package's modules: each one's file name (``chart.py`` or a compiled
    ``chart.cpython-311-...so``) and its source."""
    package = Path(table_runtime.strategy.__file__).parent
    sha = hashlib.sha256()
    for path in sorted(package.iterdir()):
        if path.suffix in (".py", ".so"):
            sha.update(path.name.encode() + b"\0")
            if path.suffix == ".py":
                sha.update(path.read_bytes())
    return sha.hexdigest()


def _terms_document(terms: PlayTerms) -> dict[str, Any]:
    return dataclasses.asdict(terms)


def _sealed(document: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()


def cache_file(terms: PlayTerms, directory: Path, code: str) -> Path:
    name = _sealed({"code": code, "terms": _terms_document(terms)})
    return directory / f"strategy-{name[:32]}.json"


def _read(path: Path, terms: PlayTerms, code: str) -> Strategy | None:
    """The strategy in `path` if it is whole and of `terms` under `code`, else None."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("format") != FORMAT:
        return None
    body = {key: stored.get(key) for key in ("format", "code", "terms", "tables")}
    if stored.get("sha256") != _sealed(body) or body["code"] != code or body["terms"] != _terms_document(terms):
        return None
    tables = body["tables"]
    if not isinstance(tables, dict) or set(tables) != set(TABLES):
        return None
    if not all(isinstance(cells, list) and len(cells) == TABLES[name] and all(isinstance(cell, bool) for cell in cells)
               for name, cells in tables.items()):
        return None
    return Strategy(terms, **tables)


def _write(path: Path, strategy: Strategy, code: str) -> None:
    body = {"format": FORMAT, "code": code, "terms": _terms_document(strategy.terms), "tables": strategy.tables}
    text = json.dumps(body | {"sha256": _sealed(body)}, sort_keys=True)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written beside, then renamed: a start reading it never sees half a file, two starts writing at
        # once leave one whole file.
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".strategy-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        pass  # a cache that cannot be written costs the next start its solving, nothing else


def cached_strategy(terms: PlayTerms, directory: Path | None = None) -> Strategy:
    """The basic strategy of `terms`: the cache's when it holds it whole for this code, else solved and kept."""
    directory = cache_directory() if directory is None else directory
    code = code_digest()
    path = cache_file(terms, directory, code)
    strategy = _read(path, terms, code)
    if strategy is None:
        strategy = solve(terms).strategy
        _write(path, strategy, code)
    return strategy


def remember_cached(rules: RuleOptions, directory: Path | None = None) -> Strategy:
    """`cached_strategy` for the rules, taken as theirs by `Strategy.for_rules` in this process from now on."""
    strategy = cached_strategy(PlayTerms.from_options(rules), directory)
    Strategy.remember(strategy)
    return strategy
