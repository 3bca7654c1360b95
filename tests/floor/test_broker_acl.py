"""Per-table credentials and the broker's ACL (deploy/mosquitto/acl-for-tables) on a real Mosquitto: a table's
client cannot publish on another table's topic, and the table's own publisher and the floor work within it."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest

from casino_floor.config import config_from_mapping
from casino_floor.service import FloorService
from casino_floor.store import FloorStore
from simulators.mosquitto import MOSQUITTO, MosquittoBroker, make_password_file
from table_runtime.feed.messages import Topics, encode_payload, messages_for_entry
from table_runtime.feed.publisher import FeedPublisher
from tests.feed.support import settings
from tests.floor.journals import play
from tests.floor.support import connected, floor_toml, until_stored
from tests.floor.test_service import following

ROOT = Path(__file__).resolve().parents[2]
PASSWORDS = {"floor": "floor-password", "table-T1": "t1-password", "table-T2": "t2-password"}


@pytest.fixture
def acl_broker(tmp_path: Path, prefix: str) -> Iterator[MosquittoBroker]:
    """A broker with a password per user and the ACL the deployment script writes for the floor and T1, T2."""
    if not Path(MOSQUITTO).exists() or shutil.which("mosquitto_passwd") is None:  # pragma: no cover - CI has both
        pytest.skip("mosquitto and mosquitto_passwd are needed")
    directory = tmp_path / "acl-broker"
    directory.mkdir()
    acl = directory / "acl"
    acl.write_text(subprocess.run(["sh", str(ROOT / "deploy" / "mosquitto" / "acl-for-tables"), prefix, "floor-test",
                                   "T1", "T2"], check=True, capture_output=True, text=True, timeout=30).stdout)
    with MosquittoBroker(directory=directory, password_file=make_password_file(directory / "passwd", PASSWORDS),
                         persistence=True, max_inflight_messages=0, extra_config=(f"acl_file {acl}",)) as running:
        yield running


async def test_a_tables_client_cannot_publish_on_another_tables_topic(
        tmp_path: Path, acl_broker: MosquittoBroker, store: FloorStore, database: str, prefix: str) -> None:
    journal = play(tmp_path / "T1.db", "T1", 3, seed=4)
    password_file = tmp_path / "t1-password"
    password_file.write_text(PASSWORDS["table-T1"])
    config = config_from_mapping(tomllib.loads(floor_toml(database, [acl_broker.url], prefix)),
                                 environ={"FLOOR_MQTT_USERNAME": "floor", "FLOOR_MQTT_PASSWORD": PASSWORDS["floor"]})
    try:
        async with following(FloorService(config, store)):
            # T1's client, with T1's own credentials, speaks for T2: the broker routes none of it (Mosquitto closes
            # the connection of a client publishing outside its rights), retained or not.
            t2 = Topics(prefix, "T2")
            forged = [(message.topic, encode_payload({**message.payload, "table_id": "T2"}), False)
                      for entry in journal.entries(0, 5)
                      for message in messages_for_entry(t2, entry, journal.journal_id)]
            forged.append((t2.head, encode_payload({"schema_version": 1, "table_id": "T2", "seq": 2**40, "ts": 1.0,
                                                    "journal": journal.journal_id, "hash": "0" * 64,
                                                    "type": "JournalHead"}), True))
            refused = 0
            for topic, payload, retain in forged:
                try:
                    async with aiomqtt.Client("127.0.0.1", acl_broker.port, username="table-T1",
                                              password=PASSWORDS["table-T1"]) as forger:
                        await forger.publish(topic, payload, qos=1, retain=retain)
                        await forger.publish(topic, payload, qos=1, retain=retain)  # after the broker's verdict
                except aiomqtt.MqttError:
                    refused += 1
            assert refused == len(forged)
            # T1's own publisher, with the same credentials, is stored in full within the ACL.
            table = settings(acl_broker.url, prefix, "T1", username="table-T1", password_file=str(password_file))
            async with FeedPublisher(table, journal) as feed, asyncio.TaskGroup() as tasks:
                publisher = tasks.create_task(feed.run())
                await until_stored(database, {"T1": journal.last_seq}, seconds=30)
                publisher.cancel()
        async with connected(database) as connection:
            t2_rows = await connection.fetchval("SELECT count(*) FROM events WHERE table_id = 'T2'")
            t2_traces = await connection.fetchval(
                "SELECT (SELECT count(*) FROM journals WHERE table_id = 'T2') + (SELECT count(*) FROM table_state "
                "WHERE table_id = 'T2') + (SELECT count(*) FROM evidence) + (SELECT count(*) FROM quarantine)")
            t1_state = await connection.fetchval("SELECT status->>'status' FROM table_state WHERE table_id = 'T1'")
        assert t2_rows == 0 and t2_traces == 0
        assert t1_state in ("online", "offline")
        # Nor can a client without a password connect at all.
        with pytest.raises(aiomqtt.MqttError):
            async with aiomqtt.Client("127.0.0.1", acl_broker.port, timeout=5):
                pass
        with contextlib.suppress(aiomqtt.MqttError):  # the retained forgery never reached the broker's store
            async with aiomqtt.Client("127.0.0.1", acl_broker.port, username="floor",
                                      password=PASSWORDS["floor"]) as reader:
                await reader.subscribe(f"{prefix}/tables/T2/#", qos=1)
                with pytest.raises(TimeoutError):
                    async with asyncio.timeout(1.0):
                        await anext(aiter(reader.messages))
    finally:
        journal.close()
