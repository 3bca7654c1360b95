"""The demo table's devices in a process of their own: the shoe, the chip reader and the chips lying on it.

A real table keeps its chips and its shoe through a power cut of the controller.
`DeviceHost` holds the simulated shoe firmware (on a pty, read by the real
serial driver) and the simulated chip reader with the chips on its zones and
the dealer's chip tray; it serves them on a unix socket, one JSON object a
line each way (docs/bench.md, "The devices process"):

- the USB side: the requests of a pyusb backend (`simulators.device_link.LinkedRfidBackend`),
  which the real pyusb driver in the runtime calls: enumeration, descriptors,
  bulk transfers, answered by the `RfidBackend` here, so the reader's protocol
  bytes cross the socket;
- the hands' side: what the simulated dealer and players do with the devices
  (draw a card, shuffle, put chips on a zone, take them back, look at the zones).

Killing the runtime (kill -9) closes its connections and nothing else: the
chips stay where they lie, the shoe keeps its cards and its unacknowledged events.
"""

from __future__ import annotations

import base64
import json
import os
import socketserver
import sys
import threading
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import usb.core

from firmware_bridge.rfid import Tag
from simulators.demo_tray import DemoChips, tray_action, tray_rows
from simulators.rfid_backend import RfidBackend, SimulatedReader
from simulators.rfid_chips import CASINO_ID, ChipIssuer, ChipTray
from simulators.shoe import SimulatedShoe
from simulators.shoe_firmware import SimulatedShoeError
from table_runtime.config import zone_names
from table_runtime.loop_errors import log_uncaught

Reply = dict[str, Any]


def chips_json(chips: list[Tag]) -> list[list[Any]]:
    return [[chip.uid, chip.denomination_cents] for chip in chips]


def usb_error_reply(error: usb.core.USBError) -> Reply:
    kind = "usb_timeout" if isinstance(error, usb.core.USBTimeoutError) else "usb"
    return {"ok": False, "error": kind, "message": str(error.strerror or error), "errno": error.errno,
            "code": error.backend_error_code}


