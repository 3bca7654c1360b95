"""`table-runtime run --config` as a real process on a copy of configs/demo.toml (every device simulated).

The process comes up (the display answers /api/snapshot), the simulated shoe
firmware on its pty announces its shoe through the real serial driver, the
simulated readers come online through pyusb, a touch command on the display
burns a card, SIGTERM ends it with exit 0 and a journal that verifies, and a
restart resumes the same shoe. With a broker, the feed ends on a retained
``offline`` status. A bad configuration exits 2 naming its keys.
"""

from __future__ import annotations

import asyncio
import dataclasses
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
from typing import Any

import aiohttp
import aiomqtt
import pytest

from drivers.shoe import SerialShoe
from firmware_bridge.rfid.messages import Tag
from simulators.mosquitto import MOSQUITTO, MosquittoBroker, free_port
from simulators.rfid_chips import ChipIssuer
from table_runtime.chips.registry import ChipRegistry
from table_runtime.config import ChipReaderConfig, DevicesConfig, DisplayConfig, MqttConfig, TableConfig, load_config
from table_runtime.errors import ConfigError
from table_runtime.journal import JournalClosedError
from table_runtime.runtime.assembly import assemble
from table_runtime.version import installed_version

REPO = Path(__file__).resolve().parents[2]
DEMO_CONFIG = REPO / "configs" / "demo.toml"
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 30.0

pytestmark = pytest.mark.timeout(120)


def table_config(tmp_path: Path, *, port: int, mqtt_url: str | None = None, prefix: str = "casino") -> Path:
    """configs/demo.toml with its data in tmp_path, the display on `port` and optionally a broker."""
    text = DEMO_CONFIG.read_text(encoding="utf-8")
    text = re.sub(r'(?m)^data_dir = .*$', f'data_dir = "{tmp_path / "data"}"', text)
    text = re.sub(r"(?m)^port = 8080$", f"port = {port}", text)
    if mqtt_url is not None:
        text = re.sub(r'(?m)^prefix = "casino"$', f'url = "{mqtt_url}"\nprefix = "{prefix}"', text)
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def cli(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "table_runtime", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO, check=False)


