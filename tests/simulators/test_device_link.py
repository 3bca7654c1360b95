"""The devices process and its link: the real pyusb driver reads chips held by another process's simulator.

The host is served on a real unix socket (in a thread here; `table-sim devices`
runs the same code as a process, exercised in tests/e2e/test_devices_process.py).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.chip_reader import ChipsScanned, ReaderOffline, ReaderOnline, ReaderSettings, UsbChipReader
from firmware_bridge.shoe import CardDrawn
from simulators.device_host import DeviceHost, read_state
from simulators.device_link import DeviceLink, DevicesGoneError, LinkedRfidBackend
from simulators.devices_console import serve
from simulators.rfid_backend import SIM_PRODUCT_ID, SIM_VENDOR_ID
from simulators.shoe_firmware import SimulatedShoeError


@pytest.fixture
def host(tmp_path: Path) -> Iterator[tuple[DeviceHost, str]]:
    device_host = DeviceHost(seed=3, boxes=2, shoe_link=tmp_path / "ttySHOE").start()
    lines: list[str] = []
    thread = threading.Thread(target=serve, args=(device_host, tmp_path), daemon=True,
                              kwargs={"idle_exit": 0, "announce": lambda line, flush: lines.append(line)})
    thread.start()
    try:
        await_ready = threading.Event()
        for _ in range(500):  # bounded: the host announces itself once its socket listens
            if lines:
                break
            await_ready.wait(0.02)
        state = read_state(tmp_path)
        assert lines and state is not None and lines[0] == f"ready {state['socket']}"
        yield device_host, str(state["socket"])
    finally:
        device_host.stopped.set()
        thread.join(timeout=10)
        device_host.stop()
    assert read_state(tmp_path) is None, "the state file goes with the devices"


async def scan(reader: UsbChipReader, zone: str, cents: int) -> ChipsScanned:
    """Until a scan of the reader shows `cents` on `zone`."""
    async with asyncio.timeout(10):
        while True:
            event = await reader.next_event()
            if isinstance(event, ChipsScanned):
                seen = {r.zone: sum(t.denomination_cents or 0 for t in r.tags) for r in event.readings}
                if seen.get(zone) == cents:
                    return event


def driver(socket_path: str, zones: list[str]) -> UsbChipReader:
    antennas = {index + 1: zone for index, zone in enumerate(zones)}
    return UsbChipReader(ReaderSettings(vendor_id=SIM_VENDOR_ID, product_id=SIM_PRODUCT_ID, antenna_zones=antennas,
                                        name="linked", scan_interval=0.02), backend=LinkedRfidBackend(socket_path))


@pytest.mark.timeout(60)
async def test_the_real_driver_reads_the_chips_the_hands_put_and_a_new_runtime_finds_them(
        host: tuple[DeviceHost, str]) -> None:
    device_host, socket_path = host
    hands = DeviceLink(socket_path)
    placed = hands.call("put", zone="box2", cents=3600)["chips"]
    assert sorted(cents for _, cents in placed) == [100, 1000, 2500]
    async with driver(socket_path, device_host.zones) as reader:
        online = await reader.next_event()
        assert isinstance(online, ReaderOnline) and online.serial == "SIM00001"
        await scan(reader, "box2", 3600)
        hands.call("put", zone="box1", cents=50)
        await scan(reader, "box1", 50)
    # the runtime is gone (its connections closed): a new one reads the same chips, with the same uids
    async with driver(socket_path, device_host.zones) as reader:
        scanned = await scan(reader, "box2", 3600)
        (box2,) = [r for r in scanned.readings if r.zone == "box2"]
        assert sorted(tag.uid for tag in box2.tags) == sorted(uid for uid, _ in placed)
    assert sorted(hands.call("zones")["zones"]["box2"]) == sorted(placed)
    assert sorted(hands.call("clear", zone="box2")["chips"]) == sorted(placed)
    assert hands.call("zones")["zones"]["box2"] == [] and hands.call("zones")["zones"]["box1"] != []


@pytest.mark.timeout(60)
async def test_the_shoe_draws_through_the_link_and_refusals_are_clear(host: tuple[DeviceHost, str]) -> None:
    device_host, socket_path = host
    hands = DeviceLink(socket_path)
    assert hands.call("hello")["shoe_link"] == str(device_host.shoe.link)
    assert device_host.shoe.link.exists()
    card = hands.call("draw")["card"]
    (drawn,) = device_host.shoe.sent_events
    assert isinstance(drawn, CardDrawn) and card == drawn.code and device_host.shoe.firmware.cards_drawn == 1
    device_host.shoe.firmware.gate_locked = True
    with pytest.raises(SimulatedShoeError, match="gate is locked"):
        hands.call("draw")
    with pytest.raises(ValueError, match="unknown op"):
        hands.call("juggle")
    with pytest.raises(ValueError, match="put"):
        hands.call("put", zone="box9", cents=100)


@pytest.mark.timeout(60)
def test_a_line_that_is_not_json_or_not_utf8_gets_a_one_line_refusal(host: tuple[DeviceHost, str]) -> None:
    _, socket_path = host
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(10)
        connection.connect(socket_path)
        replies = connection.makefile("rwb")
        for line in (b"{oops\n", b"\xc3(junk\n", b'{"op": "hello"}\n'):
            replies.write(line)
            replies.flush()
        refused = [json.loads(replies.readline()) for _ in range(2)]
        assert all(reply["ok"] is False and reply["message"].startswith("not JSON") for reply in refused)
        assert json.loads(replies.readline())["ok"] is True  # the same connection serves on


async def test_a_reader_behind_a_vanished_devices_process_is_offline(tmp_path: Path) -> None:
    missing = str(tmp_path / "nobody.sock")
    with pytest.raises(DevicesGoneError):
        DeviceLink(missing).call("hello")
    async with driver(missing, ["box1"]) as reader:
        event = await reader.next_event()
        assert isinstance(event, ReaderOffline) and "no reader" in event.reason  # nothing on the bus


@pytest.mark.timeout(60)
def test_devices_left_with_no_client_stop_by_themselves(tmp_path: Path) -> None:
    device_host = DeviceHost(seed=1, boxes=1, shoe_link=tmp_path / "ttySHOE").start()
    lines: list[str] = []
    try:
        serve(device_host, tmp_path, idle_exit=0.3, announce=lambda line, flush: lines.append(line))
    finally:
        device_host.stop()
    assert lines[0].startswith("ready ") and lines[-1] == "no client for 0.3 s: stopping"
    assert read_state(tmp_path) is None and not Path(lines[0].split(" ", 1)[1]).exists()
    assert not (tmp_path / "ttySHOE").exists()