class DeviceHost:
    """The shoe, the reader and the chips of one demo table; thread-safe (one thread per connection)."""

    def __init__(self, *, seed: int, boxes: int, shoe_link: Path, shoe_number: int = 1, cards_drawn: int = 0,
                 decks: int = 6, cut_cards_behind: int = 52, hyper: bool = False, tray: bool = False) -> None:
        self.zones = list(zone_names(boxes, hyper=hyper))  # the hyper field's cases where the rules open it
        self.tray_rows = tray_rows() if tray else ()  # the chip tray read by RFID (simulators/demo_tray.py)
        self.antennas = {index + 1: zone for index, zone in enumerate((*self.zones, *self.tray_rows))}
        self.shoe = SimulatedShoe(seed=seed, shoe_number=shoe_number, cards_already_drawn=cards_drawn,
                                  link=shoe_link, decks=decks, cut_cards_behind=cut_cards_behind, announce=False)
        self.reader = SimulatedReader(self.antennas, antennas=len(self.antennas) + 1, seed=seed)
        self.backend = RfidBackend([self.reader])
        self.issuer = ChipIssuer(CASINO_ID, seed=seed)
        self.tray = ChipTray(self.issuer)
        self.chips = DemoChips(self.reader, self.issuer) if tray else None  # the tray, the players', the cage's
        self._lock = threading.Lock()  # the tray and the zones change together
        self.stopped = threading.Event()
        self._handlers: dict[str, Callable[[dict[str, Any]], Reply]] = {
            "hello": self._hello, "registry": self._registry, "draw": self._draw, "shuffle": self._shuffle,
            "put": self._put, "clear": self._clear, "zones": self._zones, "quit": self._quit,
            "pay": self._pay, "collect": self._collect, "tray": self._tray,
        }

    def start(self) -> DeviceHost:
        self.shoe.start()
        return self

    def stop(self) -> None:
        self.shoe.stop()

    # -- the hands ----------------------------------------------------------------------------
    def handle(self, request: dict[str, Any], usb_side: UsbSide) -> Reply:
        op = str(request.get("op", ""))
        if op.startswith("usb_"):
            return usb_side.handle(op, request)
        handler = self._handlers.get(op)
        if handler is None:
            return {"ok": False, "error": "request", "message": f"unknown op {op!r}"}
        try:
            return {"ok": True, **handler(request)}
        except SimulatedShoeError as error:
            return {"ok": False, "error": "shoe", "message": str(error)}
        except (KeyError, ValueError, TypeError) as error:
            return {"ok": False, "error": "request", "message": f"{op}: {error!r}"}

    def _hello(self, request: dict[str, Any]) -> Reply:
        return {"pid": os.getpid(), "zones": self.zones, "shoe_link": str(self.shoe.link),
                "tray_rows": list(self.tray_rows)}

    def _registry(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            return {"csv": self.issuer.csv(delimiter=",")}

    def _draw(self, request: dict[str, Any]) -> Reply:
        return {"card": self.shoe.draw().code}

    def _shuffle(self, request: dict[str, Any]) -> Reply:
        self.shoe.shuffle()
        return {"shoe": self.shoe.firmware.shoe_id}

    def _put(self, request: dict[str, Any]) -> Reply:
        zone, cents = str(request["zone"]), int(request["cents"])
        with self._lock:
            if self.chips is not None:  # a player's own chips: the tray read is the house's
                return {"chips": chips_json(self.chips.stake(zone, cents))}
            chips = self.tray.take(cents)
            self.reader.place(zone, *chips)
        return {"chips": chips_json(chips)}

    def _clear(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            if self.chips is not None:
                return {"chips": chips_json(self.chips.to_player(str(request["zone"])))}
            chips = self.reader.take_all(str(request["zone"]))
            self.tray.give_back(chips)
        return {"chips": chips_json(chips)}

    def _pay(self, request: dict[str, Any]) -> Reply:
        if self.chips is None:
            return self._put(request)
        with self._lock:
            return {"chips": chips_json(self.chips.pay(str(request["zone"]), int(request["cents"])))}

    def _collect(self, request: dict[str, Any]) -> Reply:
        if self.chips is None:
            return self._clear(request)
        with self._lock:
            return {"chips": chips_json(self.chips.collect(str(request["zone"])))}

    def _tray(self, request: dict[str, Any]) -> Reply:
        if self.chips is None:
            raise ValueError("these devices read no chip tray (table-sim devices --tray)")
        with self._lock:
            return tray_action(self.chips, str(request["action"]), int(request.get("cents", 0)))

    def _zones(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            return {"zones": {zone: chips_json(self.reader.chips(zone)) for zone in self.zones}}

    def _quit(self, request: dict[str, Any]) -> Reply:
        self.stopped.set()
        return {}


class UsbSide:
    """One connection's USB handles on the host's backend (closed with the connection, like a pulled host)."""

    def __init__(self, backend: RfidBackend) -> None:
        self.backend = backend
        self.handles: dict[int, Any] = {}
        self._next = 1

    def _device(self, request: dict[str, Any]) -> Any:
        index, generation = request["device"]
        for plugged in self.backend.enumerate_devices():
            if self.backend.readers.index(plugged.reader) == index and plugged.generation == generation:
                return plugged
        raise usb.core.USBError("No such device (it may have been disconnected)", -4, 19)

    def handle(self, op: str, request: dict[str, Any]) -> Reply:
        try:
            return {"ok": True, **self._usb(op, request)}
        except usb.core.USBError as error:
            return usb_error_reply(error)
        except IndexError as error:
            return {"ok": False, "error": "index", "message": str(error)}

    def _usb(self, op: str, request: dict[str, Any]) -> Reply:
        backend = self.backend
        if op == "usb_enumerate":
            return {"devices": [[backend.readers.index(p.reader), p.generation] for p in backend.enumerate_devices()]}
        if op == "usb_descriptor":
            kind, args = str(request["kind"]), [int(value) for value in request.get("args", [])]
            if kind not in ("device", "configuration", "interface", "endpoint"):
                raise IndexError(f"no {kind!r} descriptor")
            getter: Callable[..., Any] = getattr(backend, f"get_{kind}_descriptor")
            return {"fields": dict(getter(self._device(request), *args).fields)}
        if op == "usb_open":
            number, self._next = self._next, self._next + 1
            self.handles[number] = backend.open_device(self._device(request))
            return {"handle": number}
        handle = self.handles.get(int(request["handle"]))
        if handle is None:
            raise usb.core.USBError("No such device (it may have been disconnected)", -4, 19)
        if op == "usb_close":
            self.handles.pop(int(request["handle"]), None)
            return {}
        if op == "usb_call":  # set_configuration, claim_interface, ... : (handle, *ints)
            name = str(request["name"])
            if name not in _PLAIN_CALLS:
                raise IndexError(f"no backend call {name!r}")
            return {"value": getattr(backend, name)(handle, *[int(value) for value in request.get("args", [])])}
        if op == "usb_write":
            data = array("B", base64.b64decode(request["data"]))
            return {"size": backend.bulk_write(handle, int(request["ep"]), int(request["intf"]), data,
                                               int(request["timeout"]))}
        if op == "usb_read":
            buffer = array("B", bytes(int(request["size"])))
            size = backend.bulk_read(handle, int(request["ep"]), int(request["intf"]), buffer, int(request["timeout"]))
            return {"data": base64.b64encode(buffer[:size].tobytes()).decode()}
        if op == "usb_ctrl":
            buffer = array("B", bytes(int(request["size"])))
            size = backend.ctrl_transfer(handle, int(request["request_type"]), int(request["request"]),
                                         int(request["value"]), int(request["index"]), buffer,
                                         int(request["timeout"]))
            return {"data": base64.b64encode(buffer[:size].tobytes()).decode()}
        raise IndexError(f"unknown op {op!r}")


_PLAIN_CALLS = frozenset(("set_configuration", "get_configuration", "set_interface_altsetting", "claim_interface",
                          "release_interface", "clear_halt", "reset_device", "is_kernel_driver_active"))


class _Connection(socketserver.StreamRequestHandler):
    server: DeviceServer

    def handle(self) -> None:
        host = self.server.host
        usb_side = UsbSide(host.backend)
        self.server.connected(+1)
        try:
            for line in self.rfile:
                try:
                    request = json.loads(line)
                    reply = host.handle(request, usb_side) if isinstance(request, dict) else {
                        "ok": False, "error": "request", "message": "a request is a JSON object"}
                except ValueError as error:  # not JSON, or not even UTF-8 (UnicodeDecodeError)
                    reply = {"ok": False, "error": "request", "message": f"not JSON: {error}"}
                self.wfile.write(json.dumps(reply).encode() + b"\n")
                self.wfile.flush()
        except OSError:
            pass  # the runtime went away (kill -9): its handles go with the connection, the chips stay
        finally:
            self.server.connected(-1)


class DeviceServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """The host's unix socket: one thread per connection; counts the connections for the idle exit."""

    daemon_threads = True

    def __init__(self, path: Path, host: DeviceHost) -> None:
        self.host = host
        self.clients = 0
        self.idle = threading.Condition()
        super().__init__(str(path), _Connection)

    def handle_error(self, request: object, client_address: object) -> None:
        """A request that failed unexpectedly: one line in the devices' log (not socketserver's traceback); that
        connection closes, the devices serve on."""
        log_uncaught("devices: a request", sys.exc_info()[1])

    def connected(self, change: int) -> None:
        with self.idle:
            self.clients += change
            self.idle.notify_all()


# -- the state file: how a restarted demo finds the devices still running ---------------------------
STATE_FILE = "devices.json"


def write_state(data_dir: Path, state: dict[str, Any]) -> None:
    path = data_dir / STATE_FILE
    temporary = path.with_name(path.name + ".new")
    temporary.write_text(json.dumps(state, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(temporary, path)  # complete or absent, never half written


def read_state(data_dir: Path) -> dict[str, Any] | None:
    """The running devices recorded in `data_dir`, or None (no file, or not readable as one)."""
    try:
        state = json.loads((data_dir / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) and {"pid", "socket", "shoe_link"} <= set(state) else None


def forget_state(data_dir: Path, pid: int) -> None:
    """Remove the state file if it still names process `pid`."""
    state = read_state(data_dir)
    if state is not None and state.get("pid") == pid:
        (data_dir / STATE_FILE).unlink(missing_ok=True)