class RunningTable:
    """One `table-runtime run` process and its display's address."""

    def __init__(self, config: Path, port: int) -> None:
        self.port = port
        self.stderr_path = config.parent / f"run-{time.monotonic_ns()}.log"
        self._stderr = self.stderr_path.open("w", encoding="utf-8")
        env = {key: value for key, value in os.environ.items() if not key.startswith("TABLE_")}
        self.process = subprocess.Popen([sys.executable, "-m", "table_runtime", "run", "--config", str(config)],
                                        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=self._stderr)

    @property
    def log(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8")

    def snapshot(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/snapshot", timeout=5) as response:
            body: dict[str, Any] = json.loads(response.read())
        return body

    def wait_for(self, what: str, condition: Any, seconds: float = START_TIMEOUT_S) -> dict[str, Any]:
        """Poll the snapshot until `condition(snapshot)` holds (the process must stay alive)."""
        deadline = time.monotonic() + seconds
        last: dict[str, Any] | None = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the table exited ({self.process.returncode}) before {what}:\n{self.log}")
            try:
                last = self.snapshot()
            except (urllib.error.URLError, ConnectionError):
                last = None
            if last is not None and condition(last):
                return last
            time.sleep(0.1)
        raise AssertionError(f"no {what} within {seconds}s; last snapshot {last}\n{self.log}")

    def terminate(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=STOP_TIMEOUT_S)
        self._stderr.close()
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self._stderr.close()


@pytest.fixture
def started(tmp_path: Path) -> Iterator[tuple[Path, list[RunningTable]]]:
    """A configuration and the processes a test starts on it (killed if the test left one running)."""
    port = free_port()
    config = table_config(tmp_path, port=port)
    processes: list[RunningTable] = []
    yield config, processes
    for process in processes:
        process.kill()


def devices_online(snapshot: dict[str, Any]) -> bool:
    return bool(snapshot["devices"]["shoe"] == "online" and snapshot["devices"]["chips"] == "online"
                and snapshot["shoe"]["loaded"])


async def touch(port: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """One command from the dealer's touch screen, over the display's WebSocket; returns the result."""
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=15)) as session:
        async with session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws:
            await ws.send_json({"type": "command", "request": 1, "name": name, "args": args})
            async for message in ws:
                reply: dict[str, Any] = json.loads(message.data)
                if reply.get("type") == "result":
                    return reply
    raise AssertionError(f"no result for {name}")


@pytest.mark.slow
async def test_run_comes_up_plays_a_touch_and_stops_cleanly(started: tuple[Path, list[RunningTable]]) -> None:
    config, processes = started
    port = int(re.search(r"(?m)^port = (\d+)$", config.read_text()).group(1))  # type: ignore[union-attr]
    table = RunningTable(config, port)
    processes.append(table)

    # The simulated firmware announced shoe S1 over the pty; both simulated readers answered through pyusb.
    snapshot = table.wait_for("shoe and readers online", devices_online)
    assert snapshot["table_id"] == "DEMO1"
    assert snapshot["shoe"] == {"shoe_id": "S1", "cards_dealt": 0, "cards_left": 312, "burns_left": 5,
                                "cut_card_reached": False, "loaded": True, "online": True}
    assert snapshot["devices"]["broker"] == "disabled"
    assert set(snapshot["zones"]) == {f"box{box}{part}" for box in range(1, 8)
                                      for part in ("", ".behind", ".insurance")}

    # A card entered on the display burns the first card of the shoe.
    result = await touch(port, "MANUAL_CARD", {"card": "QS"})
    assert result["ok"], result
    burnt = table.wait_for("the burnt card", lambda s: s["shoe"]["cards_dealt"] == 1)
    assert burnt["shoe"]["burns_left"] == 4
    seq_before_stop = burnt["seq"]

    assert table.terminate() == 0, table.log
    assert "SIGTERM: stopping" in table.log
    # Off journald each line has its time and level; the first names the version; each device its identity.
    lines = table.log.splitlines()
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} (INFO|WARNING|ERROR|DEBUG) "
    assert all(re.match(stamp, line) for line in lines), table.log
    assert f"table-runtime {installed_version()} starting: table DEMO1" in lines[0]
    assert re.search(r"shoe online on \S+: serial SIM-SHOE-\S+, firmware sim-1.0, protocol 2, boot \d+; shoe S1, "
                     r"0 cards drawn", table.log), table.log
    for name in ("left", "right"):
        assert re.search(rf"chip reader {name} online: serial SIM\w+, firmware sim-1.0, protocol 1", table.log)
    data_dir = config.parent / "data"
    verify = cli("journal", "verify", "--data-dir", str(data_dir))
    assert verify.returncode == 0, verify.stdout + verify.stderr
    tail = cli("journal", "tail", "--data-dir", str(data_dir), "-n", "3", "--json")
    rows = [json.loads(line) for line in tail.stdout.splitlines()]
    assert rows[-1]["body"]["type"] == "Stopping"
    assert rows[-1]["seq"] > seq_before_stop

    # Restarted on the same data directory, the simulated shoe continues the same shoe.
    again = RunningTable(config, port)
    processes.append(again)
    resumed = again.wait_for("the shoe back online", devices_online)
    assert resumed["shoe"]["shoe_id"] == "S1"
    assert resumed["shoe"]["cards_dealt"] == 1
    assert resumed["shoe"]["burns_left"] == 4
    assert again.terminate() == 0, again.log
    assert cli("journal", "verify", "--data-dir", str(data_dir)).returncode == 0


