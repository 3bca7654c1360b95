"""The release's wheels, built once per run: the program's wheel from this checkout (``pip wheel .``, as pip
builds it for ``pip install .``), the wheel of everything it runs on at the versions of constraints.txt, and
pip's own (the bundles' installer, release/bundle.py).

`pip wheel` builds the project in an isolated environment and resolves every dependency: about 10 s of CPU,
which the bundle test and the verification's installation paid each. The wheels are only read, so every test
and every xdist worker of a run takes the same directory (the first to ask builds it, under a lock).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run(*command: str | Path, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`command` without this checkout on the path and outside the test's virtual environment."""
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=900, cwd=cwd,
                            env=environment, check=False)
    if check and result.returncode != 0:
        raise AssertionError(f"{command} exited {result.returncode}: {result.stderr[-2000:]}{result.stdout[-2000:]}")
    return result


@pytest.fixture(scope="session")
def release_wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of the release's wheels, shared by the run's xdist workers (read it, never change it)."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's directory, or this one's
    wheels = root / "release-wheels"
    with (root / "release-wheels.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (wheels / ".built").exists():
            shutil.rmtree(wheels, ignore_errors=True)
            run(sys.executable, "-m", "pip", "wheel", "-q", "-c", REPO / "constraints.txt", "-w", wheels, REPO)
            run(sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", wheels, "pip")
            (wheels / ".built").touch()
    return wheels
