"""A simulated FEIG ISO-Host reader on a real pty (and a TCP port on loopback), so the real driver runs in CI.

`SimulatedFeigReader` serves a `FeigFirmware` (simulators/feig_firmware.py) on a pty pair whose slave is
symlinked at `link`, as udev's ``/dev/serial/by-id/...`` name is; with ``tcp=True`` also on a loopback TCP port,
as the LAN readers listen on 10001. A thread answers each request after the time the firmware says it takes (and,
on the serial line, the time its bytes take at `baud` with 8E1), one request at a time as the reader does.

The table's side is the firmware's: `place`, `remove`, `take_all`, `chips` (the same calls as the simulated USB
reader, simulators/rfid_backend.py, so the bench and the demo place chips on either), and the faults:
`set_antenna_fault`, `fail_next(status)`, `go_silent`, `corrupt_next`, `unplug`/`replug` (the device path
vanishes and comes back, as a pulled USB-serial adapter's does), and the hostile reader's: `lose_inventory_replies`,
`slow_down`, `more_data_forever` (the firmware's), and `add_impostor` (another reader on the same bus, at another
COM-ADR, answering every request before this one does, with chips of its own).
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import tempfile
import termios
import threading
import uuid
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from firmware_bridge.feig import Frame, FrameDecoder
from firmware_bridge.rfid import Tag
from simulators.feig_firmware import INSTANT, FeigFirmware, Timing
from simulators.pty_link import open_raw_pty

BITS_PER_BYTE = 11  # 8E1: start, 8 data, parity, stop


def level_number(index: int) -> int:
    """The multiplexer channel of the `index`-th zone (0-based) on two levels: 11, 12, ... 18, 21, ... 88."""
    if not 0 <= index < 64:
        raise ValueError(f"zone {index + 1}: two multiplexer levels hold 64 antennas")
    return (index // 8 + 1) * 10 + index % 8 + 1


class _Connection:
    """One host end: the pty master or a TCP client, with its own decoder."""

    def __init__(self, fd: int, *, serial: bool, sock: socket.socket | None = None) -> None:
        self.fd = fd
        self.serial = serial
        self.sock = sock
        self.decoder = FrameDecoder(advanced=None)


class SimulatedFeigReader:
    """A FEIG reader's firmware served on a pty (and optionally TCP); use as `with` or start()/stop()."""

    def __init__(self, antennas: Mapping[int, str] | None = None, *, link: str | os.PathLike[str] | None = None,
                 tcp: bool = False, baud: int = 38400, timing: Timing | None = None, realistic: bool = True,
                 **firmware: Any) -> None:
        self.firmware = FeigFirmware(antennas, timing=timing if timing is not None else
                                     (Timing() if realistic else INSTANT), **firmware)
        self.baud = baud
        self._requested_link = Path(link) if link is not None else None
        self._directory = Path(tempfile.gettempdir()) / f"feig-{uuid.uuid4().hex[:12]}"
        self._tcp = tcp
        self._listener: socket.socket | None = None
        self._clients: list[_Connection] = []
        self._master: int | None = None
        self._slave: int | None = None
        self._pty: _Connection | None = None
        self._corrupt = 0
        self._impostor: FeigFirmware | None = None
        self._raw: list[Any] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = os.pipe()

    # -- where the driver finds it -----------------------------------------------------------------
    @property
    def link(self) -> Path:
        return self._requested_link if self._requested_link is not None else self._directory / "ttyFEIG"

    @property
    def url(self) -> str:
        return f"feig://{self.link}?adr={self.firmware.address}&baud={self.baud}"

    @property
    def port(self) -> int:
        if self._listener is None:
            raise RuntimeError("the reader serves no TCP port (tcp=True)")
        port: int = self._listener.getsockname()[1]
        return port

    @property
    def tcp_url(self) -> str:
        return f"feig+tcp://127.0.0.1:{self.port}?adr={self.firmware.address}"

    @property
    def plugged(self) -> bool:
        return self._master is not None

    # -- the table and the faults -------------------------------------------------------------------
    def place(self, where: int | str, *chips: Tag) -> None:
        self.firmware.place(where, *chips)

    def remove(self, where: int | str, *uids: str) -> list[Tag]:
        return self.firmware.remove(where, *uids)

    def take_all(self, where: int | str) -> list[Tag]:
        return self.firmware.take_all(where)

    def chips(self, where: int | str) -> list[Tag]:
        return self.firmware.chips(where)

    def set_antenna_fault(self, where: int | str, faulty: bool = True) -> None:
        self.firmware.set_antenna_fault(where, faulty)

    def fail_next(self, status: int, count: int = 1) -> None:
        self.firmware.fail_next(status, count)

    def go_silent(self, count: int = 1) -> None:
        self.firmware.go_silent(count)

    def lose_inventory_replies(self, count: int = 1) -> None:
        self.firmware.lose_inventory_replies(count)

    def slow_down(self, seconds: float) -> None:
        self.firmware.slow_down(seconds)

    def more_data_forever(self, endless: bool = True) -> None:
        self.firmware.more_data_forever(endless)

    def add_impostor(self, address: int) -> FeigFirmware:
        """Another reader on the same bus at COM-ADR `address`, answering every request whatever COM-ADR it names,
        each reply before this reader's; its firmware is returned so that a test places chips on it."""
        impostor = FeigFirmware({antenna: zone for zone, antenna in self.firmware.zones.items()}, address=address,
                                mux=self.firmware.mux, outputs=self.firmware.outputs, timing=INSTANT)
        with self._lock:
            self._impostor = impostor
        return impostor

    def remove_impostor(self) -> None:
        with self._lock:
            self._impostor = None

    def corrupt_next(self, count: int = 1) -> None:
        """The next `count` replies leave with one byte damaged (the host's CRC check must drop them)."""
        with self._lock:
            self._corrupt += count

    def unplug(self) -> None:
        """The device path vanishes and the pty closes, as a pulled USB-serial adapter's."""
        with self._lock:
            self._close_pty()

    def replug(self) -> None:
        with self._lock:
            if self._master is None:
                self._open_pty()
        self._wake()

    # -- life ------------------------------------------------------------------------------------
    def start(self) -> Self:
        with self._lock:
            self._open_pty()
            if self._tcp:
                self._listener = socket.create_server(("127.0.0.1", 0))
                self._listener.setblocking(False)
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name="feig-reader", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None
        with self._lock:
            self._close_pty()
            for client in self._clients:
                if client.sock is not None:
                    client.sock.close()
            self._clients.clear()
            if self._listener is not None:
                self._listener.close()
                self._listener = None
        if self._requested_link is None:
            with contextlib.suppress(OSError):
                self._directory.rmdir()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    # -- the pty ---------------------------------------------------------------------------------
    def _open_pty(self) -> None:
        if self._requested_link is None:
            self._directory.mkdir(mode=0o700, exist_ok=True)
        master, slave = open_raw_pty(self.link)
        self._master, self._slave = master, slave
        self._pty = _Connection(master, serial=True)
        self._raw = termios.tcgetattr(slave)

    def _close_pty(self) -> None:
        if self._master is None:
            return
        with contextlib.suppress(FileNotFoundError):
            self.link.unlink()
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None
        self._pty = None

    def _keep_raw(self) -> None:
        """Put the pty's line settings back: Linux keeps no parity on a pty and refuses the next open that asks for
        8E1 again (EINVAL) once a host set it, so the line is restored while the host talks, ready for its reopen."""
        with self._lock, contextlib.suppress(OSError, termios.error):
            if self._slave is not None:
                termios.tcsetattr(self._slave, termios.TCSANOW, self._raw)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"!")

    # -- the serving thread -------------------------------------------------------------------------
    def _serve(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                connections = ([self._pty] if self._pty is not None else []) + list(self._clients)
                listener = self._listener
            fds: list[Any] = [self._wake_r, *(c.fd for c in connections)]
            if listener is not None:
                fds.append(listener)
            try:
                ready, _, _ = select.select(fds, [], [], 0.5)
            except (OSError, ValueError):  # a descriptor closed by unplug under us: look again
                continue
            if self._wake_r in ready:
                with contextlib.suppress(OSError):
                    os.read(self._wake_r, 64)
            if listener is not None and listener in ready:
                with contextlib.suppress(OSError):
                    sock, _ = listener.accept()
                    sock.setblocking(True)
                    with self._lock:
                        self._clients.append(_Connection(sock.fileno(), serial=False, sock=sock))
            for connection in connections:
                if connection.fd in ready:
                    self._receive(connection)

    def _receive(self, connection: _Connection) -> None:
        try:
            data = connection.sock.recv(4096) if connection.sock else os.read(connection.fd, 4096)
        except OSError:
            data = b""
        if not data:
            if connection.sock is not None:  # the host closed the connection
                with self._lock:
                    self._clients.remove(connection)
                connection.sock.close()
            return
        for frame in connection.decoder.feed(data):
            self._respond(connection, frame)

    def _respond(self, connection: _Connection, frame: Frame) -> None:
        if connection.serial:
            self._keep_raw()
        with self._lock:
            impostor = self._impostor
        if impostor is not None:
            forged, _ = impostor.answer(frame, hostile=True)
            if forged is not None:
                self._send(connection, forged.to_bytes())
        reply, seconds = self.firmware.answer(frame)
        if reply is None:
            return
        raw = reply.to_bytes()
        if connection.serial:
            seconds += (len(frame.to_bytes()) + len(raw)) * BITS_PER_BYTE / self.baud
        if seconds > 0:
            self._stop.wait(seconds)
        with self._lock:
            if self._corrupt:
                self._corrupt -= 1
                damaged = bytearray(raw)
                damaged[len(damaged) // 2] ^= 0x5A
                raw = bytes(damaged)
            if connection.serial and connection is not self._pty:
                return  # unplugged while the reader worked: the answer is lost with the cable
        self._send(connection, raw)

    def _send(self, connection: _Connection, raw: bytes) -> None:
        try:
            if connection.sock is not None:
                connection.sock.sendall(raw)
            else:
                os.write(connection.fd, raw)
        except OSError:
            pass  # the host went away while the reader worked: the answer is lost, as on a real line