@pytest.mark.skipif(not Path(MOSQUITTO).exists(), reason=f"{MOSQUITTO} is not installed")
@pytest.mark.slow
async def test_run_feed_ends_offline_on_sigterm(tmp_path: Path) -> None:
    """The feed carries the whole journal, the "Stopping" note last, then the retained offline status."""
    broker_dir = tmp_path / "broker"
    broker_dir.mkdir()
    with MosquittoBroker(directory=broker_dir) as broker:
        port = free_port()
        config = table_config(tmp_path, port=port, mqtt_url=broker.url, prefix="e2e")
        received: list[tuple[str, dict[str, Any]]] = []
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="e2e-watch") as watcher:
            await watcher.subscribe("e2e/tables/DEMO1/#", qos=1)
            table = RunningTable(config, port)
            try:
                await asyncio.to_thread(table.wait_for, "the broker online",
                                        lambda s: s["devices"]["broker"] == "online" and devices_online(s))
                assert await asyncio.to_thread(table.terminate) == 0, table.log
            finally:
                table.kill()
            async with asyncio.timeout(10):
                async for message in watcher.messages:
                    assert isinstance(message.payload, bytes)
                    body = json.loads(message.payload)
                    received.append((str(message.topic).rsplit("/", 1)[-1], body))
                    if received[-1][0] == "status" and body["status"] == "offline":
                        break
        events = [body for topic, body in received if topic == "events"]
        assert [event["seq"] for event in events] == list(range(1, len(events) + 1))  # the journal, in order
        assert {"Started", "ShoeShuffled", "ShoeStarted"} <= {event["type"] for event in events}
        offline = received[-1][1]
        assert offline["reason"] == "SIGTERM"
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="e2e-check") as client:
            await client.subscribe("e2e/tables/DEMO1/status", qos=1)
            async with asyncio.timeout(10):
                retained = await anext(aiter(client.messages))
        assert retained.retain
        assert isinstance(retained.payload, bytes)
        assert json.loads(retained.payload)["status"] == "offline"
        assert events[-1]["type"] == "Stopping"  # the feed stops only after the last row is published
        assert offline["seq"] == events[-1]["seq"]


def test_bad_config_exits_2_naming_each_key(tmp_path: Path) -> None:
    config = table_config(tmp_path, port=free_port())
    text = config.read_text(encoding="utf-8").replace("split = 19", "split = 99").replace(
        'language = "fr"', 'language = "de"')
    config.write_text(text + "\n[extra]\nwhat = 1\n", encoding="utf-8")
    result = cli("run", "--config", str(config))
    assert result.returncode == 2
    assert "pins.split: 99: not a BCM GPIO number" in result.stderr
    assert "display.language: 'de' is not one of fr, en" in result.stderr
    assert "extra: unknown key" in result.stderr
    assert not (tmp_path / "data").exists()  # nothing was opened


def test_missing_chip_registry_exits_2_naming_the_key(tmp_path: Path) -> None:
    config = table_config(tmp_path, port=free_port())
    text = config.read_text(encoding="utf-8").replace(
        'panel_pin_factory = "mock"', f'panel_pin_factory = "mock"\nchip_registry = "{tmp_path / "chips.sqlite"}"')
    config.write_text(text, encoding="utf-8")
    result = cli("run", "--config", str(config))
    assert result.returncode == 2
    assert "devices.chip_registry: no such file" in result.stderr
    assert not (tmp_path / "data").exists()


# ---------------------------------------------------------------- the assembly, in-process (no devices run)

def demo_config(tmp_path: Path, **changes: Any) -> TableConfig:
    config = load_config(table_config(tmp_path, port=free_port()), environ={})
    return config.replace(**changes) if changes else config


