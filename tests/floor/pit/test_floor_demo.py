"""`table-floor demo`: one command brings up a floor (broker, database, the floor service, N real table processes,
the pit page); the page shows the N tables live and their dealers on shift, the store fills, and Ctrl-C stops it all
and leaves nothing behind."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from simulators.mosquitto import free_port
from simulators.postgres import find_bin
from tests.floor.support import connected

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(180),
              pytest.mark.skipif(find_bin() is None, reason="PostgreSQL is not installed")]

ROOT = Path(__file__).resolve().parents[3]
TABLES = 3


async def line_with(stream: asyncio.StreamReader, prefix: str, seen: list[str]) -> str:
    while True:
        raw = await stream.readline()
        if not raw:
            raise AssertionError(f"the demo ended before printing {prefix!r}: {seen}")
        line = raw.decode().strip()
        seen.append(line)
        if line.startswith(prefix):
            return line


@pytest.mark.slow
async def test_the_demo_shows_a_live_floor_of_n_tables_and_stops_cleanly(page: Page) -> None:
    demo = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "casino_floor", "demo", "--tables", str(TABLES),
        "--http", f"127.0.0.1:{free_port()}", "--pace", "0.2", "--seconds", "150", "--staff",
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    assert demo.stdout is not None
    seen: list[str] = []
    try:
        async with asyncio.timeout(90):
            dsn = (await line_with(demo.stdout, "database: ", seen)).removeprefix("database: ")
            url = (await line_with(demo.stdout, "pit page: ", seen)).removeprefix("pit page: ")
            logs = Path(re.sub(r".*logs in (.*)\)$", r"\1", await line_with(demo.stdout, "tables: ", seen)))
        await page.goto(url)
        cards = page.locator("#tables .table")
        await expect(cards).to_have_count(TABLES, timeout=30_000)
        assert await cards.evaluate_all("cs => cs.map(c => c.dataset.table)") == ["T01", "T02", "T03"]
        for index in range(TABLES):
            await expect(cards.nth(index)).to_have_attribute("data-status", "online", timeout=30_000)
            await expect(cards.nth(index)).to_have_attribute("data-phase", re.compile(r"^[a-z]+$"), timeout=30_000)
        # The tables play: a round is settled somewhere on the floor, and the pit counts its stakes (the handle).
        await expect(page.locator("#pit-totals .handle")).not_to_have_text("0,00\u00a0€", timeout=60_000)
        # Each table's players bought in as its shoe started: the pit shows the drop and the hold over it.
        await expect(page.locator("#pit-totals .drop")).to_have_text(f"{TABLES}\u202f000,00\u00a0€", timeout=60_000)
        await expect(page.locator("#pit-totals .hold")).not_to_have_text("—")
        # A regular swipes his player card at each new shoe and the dealer taps his box: a rated session, on the
        # table's ratings channel, shown on the pit page by his pseudonym (never his card number) with its theo.
        rated = page.locator("#rated tr[data-player^='p-']")
        await expect(rated.first).to_be_visible(timeout=60_000)
        await expect(rated.first.locator(".theo")).to_have_text(re.compile(r"\d+,\d\d\u00a0€"))
        # Under the staff registry each table starts on its own dealer (they rotate from table to table), shown
        # on the pit page by employee id with his pace.
        dealers = page.locator("#dealers tbody tr")
        await expect(dealers).to_have_count(TABLES, timeout=30_000)
        assert await dealers.evaluate_all("rs => rs.map(r => r.dataset.table + ':' + r.dataset.employee)") == \
            ["T01:D01", "T02:D02", "T03:D03"]
        await expect(dealers.first.locator(".rounds")).not_to_have_text("0", timeout=60_000)
        # The floor service stored the tables' journals meanwhile, in the throwaway database.
        async with connected(dsn) as connection:
            stored = await connection.fetch("SELECT table_id, count(*) AS rows FROM events GROUP BY table_id")
            bought = await connection.fetch("SELECT table_id, cents FROM buy_ins ORDER BY seq")
            sessions = await connection.fetch("SELECT table_id, player FROM rated_sessions WHERE player LIKE 'p-%'")
            # The regulars' card numbers (simulators/live_table.py: 40000000 to 40000011) are in no row of any
            # table of the floor's store: the tables pseudonymise a card before it enters their journal and feed.
            names = [row["tablename"] for row in await connection.fetch(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
            everything = [await connection.fetchval(
                f"SELECT coalesce(string_agg(t::text, chr(10)), '') FROM \"{name}\" t") for name in names]
        in_clear = re.compile(r"(?<![0-9a-f])400000(0[0-9]|1[01])(?![0-9])")
        assert not [match.group(0) for text in everything for match in in_clear.finditer(text)]
        assert sessions and all(re.fullmatch(r"p-[0-9a-f]{12}", row["player"]) for row in sessions)
        assert {row["table_id"] for row in stored if row["rows"] > 0} == {"T01", "T02", "T03"}
        assert {row["table_id"] for row in bought} == {"T01", "T02", "T03"}  # a new shoe: another buy-in
        assert {row["cents"] for row in bought} == {100_000}
        demo.send_signal(signal.SIGINT)
        async with asyncio.timeout(60):
            rest, _ = await demo.communicate()
    finally:
        if demo.returncode is None:
            demo.kill()
            await demo.wait()
    output = "\n".join(seen) + "\n" + rest.decode()
    assert demo.returncode == 0, output[-3000:]
    assert "floor demo stopped" in output
    # Its end says what the shift was, as the store has it: the tables, rounds, handle, drop, win and alarms.
    shift = re.search(r"(?m)^shift \S+ UTC: (\d+) table\(s\), (\d+) round\(s\), handle (\d+\.\d\d) €, "
                      r"drop (\d+\.\d\d) €, win (-?\d+\.\d\d) €, (\d+) alarm\(s\)", output)
    assert shift is not None, output[-3000:]
    assert int(shift[1]) == TABLES and int(shift[2]) > 0 and float(shift[3]) > 0
    assert float(shift[4]) >= TABLES * 1000  # each table's buy-in at its first shoe
    assert not logs.parent.exists(), "the demo's temporary directory is left behind"
