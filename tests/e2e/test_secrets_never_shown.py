"""No secret of the table ever appears in what its commands print or log.

Each secret the table has today (the MQTT password, the pit token, the supervisor PIN; the TLS key has
no passphrase setting, the dealer has no PIN) is set to a marker, and `check-config`, `run` (logging at
DEBUG, against a real Mosquitto that checks the password, with a pit screen, wrong and right PINs on
the display) and `demo` (logging at DEBUG) run as real processes: the marker is nowhere in their stdout,
stderr or log, nor in the journal file. A password inside the broker URL is refused by `check-config`,
`run` and `demo`, each naming the key and the variable to use, without printing it.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from simulators.mosquitto import MOSQUITTO, MosquittoBroker, free_port, make_password_file
from table_runtime.config import ENV_MQTT_PASSWORD, ENV_PIT_TOKEN, ENV_SUPERVISOR_PIN

REPO = Path(__file__).resolve().parents[2]
DEMO_CONFIG = REPO / "configs" / "demo.toml"
PASSWORD = "mqtt-secret-MARKER-7f3a"
TOKEN = "pit-token-MARKER-c41e"
PIN = "86420975"  # a PIN is digits: eight of them, found nowhere else in a run
REPLAY = "replay-secret-MARKER-2b9d-of-the-floor"  # the floor's replay secret (at least 16 bytes)
MARKERS = (PASSWORD, TOKEN, PIN, REPLAY)
USER = "table-t1"

pytestmark = [pytest.mark.timeout(180), pytest.mark.skipif(MOSQUITTO is None, reason="mosquitto is not installed")]


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[MosquittoBroker]:
    with MosquittoBroker(password_file=make_password_file(tmp_path / "mosquitto.pw", {USER: PASSWORD})) as running:
        yield running


def configuration(tmp_path: Path, *, port: int, url: str, username: str | None = USER) -> Path:
    text = DEMO_CONFIG.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^data_dir = .*$", f'data_dir = "{tmp_path / "data"}"', text)
    text = re.sub(r"(?m)^port = 8080$", f"port = {port}", text)
    user = f'\nusername = "{username}"' if username else ""
    text = re.sub(r'(?m)^prefix = "casino"$',
                  f'url = "{url}"\nprefix = "casino"{user}\nreplay_secret_env = "TABLE_REPLAY_SECRET"', text)
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TABLE_")}
    return {**env, ENV_MQTT_PASSWORD: PASSWORD, ENV_PIT_TOKEN: TOKEN, ENV_SUPERVISOR_PIN: PIN,
            "TABLE_MQTT_USERNAME": USER, "TABLE_REPLAY_SECRET": REPLAY}  # the demo's feed reads its user name there


def assert_no_marker(*texts: str) -> None:
    for text in texts:
        for marker in MARKERS:
            assert marker not in text, f"{marker!r} shown in:\n{text}"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "table_runtime", *args], capture_output=True, text=True,
                          timeout=60, cwd=REPO, env=environment(), check=False)


@pytest.mark.slow
def test_a_password_in_the_broker_url_is_refused_without_being_shown(tmp_path: Path) -> None:
    url = f"mqtt://{USER}:{PASSWORD}@127.0.0.1:1883"
    config = configuration(tmp_path, port=free_port(), url=url, username=None)
    checked = cli("check-config", str(config))
    assert checked.returncode == 1
    assert "mqtt.url:" in checked.stdout and ENV_MQTT_PASSWORD in checked.stdout
    assert "mqtt.password_file" in checked.stdout
    ran = cli("run", "--config", str(config), "--log-level", "DEBUG")
    assert ran.returncode == 2 and "mqtt.url:" in ran.stderr and ENV_MQTT_PASSWORD in ran.stderr
    demo = subprocess.run([sys.executable, "-m", "table_runtime", "demo", "--fast", "--rounds", "1", "--mqtt",
                           url], capture_output=True, text=True, timeout=60,
                          cwd=REPO, env=environment(), check=False)
    assert demo.returncode != 0 and ENV_MQTT_PASSWORD in demo.stderr
    assert_no_marker(checked.stdout, checked.stderr, ran.stdout, ran.stderr, demo.stdout, demo.stderr)
    assert not (tmp_path / "data").exists()  # refused before the journal was opened


def _snapshot(port: int) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/snapshot", timeout=5) as response:
            body: dict[str, object] = json.loads(response.read())
            return body
    except (urllib.error.URLError, ConnectionError):
        return None


def _devices(port: int) -> dict[str, str]:
    snapshot = _snapshot(port) or {}
    devices = snapshot.get("devices", {})
    return devices if isinstance(devices, dict) else {}


async def _use_the_secrets(port: int) -> None:
    """A pit screen with the token, then wrong and right supervisor PINs from the dealer's screen."""
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=15)) as session:
        async with session.ws_connect(f"http://127.0.0.1:{port}/ws?pit={TOKEN}") as pit:
            assert json.loads((await pit.receive()).data)["role"] == "pit"
        async with session.get(f"http://127.0.0.1:{port}/api/snapshot?pit=wrong-{TOKEN}") as refused:
            assert refused.status == 403
        async with session.ws_connect(f"http://127.0.0.1:{port}/ws") as dealer:
            for request, pin in enumerate(("1111", PIN), start=1):
                await dealer.send_json({"type": "command", "request": request, "name": "VOID", "pin": pin})
                while (reply := json.loads((await dealer.receive()).data))["type"] != "result":
                    pass
                assert reply["request"] == request


