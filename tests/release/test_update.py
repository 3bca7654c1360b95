"""Signed updates on real virtual environments (release/bundle.py, release/releases.py, `table-runtime update`).

The program's wheels and every wheel it runs on (pip's among them; built once per run, conftest.py) are bundled
twice, as releases 1 and 2, each built at its own prefix under a root in tmp_path (as where releases are built)
and that build then removed (the table is another machine). `update` installs 1 and then 2, each a real virtual
environment whose own `table-runtime verify` checks it against the signed manifest; a bundle altered, unsigned or
signed by another key is refused in one line with nothing changed; `--rollback` goes back to 1; a table that runs
(its journal claimed) refuses the update. Every change is a `SoftwareUpdated` row of the table's journal.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from table_runtime.core.significant_events import CODES, significant_events
from table_runtime.journal import Journal
from tests.deploy.support import demo_table

REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.timeout(1200), pytest.mark.slow]


def run(*command: str | Path, check: bool = True, repo: bool = True) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    if repo:
        environment["PYTHONPATH"] = str(REPO)
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=900,
                            env=environment, check=False)
    if check and result.returncode != 0:
        raise AssertionError(f"{command} exited {result.returncode}: {result.stderr[-2000:]}{result.stdout[-2000:]}")
    return result


def table_runtime(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run(sys.executable, "-m", "table_runtime", *args, check=check)


def releases(root: Path) -> tuple[str | None, str | None, list[str]]:
    """(current, previous, the release directories)."""
    def link(name: str) -> str | None:
        return os.readlink(root / name) if (root / name).is_symlink() else None
    return link("current"), link("previous"), sorted(path.name for path in (root / "releases").iterdir())


def updates(config_dir: Path) -> list[tuple[object, object, object]]:
    with Journal.open(config_dir / "data" / "journal.db") as journal:
        return [(entry.body["from"], entry.body["to"], entry.body["by"]) for entry in journal.entries()
                if entry.kind == "status" and entry.body.get("type") == "SoftwareUpdated"]


def test_a_signed_bundle_installs_a_tampered_one_is_refused_and_a_rollback_goes_back(tmp_path: Path,
                                                                                    release_wheels: Path) -> None:
    wheels = release_wheels
    key = tmp_path / "release.key"
    table_runtime("release", "keygen", key)
    root = tmp_path / "opt" / "table-runtime"
    bundles = {}
    for name in ("1", "2"):
        bundles[name] = tmp_path / f"release-{name}.tar"
        made = table_runtime("release", "bundle", "--key", key, "--wheels", wheels, "--release", name, "--root", root,
                             "-o", bundles[name])
        assert f"release {name} for {root / 'releases' / name}" in made.stdout
        shutil.rmtree(root / "releases" / name)  # the build's installation: the table is another machine
    config = demo_table(tmp_path, extra=f'\n[release]\npublic_key_file = "{key}.pub"\n')
    Journal.open(tmp_path / "data" / "journal.db").close()

    def update(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return table_runtime("update", *args, "--config", config, "--root", root, check=False)

    def verified(name: str) -> None:
        installed = root / "releases" / name
        found = run(installed / "bin" / "table-runtime", "verify", "--public-key", f"{key}.pub", "--prefix", installed,
                    repo=False)
        assert "every file as released" in found.stdout

    first = update(bundles["1"])
    assert first.returncode == 0, first.stderr
    assert releases(root) == ("releases/1", None, ["1"])
    verified("1")
    second = update(bundles["2"])
    assert second.returncode == 0, second.stderr
    assert releases(root) == ("releases/2", "releases/1", ["1", "2"])
    verified("2")

    # Refused, each in one line, nothing changed: an altered wheel, no signature, another key's signature.
    altered = tmp_path / "altered.tar"
    shutil.copy(bundles["2"], altered)
    with tarfile.open(altered) as tar:
        wheel = next(member for member in tar.getmembers() if member.name.startswith("wheels/smart_blackjack"))
    with altered.open("r+b") as handle:
        handle.seek(wheel.offset_data + wheel.size // 2)
        byte = handle.read(1)
        handle.seek(-1, 1)
        handle.write(bytes([byte[0] ^ 0x01]))
    unsigned = tmp_path / "unsigned.tar"
    with tarfile.open(bundles["2"]) as source, tarfile.open(unsigned, "w") as tar:
        for member in source.getmembers():
            if member.name != "release.json.sig":
                tar.addfile(member, source.extractfile(member))
    other = tmp_path / "other.key"
    table_runtime("release", "keygen", other)
    (tmp_path / "other").mkdir()
    other_config = demo_table(tmp_path / "other", extra=f'\n[release]\npublic_key_file = "{other}.pub"\n')
    before = (releases(root), updates(tmp_path))
    for bundle, config_file, said in ((altered, config, "is not the wheel the release signed"),
                                      (unsigned, config, "not a signed release bundle"),
                                      (bundles["1"], other_config, "does not verify with the release key")):
        refused = table_runtime("update", bundle, "--config", config_file, "--root", root, check=False)
        assert refused.returncode == 2 and said in refused.stderr, refused.stderr
        assert refused.stderr.strip().count("\n") == 0 and "Traceback" not in refused.stderr
        assert (releases(root), updates(tmp_path)) == before
    assert not [path for path in root.iterdir() if path.name.startswith(".")]  # no work left behind

    back = update("--rollback")
    assert back.returncode == 0, back.stderr
    assert releases(root) == ("releases/1", "releases/2", ["1", "2"])
    assert updates(tmp_path) == [(None, "1", "update"), ("1", "2", "update"), ("2", "1", "rollback")]
    with Journal.open(tmp_path / "data" / "journal.db") as journal:  # each a significant event (docs/events.md)
        installed = [(event.code, event.detail["to"]) for event in significant_events(
            (entry.seq, entry.ts, entry.kind, entry.body) for entry in journal.entries())]
    assert installed == [(CODES["software_installed"], name) for name in ("1", "2", "1")]

    with Journal.open(tmp_path / "data" / "journal.db") as running:  # a table that runs holds its journal
        running.claim_writer()
        busy = update("--rollback")
    assert busy.returncode == 2 and "Traceback" not in busy.stderr
    assert releases(root) == ("releases/1", "releases/2", ["1", "2"])
