"""A simulated electronic shoe on a real pty: the firmware end of docs/protocols/shoe.md.

`SimulatedShoe` opens a pty pair (os.openpty), speaks the protocol on the
master end, and symlinks `link` to the slave device so the real driver, or any
serial tool, opens it like `/dev/ttyACM0`.

The firmware loop runs in its own **thread**, not as asyncio tasks: the
physical shoe is a separate computer, and a thread keeps the simulated one
independent of the host's event loop (a busy or blocked loop does not stall
the shoe's heartbeats or its answers) and lets the synchronous `table-sim`
command line, pytest and the asyncio demo drive it with the same calls.
`draw()` writes the card frame from the caller's thread at once, so a card's
latency is the driver's, not a hop through the firmware thread.

The cable (the pty at a stable path, unplugging it, the faults on the line)
is simulators/shoe_wire.py; the ``sim://shoe`` URL and stacked-shoe files,
simulators/shoe_url.py; what the firmware answers, simulators/shoe_firmware.py.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from firmware_bridge.shoe import (
    Frame,
    FrameDecoder,
    MalformedMessageError,
    MessageType,
    SequencedShoeEvent,
    parse_host_frame,
)
from simulators.shoe_firmware import (
    CUT_CARDS_BEHIND,
    DECKS,
    RETRANSMIT_BUFFER,
    FirmwareIdentity,
    ShoeFirmware,
)
from simulators.shoe_url import read_stack, shoe_options
from simulators.shoe_wire import FRAME_FAULTS, Fault, FrameHook, ShoeWire
from table_runtime.game.cards import Card

__all__ = ["Fault", "FrameHook", "SimulatedShoe", "read_stack"]


class SimulatedShoe:
    """A shoe firmware (`ShoeFirmware`) served on a pty, with timers and fault injection.

    Created with (seed, shoe_number, cards_already_drawn) it continues the same
    seeded shoe exactly where an earlier run stopped (power-loss recovery).
    Use as `with`/`async with`, or start()/stop().
    """

    def __init__(
        self,
        *,
        seed: int = 0,
        shoe_number: int = 1,
        cards_already_drawn: int = 0,
        stack: Sequence[Card] | None = None,
        link: str | os.PathLike[str] | None = None,
        decks: int = DECKS,
        cut_cards_behind: int = CUT_CARDS_BEHIND,
        identity: FirmwareIdentity | None = None,
        announce: bool | None = None,
        heartbeat_interval: float = 0.5,
        retransmit_timeout: float = 0.5,
        buffer_size: int = RETRANSMIT_BUFFER,
        byte_interval: float | None = None,
        boot_id: int | None = None,
        on_frame_written: FrameHook | None = None,
    ) -> None:
        self.firmware = ShoeFirmware(
            seed=seed,
            shoe_number=shoe_number,
            cards_already_drawn=cards_already_drawn,
            stack=stack,
            decks=decks,
            cut_cards_behind=cut_cards_behind,
            identity=identity,
            boot_id=boot_id if boot_id is not None else random.SystemRandom().getrandbits(32),
            buffer_size=buffer_size,
        )
        self._announce = cards_already_drawn == 0 if announce is None else announce
        self.wire = ShoeWire(link, seed=seed, wake=self._wake, byte_interval=byte_interval,
                             on_frame_written=on_frame_written)
        self.heartbeat_interval = heartbeat_interval
        self.retransmit_timeout = retransmit_timeout
        self._unreadable_next = 0
        self._lock = threading.RLock()
        self._cycled = threading.Condition(self._lock)
        self._generation = 0  # firmware loop iterations: unplug() waits for one so the pty is really gone
        self._decoder = FrameDecoder()
        self._replug_at: float | None = None
        self._last_progress = time.monotonic()
        self._next_heartbeat = 0.0
        self._wake_read = self._wake_write = -1
        self._thread: threading.Thread | None = None
        self._running = False
        self.failure: Exception | None = None
        self.commands_received: list[object] = []
        self.bad_host_frames = 0

    @classmethod
    def from_url(cls, url: str, **options: Any) -> SimulatedShoe:
        """A shoe from configuration: `sim://shoe?seed=7&shoe=1&drawn=0&link=/tmp/ttySHOE&stack=FILE`.

        Start it, then give the driver its `url` (`serial://<link>`). `options` are the constructor's.
        """
        return cls(**(options | shoe_options(url)))

    # -- lifetime -----------------------------------------------------------------------

    @property
    def link(self) -> Path:
        """The device path the driver opens (a symlink to the current pty slave)."""
        return self.wire.link

    @property
    def url(self) -> str:
        return f"serial://{self.link}"

    @property
    def plugged(self) -> bool:
        return self.wire.plugged

    @property
    def byte_interval(self) -> float | None:
        """Write one byte at a time, this far apart (seconds); None: whole frames."""
        return self.wire.byte_interval

    @byte_interval.setter
    def byte_interval(self, seconds: float | None) -> None:
        self.wire.byte_interval = seconds

    @property
    def on_frame_written(self) -> FrameHook | None:
        """Called with each frame and the perf_counter_ns at which it went on the wire (the bench's clock)."""
        return self.wire.on_frame_written

    @on_frame_written.setter
    def on_frame_written(self, hook: FrameHook | None) -> None:
        self.wire.on_frame_written = hook

    def start(self) -> Self:
        with self._lock:
            if self._running:
                return self
            self._running = True
            self._wake_read, self._wake_write = os.pipe()
            self._plug()
            if self._announce:
                self._send(self.firmware.announce())
        self._thread = threading.Thread(target=self._serve, name="simulated-shoe", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._lock:
            self._running = False
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        with self._lock:
            self._unplug()
        for fd in (self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._wake_read = self._wake_write = -1
        self.wire.remove()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        return self.start()

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- the dealer and the technician --------------------------------------------------

    def draw(self) -> Card:
        """The dealer pulls one card; returns the card that physically left the shoe."""
        with self._lock:
            unreadable = self._unreadable_next > 0
            card, frames = self.firmware.draw(unreadable=unreadable)
            if unreadable:
                self._unreadable_next -= 1
            self._send(frames)
            return card

    def shuffle(self) -> None:
        """A new shoe: the next one of the seed; sends SHOE_LOADED."""
        with self._lock:
            self._send(self.firmware.shuffle())

    def load_stack(self, cards: Sequence[Card]) -> None:
        """A prearranged shoe, drawn in this order; sends SHOE_LOADED."""
        with self._lock:
            self._send(self.firmware.load_stack(cards))

    def open_door(self) -> None:
        with self._lock:
            self._send(self.firmware.set_door(True))

    def close_door(self) -> None:
        with self._lock:
            self._send(self.firmware.set_door(False))

    def jam(self) -> None:
        with self._lock:
            self._send(self.firmware.set_jam(True))

    def clear_jam(self) -> None:
        with self._lock:
            self._send(self.firmware.set_jam(False))

    def inject(self, fault: Fault | str, milliseconds: int = 500) -> None:
        """Make something go wrong (see `Fault`); `milliseconds` for DELAY and DISCONNECT."""
        fault = Fault(fault)
        with self._lock:
            if fault in FRAME_FAULTS:
                self.wire.queue_fault(fault)
            elif fault is Fault.DELAY:
                self.wire.hold(milliseconds / 1000)
            elif fault is Fault.UNREADABLE:
                self._unreadable_next += 1
            elif fault is Fault.DOOR:
                self._send(self.firmware.set_door(True))
            elif fault is Fault.JAM:
                self._send(self.firmware.set_jam(True))
            elif fault is Fault.DISCONNECT:
                self._unplug()
                self._replug_at = time.monotonic() + milliseconds / 1000
                self._wait_for_the_loop()
        self._wake()

    def unplug(self) -> None:
        """The USB cable is pulled: the device path vanishes. The firmware keeps running and buffering.

        When this returns, an open port on the old device reads as disconnected.
        """
        with self._lock:
            self._replug_at = None
            self._unplug()
            self._wait_for_the_loop()

    def _wait_for_the_loop(self) -> None:
        """Until the firmware thread has left the select() that kept the closed pty alive. Holds the lock."""
        thread = self._thread
        if thread is None or thread is threading.current_thread() or not thread.is_alive():
            return
        generation = self._generation
        self._cycled.wait_for(lambda: self._generation != generation, timeout=5)

    def replug(self) -> None:
        """The cable is back: a new device appears at the same path."""
        with self._lock:
            self._replug_at = None
            if self._running and not self.wire.plugged:
                self._plug()
        self._wake()

    def write_raw(self, data: bytes) -> None:
        """Put arbitrary bytes on the wire (line noise, a misbehaving firmware), in order with the frames."""
        with self._lock:
            self.wire.write_raw(data)

    @property
    def sent_events(self) -> list[SequencedShoeEvent]:
        """Every event the firmware produced, in sequence order (sent or not)."""
        with self._lock:
            return list(self.firmware.sent_events)

    # -- the wire -----------------------------------------------------------------------

    def _plug(self) -> None:
        self.wire.plug()
        self._decoder.reset()

    def _unplug(self) -> None:
        if self.wire.unplug():
            # The firmware thread's select() keeps the closed pty alive until it returns: wake it so the
            # device really vanishes now.
            self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"!")

    def _send(self, frames: list[Frame]) -> None:
        """Put new event frames (and answers) on the wire, applying queued frame faults. Holds the lock."""
        self._last_progress = time.monotonic()
        for frame in frames:
            self.wire.send(frame, forget=self.firmware.forget)

    # -- the firmware loop (its own thread) ---------------------------------------------

    def _serve(self) -> None:
        try:
            self._loop_forever()
        except Exception as error:  # the firmware "crashed": keep the reason for stop() and the tests
            self.failure = error
            raise

    def _loop_forever(self) -> None:
        while True:
            with self._lock:
                if not self._running:
                    return
                timeout = self._tick(time.monotonic())
                master = self.wire.master
                readers = [self._wake_read] if master is None else [self._wake_read, master]
            try:
                ready, _, _ = select.select(readers, [], [], timeout)
            except OSError:  # EBADF: an unplug closed the pty while the loop waited on it; look again
                ready = []
            if self._wake_read in ready:
                with contextlib.suppress(OSError):
                    os.read(self._wake_read, 512)
            with self._lock:
                self._generation += 1
                self._cycled.notify_all()
                if master is not None and master in ready and master == self.wire.master:
                    self._receive()

    def _receive(self) -> None:
        data = self.wire.read()
        for frame in self._decoder.feed(data):
            try:
                command = parse_host_frame(frame)
            except MalformedMessageError:
                self.bad_host_frames += 1
                continue
            self.commands_received.append(command)
            answer = self.firmware.handle(command)
            if frame.message_type == MessageType.ACK:
                self._last_progress = time.monotonic()
            if answer:
                self._send(answer)

    def _tick(self, now: float) -> float:
        """Run what is due; return how long the loop may sleep."""
        if self._replug_at is not None and now >= self._replug_at:
            self._replug_at = None
            self._plug()
        waits = [1.0]
        if self._replug_at is not None:
            waits.append(self._replug_at - now)
        if not self.wire.plugged:
            return max(0.0, min(waits))
        if self.wire.pending:
            waits.append(self.wire.flush(now))
        if now >= self._next_heartbeat:
            self._next_heartbeat = now + self.heartbeat_interval
            heartbeat = self.firmware.heartbeat()
            self.wire.write_frame(heartbeat, heartbeat.to_bytes())
            for status in self.firmware.buffer_gate_status():  # repeated: a lost one is made up (§3)
                self.wire.write_frame(status, status.to_bytes())
        waits.append(self._next_heartbeat - now)
        if self.firmware.unacknowledged:
            due = self._last_progress + self.retransmit_timeout
            if now >= due:
                self._send(self.firmware.resend())
                due = now + self.retransmit_timeout
            waits.append(due - now)
        return max(0.0, min(waits))
