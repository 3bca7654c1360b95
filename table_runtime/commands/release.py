"""`table-runtime release keygen|sign` and `table-runtime verify`: the program's identity (docs/verification.md).

    table-runtime release keygen KEY                       # KEY (private, 0600) and KEY.pub
    table-runtime release sign --key KEY [--prefix DIR]    # the manifest of the installation, signed
    table-runtime verify --public-key KEY.pub [--seed HEX] [--prefix DIR]
    table-runtime release bundle ... / table-runtime update BUNDLE | --rollback   (commands/update.py)

`verify` exits 0 when the manifest's signature verifies and every file is as released (and prints the HMAC under
the seed, if one is given, and the manifest's own SHA-256); 3 naming each file changed, missing or added; 2 on
bad input (a key that does not load, a seed that is not hex, no manifest).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from table_runtime.commands import update
from table_runtime.errors import ConfigError
from table_runtime.release.manifest import (
    MANIFEST_NAME,
    SIGNATURE_NAME,
    build_manifest,
    check,
    manifest_dir,
    seeded_digest,
)
from table_runtime.release.signing import generate_key, sign
from table_runtime.release.verification import signed_manifest

EXIT_NOT_AS_RELEASED = 3


def register(subparsers: Any) -> None:
    release = subparsers.add_parser("release", help="make the release key, sign an installation's manifest")
    actions = release.add_subparsers(dest="release_command", required=True, metavar="ACTION")
    keygen = actions.add_parser("keygen", help="a new Ed25519 release key: KEY (private) and KEY.pub")
    keygen.add_argument("key", type=Path)
    keygen.set_defaults(handler=run_keygen)
    signer = actions.add_parser("sign", help="write and sign the manifest of every file of an installation")
    signer.add_argument("--key", type=Path, required=True, help="the private release key")
    _prefix(signer)
    signer.set_defaults(handler=run_sign)
    verifier = subparsers.add_parser("verify", help="check every installed file against the signed manifest")
    verifier.add_argument("--public-key", type=Path, required=True, help="the release's public key (PEM)")
    verifier.add_argument("--seed", help="a verifier's seed, in hex: print the HMAC-SHA256 of the files under it")
    _prefix(verifier)
    verifier.set_defaults(handler=run_verify)
    update.register_bundle(actions)
    update.register(subparsers)


def _prefix(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--prefix", type=Path, default=Path(sys.prefix),
                        help="the installation (its virtual environment; default: this one)")


def run_keygen(args: argparse.Namespace) -> int:
    if args.key.exists():
        raise ConfigError("key", f"{args.key} exists: a release key is never overwritten")
    public = generate_key(args.key)
    print(f"release key {args.key} (keep it where releases are built), public key {public} (install it with "
          "each table's configuration)")
    return 0


def run_sign(args: argparse.Namespace) -> int:
    prefix = args.prefix.resolve()
    manifest = build_manifest(prefix)
    signature = sign(manifest.text, args.key)
    directory = manifest_dir(prefix)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MANIFEST_NAME).write_bytes(manifest.text)
    (directory / SIGNATURE_NAME).write_bytes(signature)
    print(f"manifest of {len(manifest.digests)} files signed: {directory / MANIFEST_NAME} (sha256 {manifest.digest})")
    return 0


def _seed(text: str) -> bytes:
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise ConfigError("seed", f"{text!r} is not hex") from None
    if not seed:
        raise ConfigError("seed", "an empty seed")
    return seed


def run_verify(args: argparse.Namespace) -> int:
    prefix = args.prefix.resolve()
    seed = _seed(args.seed) if args.seed is not None else None
    manifest = signed_manifest(prefix, args.public_key)
    findings = check(prefix, manifest)
    print(f"manifest sha256 {manifest.digest}: signature verified, {findings.checked} files")
    if not findings.intact:
        for line in findings.lines():
            print(line)
        print(f"not as released: {len(findings.lines())} file(s)", file=sys.stderr)
        return EXIT_NOT_AS_RELEASED
    if seed is not None:
        print(f"hmac-sha256 {seeded_digest(prefix, manifest, seed)} (seed {seed.hex()})")
    print("every file as released")
    return 0
