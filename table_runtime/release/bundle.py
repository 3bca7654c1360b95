"""A release bundle: the wheels of one release, the manifest of its installation and their Ed25519 signatures.

A bundle is one tar file::

    release.json            {"format": 1, "release": "2.0.0", "prefix": "/opt/table-runtime/releases/2.0.0",
                             "python": "3.11", "requirement": "smart-blackjack-table==2.0.0",
                             "wheels": {"<file>.whl": "<sha256>", ...}, "manifest_sha256": "<sha256>"}
    release.json.sig        its signature with the release key (64 raw bytes)
    manifest.sha256         the manifest of the installation at `prefix` (release/manifest.py)
    manifest.sha256.sig     its signature (the pair the installation keeps, docs/verification.md)
    wheels/<file>.whl       every wheel the release runs on

Where releases are built, `make_bundle` installs the wheels at `prefix` (`install_wheels`), signs the manifest of
that installation and packs the bundle. On the table, `unpack_verified` checks `release.json`'s signature with
the installed key and every wheel's SHA-256 before anything is installed; `install_wheels` then makes the same
installation at the same `prefix` (a virtual environment without pip, the wheels from the bundle alone, no
index, every module compiled with checked-hash byte-code, whose bytes do not depend on when they were made), and
its manifest must be the signed one, file for file, or it is removed again: what runs is what was signed.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from table_runtime.errors import TableError
from table_runtime.release.manifest import (
    MANIFEST_NAME,
    SIGNATURE_NAME,
    Manifest,
    ManifestError,
    build_manifest,
    file_sha256,
    manifest_dir,
)
from table_runtime.release.signing import SignatureError, public_key, sign, verify

FORMAT: Final = 1
RELEASE_NAME: Final = "release.json"
RELEASE_SIGNATURE: Final = "release.json.sig"
WHEELS: Final = "wheels"
PYTHON: Final = f"{sys.version_info.major}.{sys.version_info.minor}"
INSTALL_TIMEOUT_S: Final = 1800.0


class BundleError(TableError, ValueError):
    """A bundle that is not a signed release of this key, or that cannot be installed as it was signed."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Release:
    """What `release.json` says, once its signature verified."""

    name: str
    prefix: Path
    python: str
    requirement: str
    wheels: Mapping[str, str]  # file name -> SHA-256
    manifest: Manifest
    manifest_signature: bytes

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "release": self.name, "prefix": str(self.prefix), "python": self.python,
                "requirement": self.requirement, "wheels": dict(sorted(self.wheels.items())),
                "manifest_sha256": self.manifest.digest}


def _run(command: list[str], what: str) -> None:
    # No configuration of pip's (files or PIP_* variables) may add an index, a link or a constraint: the bundle's
    # wheels alone.
    environment = {name: value for name, value in os.environ.items() if not name.startswith(("PIP_", "PYTHON"))}
    environment["PIP_CONFIG_FILE"] = os.devnull
    result = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False,
                            env=environment)
    if result.returncode != 0:
        last = (result.stderr.strip() or result.stdout.strip()).splitlines()[-1:] or [f"exit {result.returncode}"]
        raise BundleError(f"{what}: {last[0]}")


def install_wheels(prefix: Path, wheels: Path, requirement: str) -> None:
    """A virtual environment at `prefix` holding `requirement` from the wheels in `wheels` alone: the same files for
    the same wheels, interpreter and prefix (the bundle's installation, made where releases are built and again on
    the table). The installer is pip run from its own wheel among them, so no pip of the table's is needed."""
    installer = next(iter(sorted(wheels.glob("pip-*.whl"))), None)
    if installer is None:
        raise BundleError(f"{wheels}: no pip wheel to install with (pip download --no-deps -d {wheels} pip)")
    _run([sys.executable, "-m", "venv", "--without-pip", str(prefix)], f"{prefix}: venv")
    python = str(prefix / "bin" / "python")
    _run([python, "-B", f"{installer}/pip", "install", "--quiet", "--no-index", "--no-compile",
          "--no-warn-script-location", "--disable-pip-version-check", "--no-cache-dir", "--find-links", str(wheels),
          requirement],
         f"{prefix}: pip install {requirement}")
    # Byte-code whose header holds the source's hash, not a time: the same bytes wherever it is made. Every module
    # again (-f): one imported by a `.pth` file while pip ran may have left a time-stamped copy; no site (-S), so
    # nothing of the new environment is imported while it is compiled.
    _run([python, "-S", "-B", "-m", "compileall", "-f", "-q", "--invalidation-mode", "checked-hash",
          str(prefix / "lib")], f"{prefix}: compileall")