def test_assembly_maps_usb_readers_serial_shoe_and_feed_from_a_pi_like_config(tmp_path: Path) -> None:
    base = demo_config(tmp_path)
    readers = tuple(ChipReaderConfig(name=name, url=f"usb://1209:7ab1?serial={serial}", antennas=reader.antennas,
                                     vendor_id=0x1209, product_id=0x7AB1, serial_number=serial)
                    for name, serial, reader in zip(("left", "right"), ("RDR-0001", "RDR-0002"),
                                                    base.devices.chip_readers, strict=True))
    config = base.replace(
        devices=DevicesConfig(shoe="serial:///dev/table-shoe?baudrate=115200", chip_readers=readers,
                              panel_pin_factory="mock"),
        mqtt=MqttConfig(url="mqtts://table-T01@broker.casino.lan:8883", prefix="casino", password="s3cret",
                        client_id="table-T01"),
        display=DisplayConfig(host="127.0.0.1", port=0, language="en", supervisor_pin="4711",
                              pit_token="a-pit-token-of-16+"))
    with assemble(config) as table:
        assert table.simulated_shoe is None and table.simulated_readers == {}
        app = table.app
        assert isinstance(app.shoe, SerialShoe) and app.shoe.port == "/dev/table-shoe"
        assert [reader.config.serial for reader in app.readers] == ["RDR-0001", "RDR-0002"]  # type: ignore[attr-defined]
        assert all(reader.config.vendor_id == 0x1209 and reader._backend is None  # type: ignore[attr-defined]
                   for reader in app.readers)
        assert app.feed is not None
        settings = app.feed.settings
        assert (settings.broker.host, settings.broker.port, settings.broker.tls) == ("broker.casino.lan", 8883, True)
        assert settings.username == "table-T01"  # from the URL when [mqtt] has none
        assert settings.password is not None and settings.password.reveal() == "s3cret"
        assert "s3cret" not in repr(settings)
        assert settings.topics.status == "casino/tables/DEMO1/status"
        assert app.display is not None and app.display.url.startswith("http://127.0.0.1:")
        assert table.journal.path == tmp_path / "data" / "journal.db"
    with pytest.raises(JournalClosedError):
        table.journal.append("status", {"type": "late"}, ts=0.0)


def test_assembly_reads_a_csv_registry_and_takes_its_casino(tmp_path: Path) -> None:
    issuer = ChipIssuer(42, seed=1)
    issuer.stack(12_500)
    export = tmp_path / "chips.csv"
    export.write_text(issuer.csv(), encoding="utf-8")
    with assemble(demo_config(tmp_path, devices=dataclasses.replace(demo_config(tmp_path).devices,
                                                                     chip_registry=export))) as table:
        assert table.app.chips is not None
        watcher = table.app.chips
        assert watcher.casino_id == 42
        chip = next(iter(issuer.issued.values()))
        assert watcher.value_of(chip) == chip.denomination_cents
        assert sorted(table.simulated_readers) == ["left", "right"]
        assert table.simulated_shoe is not None and table.simulated_shoe.plugged
        shoe = table.simulated_shoe
    assert not shoe.plugged  # stopped with the assembly


def two_casinos_registry(tmp_path: Path) -> Path:
    """A registry holding chips of casinos 7 and 8."""
    registry_path = tmp_path / "chips.sqlite"
    with ChipRegistry(registry_path) as registry:
        for casino in (7, 8):
            issuer = ChipIssuer(casino, seed=casino)
            issuer.stack(500)
            registry.import_text(issuer.csv())
    return registry_path


def test_assembly_refuses_a_registry_of_two_casinos(tmp_path: Path) -> None:
    registry_path = two_casinos_registry(tmp_path)
    config = demo_config(tmp_path)
    with pytest.raises(ConfigError) as refused:
        assemble(config.replace(devices=dataclasses.replace(config.devices, chip_registry=registry_path)))
    assert refused.value.key == "devices.casino_id"
    assert "several casinos ([7, 8])" in refused.value.message
    assert not (tmp_path / "data").exists()


