"""`table-runtime demo --mqtt`: every journal entry reaches a subscriber, contiguous, through a broker restart,
and everything published validates against the schemas the AsyncAPI document names."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import aiomqtt
import pytest

from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.consumer import FeedConsumer
from table_runtime.feed.settings import parse_broker_url
from table_runtime.journal import Journal
from table_runtime.version import installed_version
from tests.polling import until

from .support import Heard, listen, validators_by_topic

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
async def test_a_live_demo_publishes_every_entry_through_a_broker_restart(
    persistent_broker: MosquittoBroker, prefix: str, tmp_path: Path
) -> None:
    broker = persistent_broker
    consumer = FeedConsumer(
        parse_broker_url(broker.url)[0], prefix=prefix, table_id="T1", client_id=f"{prefix}-audit", persistent=True,
        backoff_initial=0.02, backoff_max=0.2,
    )  # fmt: skip
    seqs: list[int] = []
    heard, ready = Heard(), asyncio.Event()

    async def listen_across_restarts() -> None:
        while True:
            try:
                await listen(broker.port, f"{prefix}/#", heard, ready)
            except aiomqtt.MqttError:
                await asyncio.sleep(0.05)

    async def consume() -> None:
        async for received in consumer.messages():
            seqs.append(received.message["seq"])

    async with asyncio.TaskGroup() as tasks:
        consuming = tasks.create_task(consume())
        listening = tasks.create_task(listen_across_restarts())
        async with asyncio.timeout(10):
            await consumer.subscribed.wait()
            await ready.wait()
        demo = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "table_runtime", "demo", "--rounds", "100000", "--pace", "0.01", "--http", "off",
            "--seed", "11", "--error-rate", "0.2", "--data-dir", str(tmp_path / "table"),
            "--mqtt", broker.url, "--mqtt-prefix", prefix, "--table-id", "T1",
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            async with asyncio.timeout(60):
                while len(seqs) < 40:
                    await asyncio.sleep(0.01)
            await asyncio.to_thread(broker.stop)
            await until(lambda: not consumer.subscribed.is_set(), "the audit consumer lost the stopped broker")
            await asyncio.to_thread(broker.start)
            # Stopped once its feed is back and publishing: a table stopped with its broker still away keeps the
            # rows it could not send for its next start (it waits 5 s for them), which is not what this tests.
            before = seqs[-1]
            async with asyncio.timeout(60):
                while seqs[-1] < max(before + 20, 110) or not heard.on("rounds"):  # a round closed, too
                    await asyncio.sleep(0.01)
            demo.send_signal(signal.SIGTERM)
            async with asyncio.timeout(90):
                _, stderr = await demo.communicate()
        finally:
            if demo.returncode is None:
                demo.kill()
                await demo.wait()
        assert demo.returncode == 0, stderr.decode()[-2000:]
        with Journal.open(tmp_path / "table" / "journal.db") as journal:
            last = journal.last_seq
        async with asyncio.timeout(30):
            while not seqs or seqs[-1] < last:
                await asyncio.sleep(0.01)
        consuming.cancel()
        listening.cancel()

    assert last > 100
    assert seqs == list(range(1, last + 1))
    assert consumer.tracker.gaps == 0
    validators = validators_by_topic()
    topics = {topic.rsplit("/", 1)[1] for topic, _, _ in heard.messages}
    assert {"events", "state", "rounds", "status"} <= topics
    for topic, payload, _ in heard.messages:
        validators[topic.rsplit("/", 1)[1]].validate(payload)
    # Which release the table runs: on every status message, and on the runtime's Started row.
    version = installed_version()
    assert heard.on("status") and all(status["version"] == version for status in heard.on("status"))
    started = [event for event in heard.on("events") if event["kind"] == "status" and event["type"] == "Started"]
    assert started and all(event["body"]["version"] == version for event in started)
    broken = {**started[0], "body": {**started[0]["body"], "version": 7}}
    assert not validators["events"].is_valid(broken)  # the schema documents it as a string
