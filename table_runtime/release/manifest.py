"""The manifest of an installed release: every file of the program and of what it runs on, with its SHA-256.

The installation is a virtual environment (docs/deployment.md): its scope is every file under the environment's
``bin/`` and ``lib/`` (the program, its dependencies, the interpreter that ``bin/python`` links to) and its
``pyvenv.cfg``; not the manifest and its signature themselves (``share/smart-blackjack-table/``). The manifest
is text in ``sha256sum``'s own format, one ``<sha256>  <path>`` line per file sorted by path, the paths relative
to the environment, so a lab checks it with standard tools alone (docs/verification.md):

    cd /opt/table-runtime/current && sha256sum --check --quiet share/smart-blackjack-table/manifest.sha256

`check` compares an installation with its manifest (a file changed, missing or added); `seeded_digest` is the
answer to a verifier's seed: an HMAC-SHA256 of every file's bytes under the seed, so it cannot be computed from
the manifest without the files themselves.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from table_runtime.errors import TableError

MANIFEST_DIR: Final = Path("share") / "smart-blackjack-table"
MANIFEST_NAME: Final = "manifest.sha256"
SIGNATURE_NAME: Final = "manifest.sha256.sig"
SCOPE: Final = ("bin", "lib", "pyvenv.cfg")  # under the environment's prefix
_CHUNK: Final = 1 << 20


class ManifestError(TableError, ValueError):
    """A manifest that cannot be read or made (a line off its format, a path sha256sum would escape)."""


@dataclass(frozen=True, slots=True)
class Findings:
    """How an installation differs from its manifest: the paths (relative to the environment) of each kind."""

    changed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    checked: int = 0

    @property
    def intact(self) -> bool:
        return not (self.changed or self.missing or self.added)

    def lines(self) -> list[str]:
        """One line per file found otherwise than released, naming it."""
        return ([f"changed: {path}" for path in self.changed] + [f"missing: {path}" for path in self.missing]
                + [f"added: {path}" for path in self.added])


@dataclass(frozen=True, slots=True)
class Manifest:
    """The released files (path -> SHA-256 hex) and the manifest's own bytes."""

    digests: dict[str, str] = field(default_factory=dict)
    text: bytes = b""

    @property
    def digest(self) -> str:
        """The SHA-256 of the manifest itself (what `sha256sum manifest.sha256` prints)."""
        return hashlib.sha256(self.text).hexdigest()

    @classmethod
    def parse(cls, text: bytes) -> Manifest:
        digests: dict[str, str] = {}
        for number, line in enumerate(text.decode("utf-8", errors="strict").splitlines(), start=1):
            digest, separator, path = line.partition("  ")
            if not separator or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest) or not path:
                raise ManifestError(f"manifest line {number}: not '<sha256>  <path>'")
            if path in digests:
                raise ManifestError(f"manifest line {number}: {path} listed twice")
            digests[path] = digest
        if list(digests) != sorted(digests):
            raise ManifestError("manifest: the paths are not sorted")
        return cls(digests=digests, text=text)


def manifest_dir(prefix: Path) -> Path:
    return prefix / MANIFEST_DIR


def installed_files(prefix: Path) -> Iterator[str]:
    """Every file of the installation's scope, as a path relative to `prefix` (symbolic links followed for their
    contents, listed under their own name; a directory's links are not followed)."""
    skip = manifest_dir(prefix)
    for top in SCOPE:
        root = prefix / top
        if root.is_file():
            yield top
            continue
        for directory, subdirectories, names in os.walk(root):
            subdirectories.sort()
            here = Path(directory)
            if here == skip or skip in here.parents:
                continue
            for name in sorted(names):
                yield (here / name).relative_to(prefix).as_posix()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def build_manifest(prefix: Path) -> Manifest:
    """The manifest of the installation at `prefix` as it is now."""
    lines, digests = [], {}
    for path in sorted(installed_files(prefix)):
        if "\n" in path or "\\" in path:
            raise ManifestError(f"{path!r}: a path sha256sum would escape cannot be in the manifest")
        digests[path] = file_sha256(prefix / path)
        lines.append(f"{digests[path]}  {path}\n")
    return Manifest(digests=digests, text="".join(lines).encode("utf-8"))


def check(prefix: Path, manifest: Manifest) -> Findings:
    """The installation at `prefix` against its manifest: every listed file's SHA-256, every file not listed."""
    changed, missing = [], []
    for path, digest in manifest.digests.items():
        try:
            if file_sha256(prefix / path) != digest:
                changed.append(path)
        except FileNotFoundError:
            missing.append(path)
        except OSError:  # unreadable now: not as released
            changed.append(path)
    added = [path for path in installed_files(prefix) if path not in manifest.digests]
    return Findings(changed=tuple(changed), missing=tuple(missing), added=tuple(sorted(added)),
                    checked=len(manifest.digests))


def seeded_digest(prefix: Path, manifest: Manifest, seed: bytes) -> str:
    """The answer to a verifier's `seed`: HMAC-SHA256 under the seed of the text made of one line per file of the
    manifest, in its order, ``<HMAC-SHA256 of the file's bytes under the seed>  <path>`` (docs/verification.md)."""
    if not seed:
        raise ManifestError("the seed is empty")
    outer = hmac.new(seed, digestmod=hashlib.sha256)
    for path in manifest.digests:
        inner = hmac.new(seed, digestmod=hashlib.sha256)
        try:
            with (prefix / path).open("rb") as handle:
                while chunk := handle.read(_CHUNK):
                    inner.update(chunk)
        except OSError as error:
            raise ManifestError(f"{path}: {error.strerror or error}") from error
        outer.update(f"{inner.hexdigest()}  {path}\n".encode())
    return outer.hexdigest()
