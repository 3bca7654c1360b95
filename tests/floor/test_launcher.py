"""`table-floor` on a machine without the floor's extra: one line saying what to install, for a command, --help
and --version alike, never a traceback (the module hidden from a real interpreter by its sitecustomize)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def floor(tmp_path: Path, *args: str, hide: str | None) -> subprocess.CompletedProcess[str]:
    path = [str(ROOT)]
    if hide is not None:
        (tmp_path / "sitecustomize.py").write_text(f"import sys\nsys.modules[{hide!r}] = None\n", encoding="utf-8")
        path.insert(0, str(tmp_path))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return subprocess.run([sys.executable, "-m", "casino_floor", *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=60)


@pytest.mark.parametrize("hidden", ["asyncpg", "orjson", "paho"])
@pytest.mark.parametrize("args", [("--help",), ("--version",), ("query", "verify", "--table", "T01")])
def test_a_missing_floor_dependency_is_one_line(tmp_path: Path, hidden: str, args: tuple[str, ...]) -> None:
    done = floor(tmp_path, *args, hide=hidden)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"table-floor: the floor needs {hidden}, not installed here: ")
    assert "pip install -c constraints.txt -e '.[floor]'" in lines[0]
    assert "Traceback" not in done.stderr


def test_with_the_extra_the_command_runs(tmp_path: Path) -> None:
    done = floor(tmp_path, "--help", hide=None)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: table-floor")
