"""The table's releases side by side, the one it runs and the one before it (docs/deployment.md "Updating").

    /opt/table-runtime/releases/<name>/   one virtual environment per release, as its bundle signed it
    /opt/table-runtime/current            -> releases/<name>: what the service runs
    /opt/table-runtime/previous           -> releases/<name>: what `update --rollback` goes back to

`install_bundle` installs a bundle (release/bundle.py) only once its signature verifies with the installed key,
at the prefix it was signed for, and only if the installation made is the signed manifest file for file; then
`current` moves to it and `previous` to what was current. Until that last step nothing the table runs has
changed: a refused bundle leaves no new release behind. `rollback` swaps the two links. Each link moves by an
atomic rename of a new link over it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from table_runtime.release.bundle import BundleError, Release, install_wheels, unpack_verified
from table_runtime.release.manifest import MANIFEST_NAME, SIGNATURE_NAME, check, manifest_dir

RELEASES: Final = "releases"
CURRENT: Final = "current"
PREVIOUS: Final = "previous"


@dataclass(frozen=True, slots=True)
class Change:
    """A change of the release the table runs: from which to which (None: none before)."""

    before: str | None
    after: str


def release_of(root: Path, link: str) -> str | None:
    """The release `link` (current or previous) names, or None."""
    path = root / link
    return Path(os.readlink(path)).name if path.is_symlink() else None


def _point(root: Path, link: str, release: str) -> None:
    staged = root / f".{link}.new"
    staged.unlink(missing_ok=True)
    staged.symlink_to(Path(RELEASES) / release)
    os.replace(staged, root / link)


def install_bundle(bundle: Path, root: Path, key: Path) -> Change:
    """Install `bundle` under `root` and make it current (the one before it previous); `BundleError` naming why it
    is refused, with nothing changed."""
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=".bundle-") as work:
        release = unpack_verified(bundle, key, Path(work))
        prefix = root / RELEASES / release.name
        if release.prefix != prefix:
            raise BundleError(f"{bundle}: release {release.name} was built for {release.prefix}, not {prefix}: "
                              f"this table's releases are under {root / RELEASES}")
        if prefix.exists() or prefix.is_symlink():
            raise BundleError(f"release {release.name} is installed already ({prefix})")
        try:
            _install(release, prefix, Path(work) / "wheels")
        except BaseException:
            shutil.rmtree(prefix, ignore_errors=True)
            raise
    before = release_of(root, CURRENT)
    if before is not None:
        _point(root, PREVIOUS, before)
    _point(root, CURRENT, release.name)
    return Change(before=before, after=release.name)


def _install(release: Release, prefix: Path, wheels: Path) -> None:
    install_wheels(prefix, wheels, release.requirement)
    findings = check(prefix, release.manifest)
    if not findings.intact:
        lines = findings.lines()
        more = f" and {len(lines) - 1} more" if len(lines) > 1 else ""
        raise BundleError(f"release {release.name}: the installation is not the signed manifest ({lines[0]}{more})")
    directory = manifest_dir(prefix)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MANIFEST_NAME).write_bytes(release.manifest.text)
    (directory / SIGNATURE_NAME).write_bytes(release.manifest_signature)


def rollback(root: Path) -> Change:
    """Make the previous release current again (and the current one previous)."""
    current, previous = release_of(root, CURRENT), release_of(root, PREVIOUS)
    if previous is None or not (root / RELEASES / previous).is_dir():
        raise BundleError(f"{root}: no previous release to roll back to")
    _point(root, CURRENT, previous)
    if current is not None:
        _point(root, PREVIOUS, current)
    return Change(before=current, after=previous)
