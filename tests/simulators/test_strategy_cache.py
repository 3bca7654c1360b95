"""The simulated players' strategy kept between two starts (simulators/strategy_cache.py): read back only
whole and for the code that computed it, else solved again and written again; never a failed start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from simulators.strategy_cache import _sealed, cache_directory, cache_file, cached_strategy, code_digest
from table_runtime.game.rules import profile
from table_runtime.strategy import PlayTerms, Strategy, solve

TERMS = PlayTerms.from_options(profile("fr-casino"))


def the_file(directory: Path) -> Path:
    (path,) = directory.glob("strategy-*.json")
    return path


def test_the_first_start_solves_and_writes_the_strategy_the_next_reads_it(tmp_path: Path) -> None:
    solved = solve(TERMS).strategy
    assert cached_strategy(TERMS, tmp_path).tables == solved.tables
    path = the_file(tmp_path)
    assert path == cache_file(TERMS, tmp_path, code_digest())
    # A file sealed again with one cell changed is read as it is: the second start did not solve.
    stored = json.loads(path.read_text())
    stored["tables"]["hits"][0] = not stored["tables"]["hits"][0]
    body = {key: stored[key] for key in ("format", "code", "terms", "tables")}
    path.write_text(json.dumps(body | {"sha256": _sealed(body)}))
    assert cached_strategy(TERMS, tmp_path).tables["hits"][0] is not solved.tables["hits"][0]


@pytest.mark.parametrize("damage", ["cut short", "a cell edited", "empty", "not json", "another code's",
                                    "other terms", "a table too short"])
def test_a_damaged_or_foreign_file_is_solved_again_and_written_whole(tmp_path: Path, damage: str) -> None:
    solved = solve(TERMS).strategy
    cached_strategy(TERMS, tmp_path)
    path = the_file(tmp_path)
    text = path.read_text()
    stored = json.loads(text)
    if damage == "cut short":
        path.write_text(text[:len(text) // 2])
    elif damage == "a cell edited":  # not sealed again
        stored["tables"]["doubles"][200] = not stored["tables"]["doubles"][200]
        path.write_text(json.dumps(stored))
    elif damage == "empty":
        path.write_text("")
    elif damage == "not json":
        path.write_bytes(b"\xff\xfe strategy")
    else:
        if damage == "another code's":
            stored["code"] = "0" * 64
        elif damage == "other terms":
            stored["terms"]["decks"] = 8
        else:
            stored["tables"]["splits"] = stored["tables"]["splits"][:-1]
        body = {key: stored[key] for key in ("format", "code", "terms", "tables")}
        path.write_text(json.dumps(body | {"sha256": _sealed(body)}))
    assert cached_strategy(TERMS, tmp_path).tables == solved.tables
    assert json.loads(path.read_text()) == json.loads(text), "the file is whole again"


def test_other_terms_or_other_code_name_another_file(tmp_path: Path) -> None:
    code = code_digest()
    names = {cache_file(TERMS, tmp_path, code), cache_file(TERMS, tmp_path, "0" * 64),
             cache_file(PlayTerms.from_options(profile("online")), tmp_path, code)}
    assert len(names) == 3
    other = PlayTerms.from_options(profile("fr-2020"))
    assert cached_strategy(other, tmp_path).tables == solve(other).strategy.tables
    cached_strategy(TERMS, tmp_path)
    assert len(list(tmp_path.glob("strategy-*.json"))) == 2


def test_a_cache_that_cannot_be_written_only_costs_the_solving(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    assert cached_strategy(TERMS, blocked / "table-runtime").tables == solve(TERMS).strategy.tables
    assert blocked.read_text() == "not a directory"


def test_the_cache_is_this_users_xdg_cache_directory(tmp_path: Path) -> None:
    assert cache_directory({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "table-runtime"
    assert cache_directory({}) == Path.home() / ".cache" / "table-runtime"


def test_demo_keeps_the_strategy_for_its_next_start(tmp_path: Path) -> None:
    env = os.environ | {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    demo = subprocess.run([sys.executable, "-m", "table_runtime", "demo", "--fast", "--rounds", "1", "--http", "off",
                           "--profile", "online", "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert demo.returncode == 0, demo.stderr
    assert json.loads(demo.stdout)["rounds"] == 1
    stored = json.loads(the_file(tmp_path / "cache" / "table-runtime").read_text())
    online = PlayTerms.from_options(profile("online"))
    assert Strategy(online, **stored["tables"]).tables == solve(online).strategy.tables
