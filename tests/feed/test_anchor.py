"""What the feed anchors off the table, against a real Mosquitto: the journal id in every message, the retained
head, and `table-runtime feed tail --verify` finding what `journal verify` cannot (rows deleted and the head set
back, a journal file put back from an older copy, a new data directory)."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from simulators.mosquitto import MosquittoBroker
from table_runtime.feed.publisher import FeedPublisher
from table_runtime.journal import GENESIS_HASH, Journal, journal_path

from .support import Heard, append_entries, listen, retained, settings, validators_by_topic

pytestmark = pytest.mark.timeout(90)

ROOT = Path(__file__).resolve().parents[2]
STARTED = ("status", {"type": "Started", "table_id": "T1", "profile": "fr-classic", "version": "test"})


async def publish(broker: MosquittoBroker, prefix: str, path: Path, *, until: int,
                  state: dict[str, object] | None = None) -> None:
    """What a table's feed does from start to stop: open the journal, publish up to row `until`, stop."""
    with Journal.open(path) as journal:
        async with FeedPublisher(settings(broker.url, prefix, head_interval=0.2), journal) as feed:
            runner = asyncio.create_task(feed.run())
            async with asyncio.timeout(20):
                await feed.wait_published(until)
                while not feed.connections:  # an empty journal has nothing to wait for
                    await asyncio.sleep(0.01)
            if state is not None:
                feed.offer_state(state)
                await asyncio.sleep(0.3)  # a head refresh, and the state, go out meanwhile
            feed.stop("table stopped")
            async with asyncio.timeout(10):
                await runner


async def append(path: Path, start: int, stop: int) -> None:
    with Journal.open(path) as journal:
        await append_entries(journal, start, stop)


