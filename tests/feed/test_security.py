"""Credentials and TLS against a real Mosquitto: certificates and password files made here."""

from __future__ import annotations

import asyncio
import logging
import shutil
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest

from simulators.mosquitto import MosquittoBroker, TlsFiles, make_password_file
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.journal import Journal
from tests.pki import make_certificates

from .support import append_entries, retained, settings

pytestmark = pytest.mark.timeout(60)

PASSWORD = "s3cret-Pit-Boss!"


@pytest.fixture
def auth_broker(tmp_path: Path) -> Iterator[MosquittoBroker]:
    if shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto_passwd is not installed: cannot make a password file")
    directory = tmp_path / "broker-auth"
    directory.mkdir()
    password_file = make_password_file(directory / "passwords", {"table-t1": PASSWORD, "reader": "reader-pw"})
    with MosquittoBroker(directory=directory, password_file=password_file) as running:
        yield running


async def test_credentials_from_a_file_connect_and_are_never_logged(
    auth_broker: MosquittoBroker, journal: Journal, prefix: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    password_file = tmp_path / "mqtt.pw"
    password_file.write_text(PASSWORD + "\n", encoding="utf-8")
    feed_settings = settings(auth_broker.url, prefix, username="table-t1", password_file=str(password_file))
    assert PASSWORD not in repr(feed_settings)
    await append_entries(journal, 0, 20)
    async with FeedPublisher(feed_settings, journal) as feed, asyncio.TaskGroup() as tasks:
        runner = tasks.create_task(feed.run())
        async with asyncio.timeout(10):
            await feed.wait_published(20)
        feed.stop("done")
        await runner
    status = await retained(auth_broker.port, f"{prefix}/tables/T1/status", username="reader", password="reader-pw")
    assert (status["status"], status["seq"]) == ("offline", 20)
    assert PASSWORD not in caplog.text


async def test_a_wrong_password_keeps_retrying_names_the_refusal_and_not_the_password(
    auth_broker: MosquittoBroker, journal: Journal, prefix: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    password_file = tmp_path / "mqtt.pw"
    password_file.write_text("wrong-" + PASSWORD, encoding="utf-8")
    feed_settings = settings(auth_broker.url, prefix, username="table-t1", password_file=str(password_file))
    async with FeedPublisher(feed_settings, journal) as feed, asyncio.TaskGroup() as tasks:
        runner = tasks.create_task(feed.run())
        async with asyncio.timeout(10):
            while feed.last_error is None:
                await asyncio.sleep(0.01)
        feed.stop("done")
        await runner
    assert feed.connections == 0
    assert "refused" in (feed.last_error or "").lower() or "not authori" in (feed.last_error or "").lower()
    assert PASSWORD not in caplog.text


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA, a server certificate for 127.0.0.1 and a client certificate (tests/pki.py)."""
    return make_certificates(tmp_path_factory.mktemp("pki"))


@pytest.fixture
def tls_broker(tmp_path: Path, certificates: Path) -> Iterator[MosquittoBroker]:
    directory = tmp_path / "broker-tls"
    directory.mkdir()
    tls = TlsFiles(certificates / "ca.pem", certificates / "server.pem", certificates / "server.key", True)
    with MosquittoBroker(directory=directory, tls=tls) as running:
        yield running


async def test_tls_with_a_client_certificate(
    tls_broker: MosquittoBroker, certificates: Path, journal: Journal, prefix: str
) -> None:
    feed_settings = settings(
        tls_broker.tls_url, prefix,
        ca_file=str(certificates / "ca.pem"),
        cert_file=str(certificates / "client.pem"),
        key_file=str(certificates / "client.key"),
    )  # fmt: skip
    await append_entries(journal, 0, 20)
    async with FeedPublisher(feed_settings, journal) as feed, asyncio.TaskGroup() as tasks:
        runner = tasks.create_task(feed.run())
        async with asyncio.timeout(10):
            await feed.wait_published(20)
        feed.stop("done")
        await runner
    # Read it back on the plain listener of the same broker.
    status = await retained(tls_broker.port, f"{prefix}/tables/T1/status")
    assert (status["status"], status["seq"]) == ("offline", 20)


async def test_tls_refuses_an_unknown_ca_and_a_missing_client_certificate(
    tls_broker: MosquittoBroker, certificates: Path, journal: Journal, prefix: str, tmp_path: Path
) -> None:
    # The system trust store does not know our CA: the server certificate is refused.
    no_ca = settings(tls_broker.tls_url, prefix)
    # The right CA but no client certificate: the broker refuses the handshake.
    no_client = settings(tls_broker.tls_url, prefix, ca_file=str(certificates / "ca.pem"))
    for feed_settings in (no_ca, no_client):
        async with FeedPublisher(feed_settings, journal) as feed, asyncio.TaskGroup() as tasks:
            runner = tasks.create_task(feed.run())
            async with asyncio.timeout(10):
                while feed.last_error is None:
                    await asyncio.sleep(0.01)
            feed.stop("done")
            await runner
        assert feed.connections == 0, feed_settings
    context = no_client.tls_context()
    assert context is not None and context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
