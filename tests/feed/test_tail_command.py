"""`table-runtime feed tail`: prints events, drops repeats, flags gaps (exit 3)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path

import aiomqtt
import pytest

from simulators.mosquitto import MosquittoBroker, free_port
from table_runtime.feed.messages import Topics, event_message
from table_runtime.journal import GENESIS_HASH, JournalEntry

from .support import JOURNAL

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]


def event(seq: int) -> bytes:
    entry = JournalEntry(seq, 1764412345.5, "event", {"type": "CardAssigned", "card": "QD"}, GENESIS_HASH, "a" * 64)
    return event_message(Topics("x", "T1"), entry, JOURNAL).encode()


async def run_tail(broker: MosquittoBroker, prefix: str, *options: str) -> tuple[list[str], int]:
    """Start the command, make sure it listens (seq 1 until it prints it), then send 2, 2, 5, 6."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "table_runtime", "feed", "tail", "--url", broker.url, "--prefix", prefix,
        "--table", "T1", "--count", "4", *options,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    topic = f"{prefix}/tables/T1/events"
    try:
        async with aiomqtt.Client("127.0.0.1", broker.port) as client:
            first = asyncio.ensure_future(process.stdout.readline())
            async with asyncio.timeout(20):
                while not first.done():
                    await client.publish(topic, event(1), qos=1)  # repeats are dropped: one line
                    await asyncio.wait({first}, timeout=0.1)
            for seq in (2, 2, 5, 6):
                await client.publish(topic, event(seq), qos=1)
        async with asyncio.timeout(20):
            rest, _ = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    lines = [first.result().decode(), *rest.decode().splitlines()]
    assert process.returncode is not None
    return [line.rstrip("\n") for line in lines], process.returncode


async def test_tail_prints_each_seq_once_and_flags_the_gap(broker: MosquittoBroker, prefix: str) -> None:
    lines, returncode = await run_tail(broker, prefix)
    assert returncode == 3  # a gap was seen
    assert len(lines) == 5, lines
    assert lines[0].split()[:4] == ["T1", "1", "2025-11-29T10:32:25.500+00:00", "CardAssigned"]
    assert lines[1].split()[1] == "2"
    assert lines[2] == "GAP T1: seq 3..4 missing (2)"
    assert [line.split()[1] for line in lines[3:]] == ["5", "6"]


async def test_tail_json_lines(broker: MosquittoBroker, prefix: str) -> None:
    lines, returncode = await run_tail(broker, prefix, "--json")
    assert returncode == 3
    messages = [json.loads(line) for line in lines]
    assert [message.get("seq") for message in messages] == [1, 2, None, 5, 6]
    assert messages[2] == {"type": "Gap", "table_id": "T1", "first": 3, "last": 4}
    assert messages[0]["body"] == {"type": "CardAssigned", "card": "QD"}


async def test_tail_says_the_broker_is_unreachable_and_retries_until_it_is_there(tmp_path: Path, prefix: str) -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "table_runtime", "feed", "tail", "--url", f"mqtt://127.0.0.1:{port}", "--prefix", prefix,
        "--table", "T1", "--count", "1", "--retry-max", "0.5",
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None and process.stderr is not None
    try:
        said: list[str] = []
        async with asyncio.timeout(20):
            while len(said) < 2:  # tried, and tried again
                said.append((await process.stderr.readline()).decode().rstrip("\n"))
        for line in said:
            assert re.fullmatch(rf"feed tail: broker 127\.0\.0\.1:{port} unreachable \(.*refused.*\); "
                                r"retrying in \d+\.\d s", line), line
        directory = tmp_path / "late-broker"
        directory.mkdir()
        with MosquittoBroker(directory=directory, port=port):
            async with asyncio.timeout(20):
                while "connected" not in (line := (await process.stderr.readline()).decode()):
                    assert "unreachable" in line, line
            listening = f"listening on {prefix}/tables/T1/events"
            assert line.strip() == f"feed tail: broker 127.0.0.1:{port}: connected, {listening}"
            async with aiomqtt.Client("127.0.0.1", port) as client:
                await client.publish(f"{prefix}/tables/T1/events", event(1), qos=1)
            async with asyncio.timeout(20):
                out, _ = await process.communicate()
        assert process.returncode == 0 and " 1 " in out.decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
