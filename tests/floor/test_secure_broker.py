"""The floor against a broker with TLS and credentials: a real Mosquitto (certificates and password file made
here), a real PostgreSQL, the table's real publisher on the same TLS listener with its own user.

Refusals run `table-floor run` as its own process, so its whole output is what is checked: one log line per
attempt naming the refusal, no traceback, never the password, and the process still running (retrying)."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from casino_floor.config import load_config
from casino_floor.service import FloorService
from casino_floor.store import FloorStore
from simulators.mosquitto import MOSQUITTO, MosquittoBroker, TlsFiles, free_port, make_password_file
from table_runtime.errors import ConfigError
from table_runtime.journal import Journal
from tests.floor.journals import play
from tests.floor.support import connected, floor_toml, until_stored
from tests.floor.test_resilience import floor_process
from tests.floor.test_service import following, publishing
from tests.pki import make_certificates

pytestmark = pytest.mark.timeout(120)

FLOOR_USER, FLOOR_PASSWORD = "floor", "Fl00r-Right-pw!"
TABLE_USER, TABLE_PASSWORD = "table-t1", "T4ble-Own-pw!"
WRONG_PASSWORD = "Wr0ng-Floor-pw?"
LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) \S+: ")


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The broker's CA, its server certificate and a client certificate."""
    return make_certificates(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def other_ca(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA that signed none of the broker's certificates."""
    return make_certificates(tmp_path_factory.mktemp("other-pki"), ca_name="Some other CA") / "ca.pem"


def _broker(directory: Path, pki: Path, *, require_certificate: bool, passwords: bool) -> MosquittoBroker:
    """A TLS listener with `pki`'s server certificate (beside the plain one), sessions kept, room in flight."""
    if not Path(MOSQUITTO).exists():  # pragma: no cover - CI installs it
        pytest.skip(f"{MOSQUITTO} is not installed")
    if passwords and shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto_passwd is not installed: cannot make a password file")
    directory.mkdir()
    password_file = make_password_file(directory / "passwords", {FLOOR_USER: FLOOR_PASSWORD,
                                                                 TABLE_USER: TABLE_PASSWORD}) if passwords else None
    tls = TlsFiles(pki / "ca.pem", pki / "server.pem", pki / "server.key", require_certificate)
    return MosquittoBroker(directory=directory, password_file=password_file, tls=tls, persistence=True,
                           max_inflight_messages=0)


@pytest.fixture
def secure_broker(tmp_path: Path, pki: Path) -> Iterator[MosquittoBroker]:
    """TLS, and a user name and password for everyone (no anonymous client)."""
    with _broker(tmp_path / "broker-secure", pki, require_certificate=False, passwords=True) as running:
        yield running


@pytest.fixture
def certificate_broker(tmp_path: Path, pki: Path) -> Iterator[MosquittoBroker]:
    """TLS with `require_certificate true`: a client without a certificate signed by the CA is refused."""
    with _broker(tmp_path / "broker-certificate", pki, require_certificate=True, passwords=False) as running:
        yield running


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    """A real journal: rounds played by the fast demo table at T1."""
    played = play(tmp_path / "T1.db", "T1", 4, seed=11)
    try:
        yield played
    finally:
        played.close()


def write_config(path: Path, database: str, url: str, prefix: str, **entry: Path | str) -> Path:
    """A floor configuration on one broker (its TLS listener); `entry`: more keys of its [[brokers]] table."""
    lines = [f"{key} = {json.dumps(str(value))}" for key, value in entry.items()]
    pit = f'[pit]\nbind = "127.0.0.1:{free_port()}"\n'  # the pit page beside `table-floor run`
    path.write_text(floor_toml(database, [url], prefix) + "\n".join(lines) + "\n" + pit, encoding="utf-8")
    return path


def table_feed(tmp_path: Path, pki: Path, **more: str) -> dict[str, str]:
    """The table's own feed settings on the TLS listener: the CA, its user and its password (a file)."""
    password_file = tmp_path / "table-mqtt.pw"
    password_file.write_text(TABLE_PASSWORD + "\n", encoding="utf-8")
    return {"ca_file": str(pki / "ca.pem"), "username": TABLE_USER, "password_file": str(password_file), **more}


async def check_stored_once(database: str, journal: Journal) -> None:
    """Every row of the journal in `events`, once, as the table wrote it."""
    await until_stored(database, {"T1": journal.last_seq})
    async with connected(database) as connection:
        rows = await connection.fetch("SELECT journal, seq, hash FROM events WHERE table_id = 'T1' ORDER BY seq")
    assert [(row["journal"], row["seq"], row["hash"]) for row in rows] == [
        (journal.journal_id, entry.seq, entry.hash) for entry in journal.entries()]


def _text(log: Path) -> str:
    return log.read_text(encoding="utf-8")


async def refused(config: Path, log: Path, attempts: int = 2) -> list[str]:
    """`table-floor run` until it has logged `attempts` ended sessions, still running; its output's lines."""
    with log.open("wb") as out:
        process = await asyncio.create_subprocess_exec(sys.executable, "-m", "casino_floor", "run", "--config",
                                                       str(config), stdout=out, stderr=out)
    try:
        async with asyncio.timeout(30):
            while _text(log).count("floor session ended") < attempts:
                assert process.returncode is None, _text(log)
                await asyncio.sleep(0.05)
        assert process.returncode is None  # still retrying
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return _text(log).splitlines()


def refusals(lines: list[str], *passwords: str) -> list[str]:
    """The service's refusal lines, after checking that every line is one log record (no traceback) and that no
    password is in any."""
    assert lines and all(LOG_LINE.match(line) for line in lines), "\n".join(lines)
    assert not any(password in line for line in lines for password in passwords)
    return [line for line in lines if "floor session ended" in line]


async def test_a_floor_on_mqtts_with_a_password_stores_every_row_once(
        tmp_path: Path, secure_broker: MosquittoBroker, pki: Path, store: FloorStore, database: str, prefix: str,
        journal: Journal, caplog: pytest.LogCaptureFixture) -> None:
    config = load_config(write_config(tmp_path / "floor.toml", database, secure_broker.tls_url, prefix,
                                      ca_file=pki / "ca.pem", username=FLOOR_USER),
                         environ={"FLOOR_MQTT_PASSWORD": FLOOR_PASSWORD})
    (broker,) = config.brokers
    assert broker.address.tls and broker.address.port == secure_broker.tls_port
    service = FloorService(config, store)
    async with following(service), publishing(secure_broker.tls_url, prefix, {"T1": journal},
                                              **table_feed(tmp_path, pki)):
        await check_stored_once(database, journal)
    assert service.counters.stored == journal.last_seq
    assert FLOOR_PASSWORD not in caplog.text and TABLE_PASSWORD not in caplog.text


async def test_a_required_client_certificate_lets_the_floor_in_and_its_absence_keeps_it_out(
        tmp_path: Path, certificate_broker: MosquittoBroker, pki: Path, store: FloorStore, database: str,
        prefix: str, journal: Journal) -> None:
    url = certificate_broker.tls_url
    without = write_config(tmp_path / "without.toml", database, url, prefix, ca_file=pki / "ca.pem")
    found = refusals(await refused(without, tmp_path / "without.log"))
    # Refused by the broker's alert after the TLS 1.3 handshake, named at once (not a timeout on the CONNACK).
    assert found and all("certificate required" in line for line in found), found
    with_certificate = write_config(tmp_path / "floor.toml", database, url, prefix,
                                    ca_file=pki / "ca.pem", cert_file=pki / "client.pem", key_file=pki / "client.key")
    certificate = {"ca_file": str(pki / "ca.pem"), "cert_file": str(pki / "client.pem"),
                   "key_file": str(pki / "client.key")}
    async with following(FloorService(load_config(with_certificate, environ={}), store)), \
            publishing(url, prefix, {"T1": journal}, **certificate):
        await check_stored_once(database, journal)


async def test_a_wrong_password_is_one_line_per_attempt_until_the_right_one_is_in_place(
        tmp_path: Path, secure_broker: MosquittoBroker, pki: Path, store: FloorStore, database: str, prefix: str,
        journal: Journal) -> None:
    password_file = tmp_path / "floor-mqtt.pw"
    password_file.write_text(WRONG_PASSWORD + "\n", encoding="utf-8")
    config = write_config(tmp_path / "floor.toml", database, secure_broker.tls_url, prefix, ca_file=pki / "ca.pem",
                          username=FLOOR_USER, password_file=password_file)
    lines = await refused(config, tmp_path / "refused.log", attempts=3)
    found = refusals(lines, WRONG_PASSWORD, FLOOR_PASSWORD)
    assert len(found) >= 3 and all(re.search(r"not authori[sz]ed|bad user name or password", line, re.IGNORECASE)
                                   for line in found), found
    # The right password in place, the service restarted: it follows the table and stores every row.
    password_file.write_text(FLOOR_PASSWORD + "\n", encoding="utf-8")
    log = tmp_path / "floor.log"
    async with floor_process(config, log), publishing(secure_broker.tls_url, prefix, {"T1": journal},
                                                      **table_feed(tmp_path, pki)):
        await check_stored_once(database, journal)
    assert FLOOR_PASSWORD not in _text(log)


async def test_a_broker_certificate_not_signed_by_the_ca_file_is_refused_in_one_line(
        tmp_path: Path, secure_broker: MosquittoBroker, other_ca: Path, database: str, prefix: str) -> None:
    (tmp_path / "floor-mqtt.pw").write_text(FLOOR_PASSWORD, encoding="utf-8")
    config = write_config(tmp_path / "floor.toml", database, secure_broker.tls_url, prefix, ca_file=other_ca,
                          username=FLOOR_USER, password_file=tmp_path / "floor-mqtt.pw")
    found = refusals(await refused(config, tmp_path / "refused.log"), FLOOR_PASSWORD)
    assert found and all("certificate verify failed" in line for line in found), found


def test_a_client_key_that_does_not_fit_its_certificate_is_one_line_naming_the_certificate(
        tmp_path: Path, pki: Path) -> None:
    config = write_config(tmp_path / "floor.toml", "postgresql://floor@db.pit.local:5432/floor",
                          "mqtts://broker.pit.local:8883", "casino", ca_file=pki / "ca.pem",
                          cert_file=pki / "client.pem", key_file=pki / "server.key")
    with pytest.raises(ConfigError) as raised:
        load_config(config, environ={})
    assert raised.value.key == "brokers[0].cert_file"