def make_bundle(output: Path, *, key: Path, wheels: Path, prefix: Path, name: str, requirement: str) -> Release:
    """Install `requirement` from `wheels` at `prefix` (which must not exist), sign its manifest and pack the bundle
    at `output`."""
    if prefix.exists():
        raise BundleError(f"{prefix} exists: a release is built at a prefix of its own")
    found = {path.name: file_sha256(path) for path in sorted(wheels.glob("*.whl"))}
    if not found:
        raise BundleError(f"{wheels}: no wheel")
    install_wheels(prefix, wheels, requirement)
    manifest = build_manifest(prefix)
    release = Release(name=name, prefix=prefix, python=PYTHON, requirement=requirement, wheels=found,
                      manifest=manifest, manifest_signature=sign(manifest.text, key))
    directory = manifest_dir(prefix)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MANIFEST_NAME).write_bytes(manifest.text)
    (directory / SIGNATURE_NAME).write_bytes(release.manifest_signature)
    described = json.dumps(release.to_json(), sort_keys=True, indent=1).encode() + b"\n"
    with tarfile.open(output, "w") as tar:
        for member, data in ((RELEASE_NAME, described), (RELEASE_SIGNATURE, sign(described, key)),
                             (MANIFEST_NAME, manifest.text), (SIGNATURE_NAME, release.manifest_signature)):
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for wheel in found:
            tar.add(wheels / wheel, arcname=f"{WHEELS}/{wheel}")
    return release


def unpack_verified(bundle: Path, key_path: Path, into: Path) -> Release:
    """The bundle's release once `release.json`'s signature verifies with the installed key, the manifest is the one
    it names (and signed) and every wheel is the one it lists; the wheels unpacked into `into`/wheels. Anything
    else is a `BundleError` naming what, before anything is installed."""
    key = public_key(key_path)
    try:
        with tarfile.open(bundle) as tar:
            members = {member.name: member for member in tar.getmembers()}
            for required in (RELEASE_NAME, RELEASE_SIGNATURE, MANIFEST_NAME, SIGNATURE_NAME):
                if required not in members:
                    raise BundleError(f"{bundle}: no {required}: not a signed release bundle")
            described = _read(tar, members[RELEASE_NAME])
            try:
                verify(described, _read(tar, members[RELEASE_SIGNATURE]), key, what=f"{bundle}: {RELEASE_NAME}")
            except SignatureError as error:
                raise BundleError(str(error)) from None
            release = _release(described, _read(tar, members[MANIFEST_NAME]), _read(tar, members[SIGNATURE_NAME]),
                               bundle)
            verify(release.manifest.text, release.manifest_signature, key, what=f"{bundle}: {MANIFEST_NAME}")
            wheels = into / WHEELS
            wheels.mkdir(parents=True)
            listed = {f"{WHEELS}/{name}" for name in release.wheels}
            extra = sorted(name for name in members if name.startswith(f"{WHEELS}/") and name not in listed)
            if extra:
                raise BundleError(f"{bundle}: {extra[0]} is not in the signed release")
            for name, digest in release.wheels.items():
                member = members.get(f"{WHEELS}/{name}")
                if member is None or not member.isfile():
                    raise BundleError(f"{bundle}: {WHEELS}/{name} is missing")
                data = _read(tar, member)
                if hashlib.sha256(data).hexdigest() != digest:
                    raise BundleError(f"{bundle}: {WHEELS}/{name} is not the wheel the release signed")
                (wheels / name).write_bytes(data)
    except (tarfile.TarError, OSError) as error:
        raise BundleError(f"{bundle}: not a readable bundle: {error}") from None
    except SignatureError as error:
        raise BundleError(str(error)) from None
    return release


def _read(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    handle = tar.extractfile(member)
    if handle is None:
        raise BundleError(f"{member.name}: not a file")
    return handle.read()


def _release(described: bytes, manifest: bytes, manifest_signature: bytes, bundle: Path) -> Release:
    try:
        body = json.loads(described)
        if body.get("format") != FORMAT:
            raise BundleError(f"{bundle}: bundle format {body.get('format')!r}; this program reads {FORMAT}")
        release = Release(name=str(body["release"]), prefix=Path(body["prefix"]), python=str(body["python"]),
                          requirement=str(body["requirement"]),
                          wheels={str(name): str(digest) for name, digest in body["wheels"].items()},
                          manifest=Manifest.parse(manifest), manifest_signature=manifest_signature)
    except (ValueError, KeyError, TypeError, AttributeError, ManifestError) as error:
        raise BundleError(f"{bundle}: {RELEASE_NAME} unreadable: {error}") from None
    if release.manifest.digest != body.get("manifest_sha256"):
        raise BundleError(f"{bundle}: {MANIFEST_NAME} is not the manifest the release signed")
    if any("/" in name or name.startswith(".") for name in release.wheels) or not release.prefix.is_absolute():
        raise BundleError(f"{bundle}: {RELEASE_NAME} names a path outside the bundle")
    if release.python != PYTHON:
        raise BundleError(f"{bundle}: built for Python {release.python}, this table runs {PYTHON}")
    return release
