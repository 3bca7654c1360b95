"""The release key: Ed25519 (the `cryptography` library), a private key where releases are built, its public key
installed with each table's configuration; a manifest signed by the first, verified by the second.

The public key file is PEM (``openssl pkey -pubin`` reads it), the signature the raw 64 bytes (``openssl pkeyutl
-verify -rawin`` checks it): docs/verification.md.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from table_runtime.errors import TableError


class SignatureError(TableError, ValueError):
    """A key that does not load, or a signature that does not verify."""


def generate_key(path: Path) -> Path:
    """A new private key at `path` (mode 0600, refused if the file exists) and its public key at `path`.pub."""
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(private)
    public_path = path.with_name(path.name + ".pub")
    public_path.write_bytes(public)
    return public_path


def _private_key(path: Path) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except ValueError as error:
        raise SignatureError(f"{path}: not a PEM private key: {error}") from error
    if not isinstance(key, Ed25519PrivateKey):
        raise SignatureError(f"{path}: not an Ed25519 key")
    return key


def public_key(path: Path) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except ValueError as error:
        raise SignatureError(f"{path}: not a PEM public key: {error}") from error
    if not isinstance(key, Ed25519PublicKey):
        raise SignatureError(f"{path}: not an Ed25519 public key")
    return key


def sign(data: bytes, private_key_path: Path) -> bytes:
    return _private_key(private_key_path).sign(data)


def verify(data: bytes, signature: bytes, key: Ed25519PublicKey, *, what: str) -> None:
    """Raise `SignatureError` naming `what` unless `signature` is the key's over `data`."""
    try:
        key.verify(signature, data)
    except InvalidSignature:
        raise SignatureError(f"{what}: the signature does not verify with the release key") from None
