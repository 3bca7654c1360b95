"""A small signed installation for the table's own checks: the scope a virtual environment has (``bin/``, ``lib/``,
``pyvenv.cfg``), a few files in it, its manifest signed with a release key made for the test (the real
`release` functions: the same tree the table checks on a real install, only smaller, so a test takes a second)."""

from __future__ import annotations

from pathlib import Path

from table_runtime.release.manifest import MANIFEST_NAME, SIGNATURE_NAME, build_manifest, manifest_dir
from table_runtime.release.signing import generate_key, sign

SETTLEMENT = "lib/python3.11/site-packages/table_runtime/game/settlement.py"


def signed_installation(root: Path) -> tuple[Path, Path]:
    """(the installation's prefix, the release's public key) under `root`."""
    prefix = root / "venv"
    for path, text in {"bin/python": "#!/bin/sh\n", "pyvenv.cfg": "home = /usr/bin\n",
                       SETTLEMENT: '"""What a hand is paid."""\nBLACKJACK = (3, 2)\n',
                       "lib/python3.11/site-packages/aiomqtt/client.py": "class Client: ...\n"}.items():
        (prefix / path).parent.mkdir(parents=True, exist_ok=True)
        (prefix / path).write_text(text, encoding="utf-8")
    key = root / "release.key"
    public = generate_key(key)
    manifest = build_manifest(prefix)
    directory = manifest_dir(prefix)
    directory.mkdir(parents=True)
    (directory / MANIFEST_NAME).write_bytes(manifest.text)
    (directory / SIGNATURE_NAME).write_bytes(sign(manifest.text, key))
    return prefix, public


def change_one_byte(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:5] + bytes([data[5] ^ 0x20]) + data[6:])
