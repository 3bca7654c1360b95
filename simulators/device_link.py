"""The runtime's end of the devices process (`simulators.device_host`): a pyusb backend and the dealer's hands.

`LinkedRfidBackend` is a `usb.backend.IBackend`: the real pyusb driver
(`drivers.chip_reader.UsbChipReader`) finds the simulated reader through it and
its bulk transfers cross a unix socket to the process that holds the chips.
`RemoteDevices` is the demo table's `TableDevices` over that process: the shoe
is its pty (read by the real serial driver), the reader is behind the linked
backend, and the simulated dealer's draws and chips are requests to it.
`attach_devices` reattaches to the devices recorded in the data directory, or
starts them (`table-sim devices`) when none run.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import json
import os
import socket
import subprocess
import sys
import threading
import time
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import usb.backend
import usb.core

from firmware_bridge.rfid import Tag
from simulators.demo_tray import tray_rows
from simulators.device_host import read_state
from simulators.live_table import DEMO_PINS, TableDevices, demo_reporter
from simulators.shoe_firmware import SimulatedShoeError
from table_runtime.config import zone_names
from table_runtime.errors import ConfigError, DeviceError
from table_runtime.game.cards import Card
from table_runtime.game.shoe_count import shoe_number_of
from table_runtime.runtime.controller import TableController

START_TIMEOUT_S = 20.0  # a loaded machine may take seconds to start a Python process


class DevicesGoneError(DeviceError, ConnectionError):
    """The devices process cannot be reached (not running, or its socket closed)."""


class DeviceLink:
    """One connection to the devices process: one request, one reply, in order; reconnects after a loss."""

    def __init__(self, socket_path: str, *, timeout: float = 10.0) -> None:
        self.socket_path = socket_path
        self.timeout = timeout
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._file: Any = None

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one request; the reply (``ok`` true or false). Raises `DevicesGoneError` when the link is down."""
        with self._lock:
            try:
                if self._socket is None:
                    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    connection.settimeout(self.timeout)
                    try:
                        connection.connect(self.socket_path)
                    except OSError:
                        connection.close()
                        raise
                    self._socket, self._file = connection, connection.makefile("rwb")
                self._file.write(json.dumps({"op": op, **fields}).encode() + b"\n")
                self._file.flush()
                line = self._file.readline()
                if not line:
                    raise ConnectionResetError("the devices process closed the link")
            except OSError as error:
                self._close()
                raise DevicesGoneError(f"devices at {self.socket_path}: {error}") from error
        reply: dict[str, Any] = json.loads(line)
        return reply

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        """`request`, raising the host's refusal: `SimulatedShoeError` for the shoe, `ValueError` otherwise."""
        reply = self.request(op, **fields)
        if reply.get("ok"):
            return reply
        if reply.get("error") == "shoe":
            raise SimulatedShoeError(str(reply.get("message")))
        raise ValueError(f"devices refused {op}: {reply.get('message')}")

    def _close(self) -> None:
        for closing in (self._file, self._socket):
            if closing is not None:
                with contextlib.suppress(OSError):
                    closing.close()
        self._socket = self._file = None

    def close(self) -> None:
        with self._lock:
            self._close()


# -- the USB side -------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _RemoteDevice:
    index: int
    generation: int


@dataclass(frozen=True, slots=True)
class _RemoteHandle:
    number: int


@dataclass(frozen=True, slots=True)
class _Fields:
    """A descriptor: pyusb reads its fields as attributes."""

    fields: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            value = self.fields[name]
        except KeyError:
            raise AttributeError(name) from None
        return tuple(value) if name == "port_numbers" else value


def _no_device(reason: str) -> usb.core.USBError:
    return usb.core.USBError(f"No such device ({reason})", -4, errno.ENODEV)


