"""`table-runtime demo` as a newcomer runs it: the defaults in --help, the supervisor PIN and the pit token
(options or environment) that make the supervisor's alarms clearable and the pit view open on a live game,
and terminal lines that show stakes, totals and alarm kinds."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from simulators.mosquitto import free_port

ROOT = Path(__file__).resolve().parents[2]
PIN = "2468"
TOKEN = "pit-view-token-0123"
# The head of every line: round, phase (and whose turn), then the bank's cards and total.
CARD = "[2-9TJQKA][CDHS]"
LINE = re.compile(rf"round +\d+ \w+ *( turn box\d)? \| bank \[({CARD}( {CARD})*)?\]( (soft )?\d+)?")
BOX = re.compile(r"box\d (\d+\.\d\d) €( \+\d+\.\d\d € behind)?( \+\d+\.\d\d € insurance)? \[([^\]]*)\]( (soft )?\d+)?")

pytestmark = pytest.mark.timeout(180)


def demo(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "table_runtime", "demo", *args], cwd=ROOT, text=True,
                            env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_help_shows_the_defaults() -> None:
    shown = subprocess.run([sys.executable, "-m", "table_runtime", "demo", "--help"], capture_output=True,
                           text=True, check=True, cwd=ROOT).stdout
    flat = " ".join(shown.split())
    assert "seconds between the dealer's actions (live) (default: 0.6)" in flat
    assert "how often the simulated dealer errs (default: 0.05)" in flat
    assert "(default: 127.0.0.1:8080)" in flat and "TABLE_SUPERVISOR_PIN" in flat and "TABLE_PIT_TOKEN" in flat


@pytest.mark.slow
def test_each_terminal_line_shows_stakes_totals_and_alarm_kinds(tmp_path: Path) -> None:
    process = demo("--rounds", "4", "--pace", "0.01", "--http", "off", "--seed", "11", "--error-rate", "0.5",
                   "--data-dir", str(tmp_path))
    out, err = process.communicate(timeout=150)
    assert process.returncode == 0, err
    lines = [line for line in out.splitlines() if line.startswith("round ")]
    counted = dict(re.findall(r"(?m)^  alarm (\w+): (\d+)$", out))  # the summary after the live lines
    assert lines and counted, out
    kinds_seen: set[str] = set()
    for line in lines:
        assert LINE.match(line), line
        for stake, _, _, cards, total, _ in BOX.findall(line):
            assert float(stake) > 0, line  # a box in play has its stake
            assert not cards or total, line  # cards come with their total
        if "ALARMS " in line:
            kinds_seen |= {item.split()[0] for item in line.split("ALARMS ", 1)[1].split(", ")}
    boxes = [box for line in lines for box in BOX.findall(line)]
    assert any(cards and total for _, _, _, cards, total, _ in boxes), "hands with their cards and totals"
    assert any(" net " in line for line in lines)  # a settled box says what it won or lost
    assert any("€ on the table" in line for line in lines)  # what the chip readers see
    assert kinds_seen and kinds_seen <= set(counted), (kinds_seen, counted)


async def _hello(session: aiohttp.ClientSession, url: str) -> tuple[aiohttp.ClientWebSocketResponse, dict[str, Any]]:
    ws = await session.ws_connect(url)
    hello: dict[str, Any] = json.loads((await ws.receive()).data)
    assert hello["type"] == "hello"
    return ws, hello


@pytest.mark.parametrize("through", ["options", "environment"])
async def test_the_supervisor_clears_an_alarm_and_the_pit_view_opens_on_a_live_demo(through: str,
                                                                                     tmp_path: Path) -> None:
    port = free_port()
    secrets = ["--supervisor-pin", PIN, "--pit-token", TOKEN] if through == "options" else []
    env = {"TABLE_SUPERVISOR_PIN": PIN, "TABLE_PIT_TOKEN": TOKEN} if through == "environment" else {}
    process = demo("--pace", "0.02", "--http", f"127.0.0.1:{port}", "--seed", "11", "--error-rate", "0.5",
                   "--data-dir", str(tmp_path), *secrets, env=env)
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
            async with asyncio.timeout(60):
                while True:
                    try:
                        dealer, hello = await _hello(session, f"http://127.0.0.1:{port}/ws")
                        break
                    except aiohttp.ClientConnectionError:
                        assert process.poll() is None, process.communicate()[1]
                        await asyncio.sleep(0.1)
            assert hello["role"] == "dealer" and hello["supervisor"] is True
            pit, pit_hello = await _hello(session, f"http://127.0.0.1:{port}/ws?pit={TOKEN}")
            assert pit_hello["role"] == "pit"
            await pit.close()

            async with asyncio.timeout(90):  # the simulated dealer short-pays a box now and then
                alarm = None
                while alarm is None:
                    message = json.loads((await dealer.receive()).data)
                    if message["type"] == "snapshot":
                        alarm = next((a for a in message["snapshot"]["alarms"] if a["supervisor"]), None)
                await dealer.send_json({"type": "command", "request": 7, "name": "ACK_ALARM",
                                        "args": {"id": alarm["id"]}, "pin": PIN})
                while (message := json.loads((await dealer.receive()).data))["type"] != "result":
                    pass
            assert message["ok"], message
            await dealer.close()
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert f"pit view: http://127.0.0.1:{port}/?pit=<the pit token>" in err
    assert TOKEN not in err  # a secret is never printed


@pytest.mark.parametrize(("option", "value", "words"), [
    ("--supervisor-pin", "12ab", "--supervisor-pin: the supervisor PIN is 4 to 8 digits"),
    ("--pit-token", "short", "--pit-token: the pit token is at least 16 characters"),
])
def test_a_bad_pin_or_token_is_one_line(option: str, value: str, words: str) -> None:
    process = demo("--fast", "--rounds", "1", option, value)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2 and err.splitlines() == [f"table-runtime: error: {words}"]


def test_a_display_beyond_loopback_without_the_pit_token_is_one_line(tmp_path: Path) -> None:
    process = demo("--rounds", "1", "--http", f"0.0.0.0:{free_port()}", "--data-dir", str(tmp_path / "data"),
                   env={"TABLE_PIT_TOKEN": ""})
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2 and err.splitlines() == [
        "table-runtime: error: --http: '0.0.0.0' serves the display to other machines: that needs --pit-token "
        "(or TABLE_PIT_TOKEN), else 127.0.0.1"]
    assert not (tmp_path / "data").exists()  # refused before anything was opened
