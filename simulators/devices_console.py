"""`table-sim devices`: the demo table's devices in their own process, outliving a kill -9 of the runtime.

    table-sim devices --data-dir DIR [--seed N] [--boxes 7] [--shoe-number S --drawn K] [--idle-exit SECONDS]

Starts the simulated shoe (on a pty linked at DIR/ttySHOE) and the simulated chip
reader with its zones and chip tray (`simulators.device_host`), serves them on a
unix socket, writes DIR/devices.json (pid, socket, shoe link) and prints `ready
SOCKET`. The live `table-runtime demo --data-dir DIR` starts it (its default,
`--devices-process`), or reattaches to it when it already runs. It stops on
SIGTERM, on a `quit` request (the demo sends one when it ends normally), or
after --idle-exit seconds with no client connected.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from simulators.device_host import DeviceHost, DeviceServer, forget_state, write_state
from simulators.shoe_firmware import CUT_CARDS_BEHIND, DECKS
from table_runtime.loop_errors import log_thread_error


def _stop_on_signal(number: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def socket_path() -> Path:
    """A fresh socket path short enough for AF_UNIX (108 bytes), wherever the data directory is."""
    return Path(tempfile.gettempdir()) / f"table-devices-{uuid.uuid4().hex[:12]}.sock"


def serve(host: DeviceHost, data_dir: Path, *, idle_exit: float, announce: Callable[..., object] = print) -> None:
    """Serve `host` until a quit request, or `idle_exit` seconds without a client (0: never)."""
    path = socket_path()
    server = DeviceServer(path, host)
    thread = threading.Thread(target=server.serve_forever, name="devices-socket", daemon=True)
    thread.start()
    pid = os.getpid()
    try:
        write_state(data_dir, {"pid": pid, "socket": str(path), "shoe_link": str(host.shoe.link),
                               "zones": host.zones})
        announce(f"ready {path}", flush=True)
        idle_since = time.monotonic()
        while not host.stopped.wait(0.25):
            if server.clients:
                idle_since = time.monotonic()
            elif idle_exit and time.monotonic() - idle_since > idle_exit:
                announce(f"no client for {idle_exit:g} s: stopping", flush=True)
                break
    finally:
        server.shutdown()
        server.server_close()
        path.unlink(missing_ok=True)
        forget_state(data_dir, pid)


def run(args: argparse.Namespace) -> int:
    data_dir = Path(args.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, _stop_on_signal)
    threading.excepthook = log_thread_error  # the shoe's and the socket's threads: an error is one line
    host = DeviceHost(seed=args.seed, boxes=args.boxes, shoe_link=data_dir / "ttySHOE", shoe_number=args.shoe_number,
                      cards_drawn=args.drawn, decks=args.decks, cut_cards_behind=args.cut_cards_behind,
                      hyper=args.hyper, tray=args.tray)
    host.start()
    try:
        serve(host, data_dir, idle_exit=args.idle_exit)
    except KeyboardInterrupt:
        pass
    finally:
        host.stop()
    print("devices stopped", file=sys.stderr)
    return 0


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "devices", help="the demo table's shoe, chip reader and chips in their own process", description=__doc__)
    parser.add_argument("--data-dir", required=True, help="the demo's data directory (devices.json, ttySHOE)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the shoes and the chips (default 7)")
    parser.add_argument("--boxes", type=int, default=7, help="boxes of the table: the reader's zones")
    parser.add_argument("--hyper", action="store_true",
                        help="the hyper black jack field's seven zones too (rules with hyper_blackjack, 55-4 6°)")
    parser.add_argument("--tray", action="store_true",
                        help="the dealer's chip tray on the reader, its rows read by RFID (simulators/demo_tray.py)")
    parser.add_argument("--shoe-number", type=int, default=1, help="which shoe of the seed to start with")
    parser.add_argument("--drawn", type=int, default=0, help="cards already drawn from it (resume)")
    parser.add_argument("--decks", type=int, default=DECKS)
    parser.add_argument("--cut-cards-behind", type=int, default=CUT_CARDS_BEHIND)
    parser.add_argument("--idle-exit", type=float, default=300.0,
                        help="stop after this many seconds with no client (default 300; 0: never)")
    parser.set_defaults(handler=run)