class LinkedRfidBackend(usb.backend.IBackend):  # type: ignore[misc]
    """A pyusb backend whose devices are the readers of a devices process, reached over its unix socket."""

    def __init__(self, socket_path: str) -> None:
        super().__init__()
        self.link = DeviceLink(socket_path)

    def _usb(self, op: str, **fields: Any) -> dict[str, Any]:
        try:
            reply = self.link.request(op, **fields)
        except DevicesGoneError as error:
            raise _no_device(str(error)) from error
        if reply.get("ok"):
            return reply
        message, code, number = str(reply.get("message")), reply.get("code"), reply.get("errno")
        if reply.get("error") == "usb_timeout":
            raise usb.core.USBTimeoutError(message, code, number)
        if reply.get("error") == "usb":
            raise usb.core.USBError(message, code, number)
        raise IndexError(message)

    def enumerate_devices(self) -> list[_RemoteDevice]:
        try:
            devices = self._usb("usb_enumerate")["devices"]
        except usb.core.USBError:
            return []  # the devices process is away: nothing on the bus
        return [_RemoteDevice(int(index), int(generation)) for index, generation in devices]

    def get_parent(self, dev: _RemoteDevice) -> None:
        return None

    def _descriptor(self, kind: str, dev: _RemoteDevice, *args: int) -> _Fields:
        return _Fields(self._usb("usb_descriptor", kind=kind, device=[dev.index, dev.generation], args=list(args))
                       ["fields"])

    def get_device_descriptor(self, dev: _RemoteDevice) -> _Fields:
        return self._descriptor("device", dev)

    def get_configuration_descriptor(self, dev: _RemoteDevice, config: int) -> _Fields:
        return self._descriptor("configuration", dev, config)

    def get_interface_descriptor(self, dev: _RemoteDevice, intf: int, alt: int, config: int) -> _Fields:
        return self._descriptor("interface", dev, intf, alt, config)

    def get_endpoint_descriptor(self, dev: _RemoteDevice, ep: int, intf: int, alt: int, config: int) -> _Fields:
        return self._descriptor("endpoint", dev, ep, intf, alt, config)

    def open_device(self, dev: _RemoteDevice) -> _RemoteHandle:
        return _RemoteHandle(int(self._usb("usb_open", device=[dev.index, dev.generation])["handle"]))

    def close_device(self, dev_handle: _RemoteHandle) -> None:
        with contextlib.suppress(usb.core.USBError, IndexError):
            self._usb("usb_close", handle=dev_handle.number)

    def _call(self, name: str, dev_handle: _RemoteHandle, *args: int) -> Any:
        return self._usb("usb_call", name=name, handle=dev_handle.number, args=list(args)).get("value")

    def set_configuration(self, dev_handle: _RemoteHandle, config_value: int) -> None:
        self._call("set_configuration", dev_handle, config_value)

    def get_configuration(self, dev_handle: _RemoteHandle) -> int:
        return int(self._call("get_configuration", dev_handle))

    def set_interface_altsetting(self, dev_handle: _RemoteHandle, intf: int, altsetting: int) -> None:
        self._call("set_interface_altsetting", dev_handle, intf, altsetting)

    def claim_interface(self, dev_handle: _RemoteHandle, intf: int) -> None:
        self._call("claim_interface", dev_handle, intf)

    def release_interface(self, dev_handle: _RemoteHandle, intf: int) -> None:
        self._call("release_interface", dev_handle, intf)

    def clear_halt(self, dev_handle: _RemoteHandle, ep: int) -> None:
        self._call("clear_halt", dev_handle, ep)

    def reset_device(self, dev_handle: _RemoteHandle) -> None:
        self._call("reset_device", dev_handle)

    def is_kernel_driver_active(self, dev_handle: _RemoteHandle, intf: int) -> bool:
        return bool(self._call("is_kernel_driver_active", dev_handle, intf))

    def ctrl_transfer(self, dev_handle: _RemoteHandle, bmRequestType: int, bRequest: int, wValue: int,
                      wIndex: int, data: array[int], timeout: int) -> int:
        reply = self._usb("usb_ctrl", handle=dev_handle.number, request_type=bmRequestType, request=bRequest,
                          value=wValue, index=wIndex, size=len(data), timeout=timeout)
        return _copy(reply["data"], data)

    def bulk_write(self, dev_handle: _RemoteHandle, ep: int, intf: int, data: array[int], timeout: int) -> int:
        return int(self._usb("usb_write", handle=dev_handle.number, ep=ep, intf=intf,
                             data=base64.b64encode(data.tobytes()).decode(), timeout=timeout)["size"])

    def bulk_read(self, dev_handle: _RemoteHandle, ep: int, intf: int, buff: array[int], timeout: int) -> int:
        reply = self._usb("usb_read", handle=dev_handle.number, ep=ep, intf=intf, size=len(buff), timeout=timeout)
        return _copy(reply["data"], buff)


def _copy(encoded: str, into: array[int]) -> int:
    data = base64.b64decode(encoded)
    into[: len(data)] = array("B", data)
    return len(data)


# -- the dealer's hands and the demo's attachment ------------------------------------------------------

def _tags(chips: list[list[Any]], casino_id: int) -> list[Tag]:
    return [Tag(uid=str(uid), denomination_cents=int(cents), casino_id=casino_id) for uid, cents in chips]


