"""The program's identity on a fresh, non-editable install: signed, verified, answered to a seed, tampering named.

One virtual environment per module, the project installed from its wheel (no ``-e``), then the commands a
release takes (`table-runtime release keygen`, `release sign`) and a lab's check: `table-runtime verify --seed`
beside the independent procedure of docs/verification.md (its script, taken from the page, run with sh,
openssl and coreutils), which must print the same answer. One byte changed in an installed file (the program's,
then a dependency's), a file added, a file removed: each is named and verify exits 3; the manifest re-signed by
another key is refused.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "verification.md"

pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]


def _run(*command: str | Path, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=540, cwd=cwd,
                            env=environment, check=False)
    if check and result.returncode != 0:
        raise AssertionError(f"{command} exited {result.returncode}: {result.stderr[-2000:]}{result.stdout[-2000:]}")
    return result


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory, release_wheels: Path) -> Iterator[Path]:
    """A fresh virtual environment holding the project as a user installs it (not editable), signed.

    As a release is installed (release/bundle.py), the environment has no pip of its own: pip installs into it
    from outside, the project's wheel and its dependencies' from the run's wheels alone (conftest.py)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    root = tmp_path_factory.mktemp("release")
    prefix = root / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", prefix)
    _run(sys.executable, "-m", "pip", "--python", prefix / "bin" / "python", "install", "-q", "--no-index",
         "--find-links", release_wheels, "-c", REPO / "constraints.txt", "smart-blackjack-table", cwd=root)
    yield prefix


@pytest.fixture(scope="module")
def key(install: Path) -> Path:
    path = install.parent / "release.key"
    made = _run(install / "bin" / "table-runtime", "release", "keygen", path)
    assert "release.key.pub" in made.stdout and (path.stat().st_mode & 0o777) == 0o600
    signed = _run(install / "bin" / "table-runtime", "release", "sign", "--key", path, "--prefix", install)
    assert re.search(r"manifest of \d+ files signed", signed.stdout), signed.stdout
    return path.with_name("release.key.pub")


@contextlib.contextmanager
def restored(*paths: Path) -> Iterator[None]:
    """`paths` and their directories' bytecode caches as they are now, put back afterwards with their times: a module
    changed and then imported (the CLI imports the program) leaves a compiled copy of the change behind."""
    kept = {path: (path.read_bytes(), path.stat()) for path in paths if path.exists()}
    caches = {path.parent / "__pycache__" for path in paths}
    saved = {cache: {item: item.read_bytes() for item in cache.iterdir()} for cache in caches if cache.is_dir()}
    try:
        yield
    finally:
        for path in paths:
            path.unlink(missing_ok=True)
        for path, (data, status) in kept.items():
            path.write_bytes(data)
            os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
        for cache in caches:
            for item in cache.iterdir() if cache.is_dir() else ():
                if item not in saved.get(cache, {}):
                    item.unlink()
            for item, data in saved.get(cache, {}).items():
                item.write_bytes(data)


def procedure() -> str:
    """The independent check's script, as docs/verification.md gives it."""
    match = re.search(r"## The independent check.*?```sh\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert match is not None, "docs/verification.md has no ```sh block under 'The independent check'"
    return match.group(1)


def verify(install: Path, key: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return _run(install / "bin" / "table-runtime", "verify", "--public-key", key, "--prefix", install, *extra,
                check=False)


def test_verify_with_a_seed_equals_the_independent_procedure(install: Path, key: Path, tmp_path: Path) -> None:
    seed = secrets.token_hex(16)
    ours = verify(install, key, "--seed", seed)
    assert ours.returncode == 0, ours.stderr + ours.stdout
    answer = re.search(r"hmac-sha256 ([0-9a-f]{64}) \(seed " + seed + r"\)", ours.stdout)
    digest = re.search(r"manifest sha256 ([0-9a-f]{64}): signature verified, (\d+) files", ours.stdout)
    assert answer and digest and int(digest.group(2)) > 1000, ours.stdout  # the program and what it runs on
    script = tmp_path / "verify-install.sh"
    script.write_text(procedure(), encoding="utf-8")
    theirs = _run("sh", script, install, key, seed)
    assert theirs.stdout.split() == [answer.group(1), digest.group(1)]
    other = verify(install, key, "--seed", secrets.token_hex(16))  # another seed, another answer
    assert other.returncode == 0 and answer.group(1) not in other.stdout


@pytest.mark.parametrize("target", ["program", "dependency"])
def test_one_byte_changed_in_an_installed_file_is_named(install: Path, key: Path, target: str) -> None:
    site = next((install / "lib").glob("python3*/site-packages"))
    path = site / ("table_runtime/game/settlement.py" if target == "program" else "aiomqtt/client.py")
    original = path.read_bytes()
    at = original.index(b'"""') + 3  # a letter of the module's docstring: the module still imports
    with restored(path):
        path.write_bytes(original[:at] + bytes([original[at] ^ 0x20]) + original[at + 1:])
        found = verify(install, key, "--seed", "00ff")
        assert found.returncode == 3, found.stderr + found.stdout
        assert f"changed: {path.relative_to(install)}" in found.stdout.splitlines()
        assert "hmac-sha256" not in found.stdout  # no answer for an installation that is not the release
    assert verify(install, key).returncode == 0


def test_a_file_added_or_removed_is_named(install: Path, key: Path) -> None:
    site = next((install / "lib").glob("python3*/site-packages"))
    added = site / "table_runtime" / "game" / "extra_rule.py"
    removed = site / "table_runtime" / "py.typed"
    with restored(added, removed):
        added.write_text("HOUSE_WINS = True\n", encoding="utf-8")
        removed.unlink()
        found = verify(install, key)
        assert found.returncode == 3
        lines = found.stdout.splitlines()
        assert f"added: {added.relative_to(install)}" in lines and f"missing: {removed.relative_to(install)}" in lines
    assert verify(install, key).returncode == 0


def test_a_manifest_signed_by_another_key_is_refused_in_one_line(install: Path, key: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.key"
    _run(install / "bin" / "table-runtime", "release", "keygen", other)
    refused = verify(install, other.with_name("other.key.pub"))
    assert refused.returncode == 2
    assert refused.stderr.strip().count("\n") == 0 and "does not verify with the release key" in refused.stderr
    bad_seed = verify(install, key, "--seed", "xyz")
    assert bad_seed.returncode == 2 and "seed" in bad_seed.stderr and "Traceback" not in bad_seed.stderr
