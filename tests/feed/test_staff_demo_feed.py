"""`table-runtime demo --staff`: a live table under a staff registry, its dealers rotating by their badges at the
table's reader. Every journaled input after the first login names an employee, the feed carries the ids (and
validates against the schemas), and no badge number is anywhere: not in the data directory's files, not in the
demo's output or log, not in a byte the broker delivered (issue 34)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import aiomqtt
import pytest

from simulators.mosquitto import MosquittoBroker
from simulators.staff import DEALERS, SUPERVISOR
from table_runtime.journal import Journal

from .support import validators_by_topic

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parents[2]
BADGES = [employee.badge.encode() for employee in (*DEALERS, SUPERVISOR)]


@pytest.mark.slow
async def test_a_demo_with_rotations_names_every_input_and_no_badge_number_leaks(
    broker: MosquittoBroker, prefix: str, tmp_path: Path
) -> None:
    raw: list[tuple[str, bytes]] = []
    ready = asyncio.Event()

    async def listen() -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port) as subscriber:
            await subscriber.subscribe(f"{prefix}/#", qos=1)
            ready.set()
            async for message in subscriber.messages:
                assert isinstance(message.payload, bytes)
                raw.append((str(message.topic), message.payload))

    data = tmp_path / "table"
    async with asyncio.TaskGroup() as tasks:
        listening = tasks.create_task(listen())
        async with asyncio.timeout(10):
            await ready.wait()
        demo = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "table_runtime", "demo", "--staff", "--rotate-minutes", "0.04", "--rounds", "12",
            "--first-dealer", "3",
            "--pace", "0", "--http", "off", "--seed", "5", "--error-rate", "0.2", "--devices-in-process",
            "--data-dir", str(data), "--mqtt", broker.url, "--mqtt-prefix", prefix, "--table-id", "T1",
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            async with asyncio.timeout(150):
                stdout, stderr = await demo.communicate()
        finally:
            if demo.returncode is None:
                demo.kill()
                await demo.wait()
        assert demo.returncode == 0, stderr.decode()[-2000:]
        with Journal.open(data / "journal.db") as journal:
            entries = list(journal.entries())
        last = entries[-1].seq
        async with asyncio.timeout(30):
            while not any(topic.endswith("/events") and f'"seq":{last},'.encode() in payload
                          for topic, payload in raw):
                await asyncio.sleep(0.02)
        listening.cancel()

    inputs = [entry for entry in entries if entry.kind == "input"]
    logins = [entry.body for entry in inputs if entry.body["type"] == "EmployeeLoggedIn"]
    pushes = [entry.body for entry in inputs
              if entry.body["type"] == "EmployeeLoggedOut" and entry.body["reason"] == "push"]
    assert len(logins) >= 3 and len(pushes) == len(logins) - 1, "the dealers rotated"
    assert [body["employee"] for body in logins][:3] == ["D03", "D04", "D01"], "from the first dealer given, in turn"
    first = next(entry.seq for entry in inputs if entry.body["type"] == "EmployeeLoggedIn")
    after = [entry for entry in inputs if entry.seq >= first]
    unnamed = [entry.seq for entry in after if not entry.body.get("employee")]
    assert after and not unnamed, f"inputs naming nobody: {unnamed[:10]}"
    cleared = [entry.body for entry in entries if entry.kind == "alarm_cleared" and entry.body["by"] == "supervisor"]
    assert all(body["employee"] == SUPERVISOR.employee_id for body in cleared)
    refused = [entry.body for entry in entries if entry.kind == "alarm" and entry.body.get("reason") in
               ("no_dealer", "needs_own_credential")]
    assert not refused, refused

    # The feed: the employee ids, valid against the AsyncAPI's schemas.
    validators = validators_by_topic()
    events = [json.loads(payload) for topic, payload in raw if topic.endswith("/events")]
    assert any(event["type"] == "EmployeeLoggedIn" for event in events)
    for topic, payload in raw:
        validators[topic.rsplit("/", 1)[1]].validate(json.loads(payload))

    # No badge number anywhere (ten digits: no hash holds one by chance): the files the table wrote, its output
    # and log, the bytes the broker delivered.
    files = {path: path.read_bytes() for path in data.rglob("*") if path.is_file() and path.suffix != ".fifo"}
    assert data / "journal.db" in files and data / "staff.sqlite" in files
    for badge in BADGES:
        for path, content in files.items():
            assert badge not in content, f"a badge number in {path.name}"
        assert badge not in stdout and badge not in stderr, "a badge number in the demo's output"
        assert not [topic for topic, payload in raw if badge in payload], "a badge number on the feed"