def test_devices_casino_id_names_the_casino_of_a_shared_registry(tmp_path: Path) -> None:
    registry_path = two_casinos_registry(tmp_path)
    with ChipRegistry(registry_path) as registry:
        ours, theirs = (next(chip for chip in registry.snapshot().values() if chip.casino_id == casino)
                        for casino in (8, 7))
    config = demo_config(tmp_path)
    devices = dataclasses.replace(config.devices, chip_registry=registry_path, casino_id=8)
    with assemble(config.replace(devices=devices), with_display=False, with_feed=False) as table:
        assert table.app.chips is not None
        watcher = table.app.chips
        assert watcher.casino_id == 8
        tag = {chip.uid: Tag(uid=chip.uid, denomination_cents=chip.denomination_cents, casino_id=chip.casino_id)
               for chip in (ours, theirs)}
        assert watcher.value_of(tag[ours.uid]) == ours.denomination_cents
        assert watcher.value_of(tag[theirs.uid]) == 0  # another casino's chip counts for nothing here


def test_assembly_names_the_reader_key_of_a_bad_antenna(tmp_path: Path) -> None:
    config = demo_config(tmp_path)
    left = config.devices.chip_readers[0]
    bad = dataclasses.replace(left, antennas={**left.antennas, 40: "box7.insurance"})
    with pytest.raises(ConfigError) as refused:
        assemble(config.replace(devices=dataclasses.replace(config.devices, chip_readers=(bad,))))
    assert refused.value.key == "devices.chip_readers[0].antennas"
    assert "antenna 40" in refused.value.message
    assert not (tmp_path / "data").exists()


# ------------------------------------------------- check-config refuses what run refuses, with the same key

def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _with_registry(tmp_path: Path, text: str) -> str:
    return text.replace('panel_pin_factory = "mock"',
                        f'panel_pin_factory = "mock"\nchip_registry = "{two_casinos_registry(tmp_path)}"')


@pytest.mark.parametrize(("case", "edit", "key"), [
    ("two casinos", _with_registry, "devices.casino_id"),
    ("no registry", lambda tmp, text: text.replace(
        'panel_pin_factory = "mock"', f'panel_pin_factory = "mock"\nchip_registry = "{tmp / "none.sqlite"}"'),
     "devices.chip_registry"),
    ("a reader URL option", lambda tmp, text: text.replace('"sim://reader?seed=2"', '"sim://reader?seed=2&speed=9"'),
     "devices.chip_readers[1].url"),
    ("a shoe stack file", lambda tmp, text: text.replace('"sim://shoe?seed=7"',
                                                        f'"sim://shoe?seed=7&stack={tmp / "no-stack.txt"}"'),
     "devices.shoe"),
    ("a shoe stack of no cards", lambda tmp, text: text.replace(
        '"sim://shoe?seed=7"', f'"sim://shoe?seed=7&stack={_write(tmp / "stack.txt", "AS KD XX")}"'),
     "devices.shoe"),
    ("a data dir under a file", lambda tmp, text: re.sub(r'(?m)^data_dir = .*$',
                                                         f'data_dir = "{tmp / "table.toml" / "data"}"', text),
     "data_dir"),
])
@pytest.mark.slow
def test_check_config_refuses_what_run_refuses(tmp_path: Path, case: str, edit: Any, key: str) -> None:
    config = table_config(tmp_path, port=free_port())
    config.write_text(edit(tmp_path, config.read_text(encoding="utf-8")), encoding="utf-8")
    checked = cli("check-config", str(config))
    assert checked.returncode == 1, (case, checked.stdout, checked.stderr)
    assert f"\n  {key}: " in checked.stdout, (case, checked.stdout)
    ran = cli("run", "--config", str(config))
    assert ran.returncode == 2, (case, ran.stderr)
    assert key in ran.stderr and "Traceback" not in ran.stderr, (case, ran.stderr)
    assert not (tmp_path / "data").exists()  # neither opened the journal
