"""Bench: a published snapshot to the dealer display's DOM updated, p50/p99, in the real page.

The display server runs with a small in-memory backend; headless system
Chromium shows the page at 1920x1080. For each update we read the wall clock,
call `server.publish(snapshot)`, and the page records, with a MutationObserver
on `<body data-seq>`, when the render that carries that `seq` finished. The
browser's clock is set against ours first (the round trip of a few evaluate
calls, the best one kept), so the figure covers JSON encoding, the WebSocket,
the page's parse, its once-per-frame render scheduling and the full render.

Updates are sent one at a time (the next after the page showed the previous),
as a table changes: a card, a stake, a payout. Each snapshot is a full table
of seven boxes.

Run: python -m bench.display [--updates 300] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from playwright.async_api import Page, async_playwright

from table_runtime.display import DisplayServer

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
_OBSERVER = """
() => {
  window.__renderedAt = {};
  new MutationObserver(() => {
    window.__renderedAt[document.body.dataset.seq] = performance.timeOrigin + performance.now();
  }).observe(document.body, { attributes: true, attributeFilter: ["data-seq"] });
}
"""
CARDS = ["AS", "7H", "TD", "2C", "9S", "KH", "5D", "QC", "3S", "8H", "JD", "4C", "6S"]


class BenchBackend:
    """A DisplayBackend that serves the bench's snapshot and refuses every command."""

    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.current = snapshot

    def snapshot(self) -> dict[str, Any]:
        return self.current

    async def command(self, name: str, args: dict[str, Any], *, role: str) -> dict[str, Any]:
        return {"ok": False, "message": "the bench table takes no commands"}

    def recall(self, last: int) -> list[dict[str, Any]]:
        return []

    async def security_alarm(self, kind: str, message: str, rule: str) -> None:
        raise AssertionError(f"the bench enters no PIN, yet: {message}")

    def ratings(self) -> dict[str, Any]:
        return {"sessions": [], "flags": []}  # the bench's table rates nobody


def table_snapshot(seq: int) -> dict[str, Any]:
    """A full seven-box table in play; which cards and stakes change with `seq`."""
    boxes = []
    for number in range(1, 8):
        cards = [CARDS[(seq + number + k) % len(CARDS)] for k in range(2 + (seq + number) % 3)]
        stake = 500 * (1 + (seq + number) % 9)
        boxes.append(
            {
                "box": number,
                "owner": f"seat{number}",
                "seated_cents": stake,
                "behind": [{"owner": f"b{number}", "cents": 500}] if number % 2 else [],
                "insurance_cents": 0,
                "insurance_offered": False,
                "hands": [
                    {
                        "cards": cards,
                        "total": 12 + (seq + number) % 10,
                        "soft": (seq + number) % 4 == 0,
                        "stakes_cents": stake + (500 if number % 2 else 0),
                        "doubled": False,
                        "from_split": False,
                        "status": "playing" if number == 1 + seq % 7 else "stood",
                    }
                ],
                "payouts": [],
                "net_cents": None,
            }
        )
    turn = 1 + seq % 7
    return {
        "schema_version": 1,
        "table_id": "T1",
        "seq": seq,
        "round": 1 + seq // 50,
        "phase": "playing",
        "profile": "fr-casino",
        "limits": {"min_cents": 500, "max_cents": 500000},
        "turn": {"box": turn, "hand": 0},
        "allowed": ["NEXT", "DOUBLE", "UNDO"],
        "next_card": f"box{turn}.hand0",
        "bank": {"cards": ["AS"], "total": 11, "soft": True, "blackjack": False, "busted": False, "must_draw": False},
        "boxes": boxes,
        "held_cards": [],
        "shoe": {
            "shoe_id": "S-1",
            "cards_dealt": seq % 312,
            "cards_left": 312 - seq % 312,
            "burns_left": 0,
            "cut_card_reached": False,
            "online": True,
        },
        "alarms": [],
        "recovered": False,
        "devices": {"shoe": "online", "chips": "online", "broker": "online"},
    }


async def clock_offset_ms(page: Page, samples: int = 30) -> tuple[float, float]:
    """(browser clock - our clock, uncertainty) in ms, from the evaluate round trip with the least delay."""
    best: tuple[float, float] | None = None
    for _ in range(samples):
        before = time.time() * 1000
        browser: float = await page.evaluate("performance.timeOrigin + performance.now()")
        after = time.time() * 1000
        round_trip = after - before
        if best is None or round_trip < best[1] * 2:
            best = (browser - (before + after) / 2, round_trip / 2)
    assert best is not None
    return best


async def run(args: argparse.Namespace) -> int:
    backend = BenchBackend(table_snapshot(1))
    async with DisplayServer(backend, port=0) as server, async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1920, "height": 1080})
            await page.goto(server.url)
            await page.wait_for_function("() => document.body.dataset.seq === '1'", timeout=10_000)
            await page.evaluate(_OBSERVER)
            offset, uncertainty = await clock_offset_ms(page)
            published: dict[int, float] = {}
            for seq in range(2, args.updates + 2 + args.warmup):
                snapshot = table_snapshot(seq)
                backend.current = snapshot
                published[seq] = time.time() * 1000
                await server.publish(snapshot)
                await page.wait_for_function(
                    "(seq) => window.__renderedAt[seq] !== undefined", arg=str(seq), timeout=5_000
                )
            rendered: dict[str, float] = await page.evaluate("window.__renderedAt")
        finally:
            await browser.close()

    measured = sorted(seq for seq in published if seq >= 2 + args.warmup)
    latencies = sorted(rendered[str(seq)] - offset - published[seq] for seq in measured)
    p99 = latencies[min(len(latencies) - 1, round(0.99 * (len(latencies) - 1)))]
    print("command: " + shlex.join(["python", "-m", "bench.display", *sys.argv[1:]]))
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print(f"clock offset browser-python {offset:.2f} ms (+/- {uncertainty:.2f} ms)")
    print(
        f"publish -> DOM updated (full 7-box table), n={len(latencies)}: p50 {statistics.median(latencies):.1f} ms, "
        f"p99 {p99:.1f} ms, max {latencies[-1]:.1f} ms"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.display", description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=300, help="measured updates (default 300)")
    parser.add_argument("--warmup", type=int, default=20, help="updates sent first and not measured (default 20)")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the system Chromium")
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