class RemoteDevices(TableDevices):
    """The demo table's devices in a devices process: they stay on when this process dies."""

    def __init__(self, controller: TableController, *, socket_path: str, shoe_link: str, data_dir: Path,
                 pin_factory: object, process: subprocess.Popen[bytes] | None = None, tray: bool = False) -> None:
        self.link = DeviceLink(socket_path)
        self.process = process  # when this demo started the devices (else it reattached to them)
        hello = self.link.call("hello")
        self.zones = [str(zone) for zone in hello["zones"]]
        rules = controller.table.rules
        expected = list(zone_names(rules.boxes, hyper=rules.hyper_blackjack))
        if self.zones != expected:
            raise ConfigError("--data-dir", f"the devices running for {data_dir} have zones {self.zones}, "
                                            f"this table {expected}: stop them (table-sim devices) or use another")
        self.tray_rows = tuple(str(row) for row in hello.get("tray_rows", ()))
        if self.tray_rows != (tray_rows() if tray else ()):
            raise ConfigError("--data-dir", f"the devices running for {data_dir} "
                                            f"{'read' if self.tray_rows else 'do not read'} a chip tray, this demo "
                                            f"{'does' if tray else 'does not'}: stop them (table-sim devices) or use "
                                            "another")
        self.pid = int(hello["pid"])
        self.antennas = {index + 1: zone for index, zone in enumerate((*self.zones, *self.tray_rows))}
        self.shoe_link = Path(shoe_link)
        self.usb = LinkedRfidBackend(socket_path)
        self.backend = self.usb
        self.reporter = demo_reporter([*self.zones, *self.tray_rows], data_dir, str(self.link.call("registry")["csv"]))
        self.casino_id = self.reporter.casino_id
        self.pin_factory = pin_factory
        self.pins = DEMO_PINS

    def start(self) -> None:
        """Nothing to switch on: the devices process runs already (started, or found running)."""

    def stop(self) -> None:
        """The demo ended normally: the table is switched off, the devices process with it."""
        with contextlib.suppress(DevicesGoneError):
            self.link.request("quit")
        self.link.close()
        self.usb.link.close()
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=10)

    def draw(self) -> Card:
        return Card.parse(str(self.link.call("draw")["card"]))

    def shuffle(self) -> None:
        self.link.call("shuffle")

    def put(self, zone: str, cents: int) -> list[Tag]:
        return _tags(self.link.call("put", zone=zone, cents=cents)["chips"], self.casino_id)

    def clear(self, zone: str) -> list[Tag]:
        return _tags(self.link.call("clear", zone=zone)["chips"], self.casino_id)

    def pay(self, zone: str, cents: int) -> list[Tag]:
        return _tags(self.link.call("pay", zone=zone, cents=cents)["chips"], self.casino_id)

    def collect(self, zone: str) -> list[Tag]:
        return _tags(self.link.call("collect", zone=zone)["chips"], self.casino_id)

    def at_tray(self, action: str, cents: int = 0) -> dict[str, Any]:
        return self.link.call("tray", action=action, cents=cents)

    def zone_chips(self) -> dict[str, list[Tag]]:
        zones: dict[str, list[list[Any]]] = self.link.call("zones")["zones"]
        return {zone: _tags(chips, self.casino_id) for zone, chips in zones.items()}


def process_alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie, dead but not yet reaped by its adopter, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] == "Z":
            return False
    return True


def attach_devices(controller: TableController, *, seed: int, data_dir: Path, pin_factory: object,
                   start_timeout: float = START_TIMEOUT_S, tray: bool = False) -> tuple[RemoteDevices, bool]:
    """The devices recorded in `data_dir` if they still run (True: reattached), else new ones started for it."""
    state = read_state(data_dir)
    if state is not None and process_alive(int(state["pid"])):
        try:
            return RemoteDevices(controller, socket_path=str(state["socket"]), shoe_link=str(state["shoe_link"]),
                                 data_dir=data_dir, pin_factory=pin_factory, tray=tray), True
        except DevicesGoneError:
            pass  # recorded, alive, but not answering (a pid reused): start new devices
    table = controller.table
    rules = table.rules
    command = [sys.executable, "-m", "simulators.cli", "devices", "--data-dir", str(data_dir), "--seed", str(seed),
               "--boxes", str(rules.boxes), "--shoe-number", str(max(1, shoe_number_of(table.shoe.shoe_id))),
               "--drawn", str(table.shoe.dealt if table.shoe.loaded else 0), "--decks", str(rules.decks),
               "--cut-cards-behind", str(rules.cut_card_depth), *(["--hyper"] if rules.hyper_blackjack else []),
               *(["--tray"] if tray else [])]
    with open(data_dir / "devices.log", "ab") as log:
        # A session of its own: a signal to the demo's process group (Ctrl-C) does not reach the devices.
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    deadline = time.monotonic() + start_timeout
    while time.monotonic() < deadline:
        state = read_state(data_dir)
        if state is not None and state["pid"] == process.pid:
            return RemoteDevices(controller, socket_path=str(state["socket"]), shoe_link=str(state["shoe_link"]),
                                 data_dir=data_dir, pin_factory=pin_factory, process=process, tray=tray), False
        if process.poll() is not None:
            raise DevicesGoneError(f"the devices process exited with {process.returncode}: see {data_dir}/devices.log")
        time.sleep(0.05)
    process.terminate()
    process.wait(timeout=10)
    raise DevicesGoneError(f"the devices process did not start within {start_timeout:g} s: see {data_dir}/devices.log")


def devices_running(data_dir: Path) -> bool:
    """Whether `data_dir` records a devices process that is still alive."""
    state = read_state(data_dir)
    return state is not None and process_alive(int(state["pid"]))