class Tail:
    """`table-runtime feed tail --verify` in a process of its own; its stdout lines as they come."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []

    @classmethod
    async def start(cls, broker: MosquittoBroker, prefix: str, *options: str) -> Tail:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "table_runtime", "feed", "tail", "--url", broker.url, "--prefix", prefix,
            "--table", "T1", "--verify", *options,
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert process.stderr is not None
        async with asyncio.timeout(20):
            while "connected" not in (await process.stderr.readline()).decode():
                pass
        return cls(process)

    async def until(self, wanted: Callable[[str], bool]) -> str:
        assert self.process.stdout is not None
        async with asyncio.timeout(20):
            while True:
                raw = await self.process.stdout.readline()
                assert raw, f"feed tail ended; it printed {self.lines}"
                line = raw.decode().rstrip("\n")
                self.lines.append(line)
                if wanted(line):
                    return line

    async def row(self, seq: int) -> str:
        return await self.until(lambda line: re.match(rf"T1 +{seq} ", line) is not None)

    async def close(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
        await self.process.wait()


def findings(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(("REWRITTEN", "TRUNCATED", "NEW JOURNAL", "BROKEN"))]


async def test_every_message_names_the_journal_and_the_head_is_retained_and_refreshed(
        broker: MosquittoBroker, prefix: str, tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    await append(path, 0, 120)  # events, alarms, rounds
    with Journal.open(path) as journal:
        journal_id, last = journal.journal_id, list(journal.entries())[-1]
    heard, ready = Heard(), asyncio.Event()
    listener = asyncio.create_task(listen(broker.port, f"{prefix}/#", heard, ready))
    async with asyncio.timeout(5):
        await ready.wait()
    await publish(broker, prefix, path, until=120, state={"schema_version": 1, "seq": 120})
    async with asyncio.timeout(5):
        while not any(payload.get("status") == "offline" for payload in heard.on("status")):
            await asyncio.sleep(0.02)
    listener.cancel()
    assert {topic.rsplit("/", 1)[1] for topic, _, _ in heard.messages} == {
        "status", "state", "events", "alarms", "rounds", "head"}
    assert all(payload["journal"] == journal_id for _, payload, _ in heard.messages)
    heads = heard.on("head")
    assert heads[0]["seq"] == 120  # at connection: the journal as it is
    assert len(heads) >= 2 and [head["ts"] for head in heads] == sorted(head["ts"] for head in heads)
    assert {(head["seq"], head["hash"]) for head in heads} == {(last.seq, last.hash)}
    validator = validators_by_topic()["head"]
    for head in heads:
        validator.validate(head)
    kept = await retained(broker.port, f"{prefix}/tables/T1/head")
    assert (kept["type"], kept["journal"], kept["seq"], kept["hash"]) == ("JournalHead", journal_id, 120, last.hash)


async def test_an_empty_journal_s_head_is_seq_0(broker: MosquittoBroker, prefix: str, tmp_path: Path) -> None:
    await publish(broker, prefix, journal_path(tmp_path), until=0)
    kept = await retained(broker.port, f"{prefix}/tables/T1/head")
    assert (kept["seq"], kept["hash"]) == (0, GENESIS_HASH)


async def test_tail_verify_names_rows_deleted_and_the_head_set_back_once_the_table_restarts(
        broker: MosquittoBroker, prefix: str, tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    await append(path, 0, 100)
    tail = await Tail.start(broker, prefix)
    try:
        await publish(broker, prefix, path, until=100)
        await tail.row(100)
        with sqlite3.connect(path) as db:  # someone with the file: rows 91..100 deleted, the head set back
            (hash_90,) = db.execute("SELECT hash FROM entries WHERE seq = 90").fetchone()
            db.execute("DELETE FROM entries WHERE seq > 90")
            db.execute("UPDATE head SET seq = 90, hash = ? WHERE id = 1", (hash_90,))
        with Journal.open(path) as journal:
            assert journal.verify().ok  # the local check sees nothing
            journal_id = journal.journal_id
            journal.append(*STARTED, ts=1764590000.0)  # the table restarts: row 91 again
        await publish(broker, prefix, path, until=91)
        line = await tail.until(lambda text: text.startswith("REWRITTEN"))
        assert line.startswith(f"REWRITTEN T1 journal {journal_id}: row 91 ")
        assert line.endswith("rows 91..100 (10) published before are not in the journal any more")
        started = await tail.row(91)  # the journal as it now is goes on
        assert " Started " in started
    finally:
        await tail.close()
    assert len(findings(tail.lines)) == 1, tail.lines


async def test_tail_verify_names_the_rows_lost_when_an_older_copy_of_the_journal_comes_back(
        broker: MosquittoBroker, prefix: str, tmp_path: Path) -> None:
    path = journal_path(tmp_path)
    await append(path, 0, 50)
    tail = await Tail.start(broker, prefix)
    try:
        await publish(broker, prefix, path, until=50)
        older = tmp_path / "older.db"
        shutil.copyfile(path, older)  # closed: no WAL beside it
        await append(path, 50, 100)
        with Journal.open(path) as journal:
            journal_id = journal.journal_id
        await publish(broker, prefix, path, until=100)
        await tail.row(100)
        # A kill -9 and a WAL cut: the journal comes back as it was at row 50, and the table restarts.
        for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            extra.unlink(missing_ok=True)
        shutil.copyfile(older, path)
        await publish(broker, prefix, path, until=50)
        line = await tail.until(lambda text: text.startswith("TRUNCATED"))
        assert line == (f"TRUNCATED T1 journal {journal_id}: the journal's head is back at row 50: "
                        "rows 51..100 (50) published before are gone from it")
        with Journal.open(path) as journal:
            assert journal.verify().ok
            journal.append(*STARTED, ts=1764590000.0)
        await publish(broker, prefix, path, until=51)
        assert " Started " in await tail.row(51)  # a new row 51, not a repeat to drop
    finally:
        await tail.close()
    assert len(findings(tail.lines)) == 1, tail.lines


async def test_tail_verify_names_a_new_journal_and_exits_5(
        broker: MosquittoBroker, prefix: str, tmp_path: Path) -> None:
    old, new = journal_path(tmp_path / "old"), journal_path(tmp_path / "new")
    await append(old, 0, 5)
    await append(new, 0, 3)
    with Journal.open(old) as first, Journal.open(new) as second:
        old_id, new_id = first.journal_id, second.journal_id
    tail = await Tail.start(broker, prefix, "--count", "8")
    try:
        await publish(broker, prefix, old, until=5)
        await tail.row(5)
        await publish(broker, prefix, new, until=3)  # a new data directory: seq 1 again
        async with asyncio.timeout(20):
            rest, _ = await tail.process.communicate()
    finally:
        await tail.close()
    lines = [*tail.lines, *rest.decode().splitlines()]
    assert findings(lines) == [f"NEW JOURNAL T1: journal {new_id} replaces journal {old_id} (published up to row 5); "
                               "seq starts again"]
    assert [line.split()[1] for line in lines if line.startswith("T1 ")] == ["1", "2", "3", "4", "5", "1", "2", "3"]
    assert tail.process.returncode == 5