@pytest.mark.slow
def test_check_config_run_and_demo_never_show_a_secret(tmp_path: Path, broker: MosquittoBroker) -> None:
    port = free_port()
    config = configuration(tmp_path, port=port, url=broker.url)
    checked = cli("check-config", str(config))
    assert checked.returncode == 0, checked.stdout
    assert "secrets: supervisor PIN, pit token, mqtt password" in checked.stdout

    log = tmp_path / "run.log"
    with log.open("w", encoding="utf-8") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "table_runtime", "run", "--config", str(config),
                                    "--log-level", "DEBUG"], cwd=REPO, env=environment(), text=True,
                                   stdout=subprocess.PIPE, stderr=stderr)
        try:
            deadline = time.monotonic() + 60
            while _snapshot(port) is None:
                assert process.poll() is None and time.monotonic() < deadline, log.read_text(encoding="utf-8")
                time.sleep(0.1)
            while _devices(port).get("broker") != "online":  # the password was right: the feed is connected
                assert process.poll() is None and time.monotonic() < deadline, log.read_text(encoding="utf-8")
                time.sleep(0.1)
            asyncio.run(_use_the_secrets(port))
        finally:
            process.send_signal(signal.SIGTERM)
            stdout, _ = process.communicate(timeout=60)
    assert process.returncode == 0
    ran = log.read_text(encoding="utf-8")
    assert "DEBUG" in ran and "wrong supervisor PIN" in ran  # the log was at DEBUG and saw the PIN checks

    demo_port = free_port()
    demo = subprocess.run(
        [sys.executable, "-c", "import logging, sys; logging.basicConfig(level=logging.DEBUG); "
                               "from table_runtime.cli import main; sys.exit(main(sys.argv[1:]))",
         "demo", "--rounds", "1", "--pace", "0.01", "--http", f"127.0.0.1:{demo_port}", "--data-dir",
         str(tmp_path / "demo"), "--mqtt", broker.url],
        capture_output=True, text=True, timeout=120, cwd=REPO, env=environment(), check=False)
    assert demo.returncode == 0, demo.stderr
    assert "pit view:" in demo.stderr and "DEBUG" in demo.stderr
    journals = [path.read_bytes().decode("latin-1") for path in tmp_path.rglob("journal.db*")]
    assert journals
    assert_no_marker(checked.stdout, checked.stderr, stdout, ran, demo.stdout, demo.stderr, *journals)
