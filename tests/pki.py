"""Certificates for the TLS tests, made with the openssl CLI (the `cryptography` package is not in the test
environment): a CA, a server certificate for 127.0.0.1 signed by it, and a client certificate signed by it.

Two calls with two directories make two CAs that do not know each other (a broker's certificate "not signed
by `ca_file`").
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_certificates(directory: Path, *, ca_name: str = "Test casino CA", client: str = "table-t1") -> Path:
    """`directory` holding ca.pem/ca.key, server.pem/server.key (127.0.0.1, localhost) and client.pem/client.key
    (CN `client`, for client authentication); skips the test where openssl is not installed."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: cannot make certificates")
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "server.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n", encoding="utf-8")
    (directory / "client.ext").write_text("extendedKeyUsage=clientAuth\n", encoding="utf-8")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={ca_name}",
            "-keyout", "ca.key", "-out", "ca.pem", cwd=directory)  # fmt: skip
    for name, subject in (("server", "/CN=127.0.0.1"), ("client", f"/CN={client}")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout", f"{name}.key",
                "-out", f"{name}.csr", cwd=directory)  # fmt: skip
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.pem", cwd=directory)  # fmt: skip
    return directory
