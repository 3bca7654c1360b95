"""One check of the installed program against its signed manifest: what the table journals and shows of it.

`verify_installation` is what `table-runtime verify` and the running table (runtime/program_watch.py: at the
start, every `check_hours`, on demand) both do: the manifest's signature with the installed public key, every
listed file's SHA-256, every file of the scope not listed, and with a verifier's seed the HMAC-SHA256 answer of
docs/verification.md. It never raises for what it finds: a manifest missing, a signature that does not verify
and a file changed, missing or added are each a `ProgramCheck` that is not intact, naming the file. It reads
files only (no clock, no journal), so it runs in a process of its own, off the table's interpreter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_runtime.release.manifest import (
    MANIFEST_NAME,
    SIGNATURE_NAME,
    Manifest,
    ManifestError,
    check,
    manifest_dir,
    seeded_digest,
)
from table_runtime.release.signing import SignatureError, public_key, verify


def signed_manifest(prefix: Path, key_path: Path) -> Manifest:
    """The installation's manifest, once its signature verifies with the release's public key."""
    directory = manifest_dir(prefix)
    try:
        text = (directory / MANIFEST_NAME).read_bytes()
        signature = (directory / SIGNATURE_NAME).read_bytes()
    except FileNotFoundError as error:
        raise ManifestError(f"{error.filename}: no signed manifest (table-runtime release sign)") from None
    verify(text, signature, public_key(key_path), what=str(directory / MANIFEST_NAME))
    return Manifest.parse(text)


@dataclass(frozen=True, slots=True, kw_only=True)
class ProgramCheck:
    """The result of one check: intact or not, the files found otherwise than released, the manifest's digest,
    and the answer to the seed when one was given (only for an intact installation)."""

    intact: bool
    changed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    files: int = 0  # files the manifest lists (0: no manifest could be read)
    manifest_sha256: str = ""
    seed: str = ""  # the verifier's seed, in hex ("" without one)
    hmac_sha256: str = ""  # the answer to the seed ("" without a seed or for an installation not as released)
    problem: str = ""  # why the manifest itself could not be used (missing, signature, unreadable)

    @property
    def first_file(self) -> str:
        """The first file named (what the alarm names), "" when intact."""
        return next(iter(self.changed + self.missing + self.added), "")

    def lines(self) -> list[str]:
        """One line per file found otherwise than released (and the manifest's own problem first)."""
        return ([self.problem] if self.problem else []) + [f"changed: {path}" for path in self.changed] + \
            [f"missing: {path}" for path in self.missing] + [f"added: {path}" for path in self.added]

    def to_json(self) -> dict[str, Any]:
        return {"intact": self.intact, "changed": list(self.changed), "missing": list(self.missing),
                "added": list(self.added), "files": self.files, "manifest_sha256": self.manifest_sha256,
                "seed": self.seed, "hmac_sha256": self.hmac_sha256, "problem": self.problem}

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> ProgramCheck:
        return cls(intact=bool(body["intact"]), changed=tuple(body.get("changed", ())),
                   missing=tuple(body.get("missing", ())), added=tuple(body.get("added", ())),
                   files=int(body.get("files", 0)), manifest_sha256=str(body.get("manifest_sha256", "")),
                   seed=str(body.get("seed", "")), hmac_sha256=str(body.get("hmac_sha256", "")),
                   problem=str(body.get("problem", "")))


def verify_installation(prefix: Path, key_path: Path, seed: bytes | None = None) -> ProgramCheck:
    """The installation at `prefix` against its manifest signed by the key at `key_path` (and the answer to
    `seed`). A manifest that cannot be used names the manifest's file as changed (or missing)."""
    manifest_file = (manifest_dir(prefix) / MANIFEST_NAME).relative_to(prefix).as_posix()
    seed_hex = seed.hex() if seed else ""
    try:
        manifest = signed_manifest(prefix, key_path)
    except ManifestError as error:
        missing = "no signed manifest" in str(error)
        return ProgramCheck(intact=False, changed=() if missing else (manifest_file,),
                            missing=(manifest_file,) if missing else (), seed=seed_hex, problem=str(error))
    except SignatureError as error:
        return ProgramCheck(intact=False, changed=(manifest_file,), seed=seed_hex, problem=str(error))
    except OSError as error:
        return ProgramCheck(intact=False, changed=(manifest_file,), seed=seed_hex,
                            problem=f"{error.filename}: {error.strerror or error}")
    findings = check(prefix, manifest)
    answer = ""
    if findings.intact and seed:
        try:
            answer = seeded_digest(prefix, manifest, seed)
        except ManifestError as error:  # a file gone between the two reads
            return ProgramCheck(intact=False, changed=(str(error).split(":", 1)[0],), files=findings.checked,
                                manifest_sha256=manifest.digest, seed=seed_hex, problem=str(error))
    return ProgramCheck(intact=findings.intact, changed=findings.changed, missing=findings.missing,
                        added=findings.added, files=findings.checked, manifest_sha256=manifest.digest,
                        seed=seed_hex, hmac_sha256=answer)
