"""Build the mypyc-compiled engine the way a user does, into a directory that can go first on PYTHONPATH.

`build_compiled(tmp)` copies the sources, runs ``TABLE_RUNTIME_COMPILE=1 pip
wheel`` (no build isolation: the running interpreter's setuptools and mypy)
and unpacks the wheel. Used by the speed comparison (bench/simulate_speed.py)
and by tests/table_runtime/test_compiled_engine.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("firmware_bridge", "drivers", "table_runtime", "simulators")


def can_compile() -> str | None:
    """None when this machine can build the compiled engine, else what is missing."""
    if shutil.which(os.environ.get("CC", "cc")) is None:
        return "no C compiler (cc)"
    if not Path(sysconfig.get_paths()["include"], "Python.h").exists():
        return "no Python headers (Python.h)"
    return None


def build_compiled(tmp: Path, opt_level: int = 3) -> Path:
    """Build the compiled wheel from a copy of the sources in `tmp`; the directory it is unpacked in.

    `opt_level`: the C compiler's (setup.py, ``TABLE_RUNTIME_COMPILE_OPT``); 3, a user's build, unless a test
    needs only the compiled modules and not their speed."""
    source = tmp / "source"
    source.mkdir(parents=True)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    wheels = tmp / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
         str(source)],
        env=os.environ | {"TABLE_RUNTIME_COMPILE": "1", "TABLE_RUNTIME_COMPILE_OPT": str(opt_level)},
        capture_output=True, text=True, timeout=900, check=False)
    if built.returncode != 0:
        raise RuntimeError(f"the compiled build failed:\n{built.stdout[-3000:]}{built.stderr[-3000:]}")
    (wheel,) = wheels.glob("*.whl")
    if "-cp3" not in wheel.name:
        raise RuntimeError(f"{wheel.name} is not a compiled wheel")
    site = tmp / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site
