"""Bench: the dealer's snapshot while pit screens recall rounds in a loop, p50/p99.

The display server runs on the real runtime (`TableApp`) over a journal of N rounds filled by the fast
demo table, so each recall replays that journal as on a table at the end of a long shift. A second
process (so its work does not share the server's interpreter) opens the dealer's screen and asks
``/api/snapshot`` every 20 ms, timing each answer, while P pit screens each send a recall of the last 10
rounds on their WebSocket, wait for the reply and ask again as soon as their screen may (once a second).
Three runs: no pit screen (idle), P pit screens through the display's recall gate (recall_gate.py), and
P pit screens without it (``ungated``: each recall in its own thread as soon as asked, its JSON encoded
on the event loop: the display before the gate).

Run: python -m bench.display_recall [--rounds 1000] [--pit 5] [--seconds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import aiohttp

from simulators.fast_table import FastTable
from table_runtime.display import DisplayServer
from table_runtime.display.recall_gate import RECALL_INTERVAL_S, RecallClient, RecallGate, RecallRefused
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.runtime.app import TableApp
from table_runtime.runtime.controller import TableController

TOKEN = "bench-pit-token-0123"
SNAPSHOT_EVERY_S = 0.02


class UngatedRecall(RecallGate):
    """The display before its gate: per screen once a second, else every recall at once in its own thread,
    and the rounds encoded on the event loop."""

    async def recall(self, client: RecallClient, last: int, *, dealer: bool,
                     envelope: dict[str, Any] | None = None) -> str:
        now = time.monotonic()
        if now - client.last_request < RECALL_INTERVAL_S:
            raise RecallRefused("recall: one request a second on this screen")
        client.last_request = now
        rounds = await asyncio.to_thread(self._recall, last)
        self.ran += 1
        return json.dumps(rounds if envelope is None else {**envelope, "rounds": rounds}, separators=(",", ":"))


# --- the client process ----------------------------------------------------------------------------

async def _pit_screen(http: aiohttp.ClientSession, url: str, stop: float, counts: dict[str, int]) -> None:
    async with http.ws_connect(f"{url}ws?pit={TOKEN}", max_msg_size=0) as ws:
        request = 0
        while time.monotonic() < stop:
            request += 1
            asked = time.monotonic()
            await ws.send_json({"type": "recall", "last": 10, "request": request})
            while True:
                reply = json.loads((await ws.receive(timeout=60)).data)
                if reply.get("type") == "recall" and reply.get("request") == request:
                    break
            counts["recalled" if reply["rounds"] else "refused"] += 1
            await asyncio.sleep(max(0.0, asked + RECALL_INTERVAL_S - time.monotonic()))  # as soon as allowed


async def _clients(url: str, pit: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    counts = {"recalled": 0, "refused": 0}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as http:
        stop = time.monotonic() + seconds
        screens = [asyncio.create_task(_pit_screen(http, url, stop, counts)) for _ in range(pit)]
        await asyncio.sleep(1.0 if pit else 0.0)  # the pit screens are recalling before we measure
        while time.monotonic() < stop:
            started = time.perf_counter()
            async with http.get(f"{url}api/snapshot") as response:
                await response.read()
            latencies.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(SNAPSHOT_EVERY_S)
        await asyncio.gather(*screens)
    return {"latencies_ms": latencies, **counts}


# --- the server process ----------------------------------------------------------------------------

async def _measure(app: TableApp, pit: int, seconds: float, *, gated: bool) -> dict[str, Any]:
    async with DisplayServer(app, port=0, pit_token=TOKEN) as server:
        if not gated:
            server.recall_gate = UngatedRecall(app.recall)
        client = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.display_recall", "--client", server.url, "--pit", str(pit),
            "--seconds", str(seconds), stdout=subprocess.PIPE)
        out, _ = await client.communicate()
        result: dict[str, Any] = json.loads(out)
        result["ran"] = server.recall_gate.ran
        return result


def _line(name: str, result: dict[str, Any]) -> str:
    latencies = sorted(result["latencies_ms"])
    p99 = latencies[min(len(latencies) - 1, round(0.99 * (len(latencies) - 1)))]
    return (f"{name:<28} snapshot n={len(latencies)}: p50 {statistics.median(latencies):.1f} ms, p99 {p99:.1f} ms, "
            f"max {latencies[-1]:.1f} ms; recalls answered {result['recalled']}, refused {result['refused']}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.display_recall", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000, help="rounds in the journal (default 1000)")
    parser.add_argument("--pit", type=int, default=5, help="pit screens recalling in a loop (default 5)")
    parser.add_argument("--seconds", type=float, default=15.0, help="length of each run (default 15)")
    parser.add_argument("--client", help=argparse.SUPPRESS)  # the client process: the display's address
    args = parser.parse_args(argv)
    if args.client:
        print(json.dumps(asyncio.run(_clients(args.client, args.pit, args.seconds))))
        return 0
    rules, limits = profile("fr-casino"), TableLimits()
    with tempfile.TemporaryDirectory(prefix="display-recall-") as tmp, \
            Journal.open(journal_path(Path(tmp))) as journal:
        journal._db().execute("PRAGMA synchronous=OFF")  # filling only
        controller = TableController(table_id="T", rules=rules, limits=limits, journal=journal, clock=time.time)
        FastTable(controller, seed=5, error_rate=0.0).run(args.rounds)
        app = TableApp(controller)
        started = time.perf_counter()
        app.recall(10)
        one_recall = time.perf_counter() - started
        idle = asyncio.run(_measure(app, 0, args.seconds, gated=True))
        gated = asyncio.run(_measure(app, args.pit, args.seconds, gated=True))
        ungated = asyncio.run(_measure(app, args.pit, args.seconds, gated=False))
        rows = journal.last_seq
    print("command: " + shlex.join(["python", "-m", "bench.display_recall", *(argv or sys.argv[1:])]))
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print(f"journal of {args.rounds} rounds ({rows} rows): one recall of the last 10 rounds {one_recall:.2f} s")
    print(_line("idle (no pit screen)", idle))
    print(_line(f"{args.pit} pit screens, gated", gated))
    print(_line(f"{args.pit} pit screens, ungated", ungated))
    return 0


if __name__ == "__main__":
    sys.exit(main())
