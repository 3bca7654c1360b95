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
"""

from __future__ import annotations

import contextlib
import enum
import os
import random
import select
import tempfile
import threading
import time
import tty
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

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
from table_runtime.errors import CardCodeError, ConfigError
from table_runtime.game.cards import Card, parse_cards
from table_runtime.text_files import read_text

FrameHook = Callable[[Frame, int], None]


class Fault(enum.Enum):
    """What can go wrong, on command. The first five act on the next new event frame."""

    CORRUPT = "corrupt"  # one byte of the next frame is damaged
    DROP = "drop"  # the next frame is not sent (it stays in the retransmit buffer)
    DUPLICATE = "duplicate"  # the next frame is sent twice
    LOSE = "lose"  # the next frame is not sent and forgotten: the host must report missed cards
    DELAY = "delay"  # everything the shoe sends waits `milliseconds`
    UNREADABLE = "unreadable"  # the next card drawn cannot be read
    DOOR = "door"  # the door is opened (close it with close_door())
    JAM = "jam"  # a card jams (clear it with clear_jam())
    DISCONNECT = "disconnect"  # the device vanishes and comes back after `milliseconds`


_FRAME_FAULTS = (Fault.CORRUPT, Fault.DROP, Fault.DUPLICATE, Fault.LOSE)


def read_stack(path: Path) -> list[Card]:
    """A stacked shoe file: card codes in draw order, separated by spaces, commas or lines; `#` starts a comment."""
    cards: list[Card] = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        try:
            cards += parse_cards(line.split("#", 1)[0])
        except CardCodeError as error:
            raise CardCodeError(f"{path}:{number}: {error}") from None
    if not cards:
        raise CardCodeError(f"{path}: no cards")
    return cards


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
        self._requested_link = Path(link) if link is not None else None
        # Without a link, one private directory per shoe, made when it is plugged and removed on stop.
        self._temporary_dir = Path(tempfile.gettempdir()) / f"shoe-{uuid.uuid4().hex[:12]}"
        self.heartbeat_interval = heartbeat_interval
        self.retransmit_timeout = retransmit_timeout
        self.byte_interval = byte_interval  # write one byte at a time, this far apart (seconds)
        self.on_frame_written = on_frame_written
        self._faults: deque[Fault] = deque()
        self._unreadable_next = 0
        self._random = random.Random(seed)
        self._lock = threading.RLock()
        self._cycled = threading.Condition(self._lock)
        self._generation = 0  # firmware loop iterations: unplug() waits for one so the pty is really gone
        self._master: int | None = None
        self._slave: int | None = None
        self._decoder = FrameDecoder()
        self._outbox: deque[tuple[float, bytes]] = deque()  # (not before, bytes) when delayed or trickled
        self._hold_until = 0.0
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

        Start it, then give the driver its `url` (`serial://<link>`).
        """
        parts = urlsplit(url)
        if parts.scheme != "sim" or parts.netloc != "shoe":
            raise ConfigError("devices.shoe", f"{url!r}: a simulated shoe is sim://shoe?seed=N")
        query = parse_qs(parts.query)
        known = {"seed", "shoe", "drawn", "link", "stack"}
        if unknown := sorted(set(query) - known):
            raise ConfigError("devices.shoe", f"{url!r}: unknown option {', '.join(unknown)} (known: {sorted(known)})")

        def number(name: str, default: int) -> int:
            text = query.get(name, [str(default)])[-1]
            try:
                return int(text)
            except ValueError:
                raise ConfigError("devices.shoe", f"{url!r}: {name} must be a whole number, not {text!r}") from None

        if "stack" in query:
            options["stack"] = read_stack(Path(query["stack"][-1]))
        return cls(
            seed=number("seed", 0),
            shoe_number=number("shoe", 1),
            cards_already_drawn=number("drawn", 0),
            link=query["link"][-1] if "link" in query else None,
            **options,
        )

    # -- lifetime -----------------------------------------------------------------------

    @property
    def link(self) -> Path:
        """The device path the driver opens (a symlink to the current pty slave)."""
        if self._requested_link is not None:
            return self._requested_link
        return self._temporary_dir / "ttySHOE"

    @property
    def url(self) -> str:
        return f"serial://{self.link}"

    @property
    def plugged(self) -> bool:
        return self._master is not None

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
        if self._requested_link is None:
            with contextlib.suppress(OSError):
                self._temporary_dir.rmdir()

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
            if fault in _FRAME_FAULTS:
                self._faults.append(fault)
            elif fault is Fault.DELAY:
                self._hold_until = max(self._hold_until, time.monotonic() + milliseconds / 1000)
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
            if self._running and self._master is None:
                self._plug()
        self._wake()

    def write_raw(self, data: bytes) -> None:
        """Put arbitrary bytes on the wire (line noise, a misbehaving firmware), in order with the frames."""
        with self._lock:
            if self._master is not None:
                if self._outbox or self.byte_interval is not None or time.monotonic() < self._hold_until:
                    self._outbox.append((self._hold_until, data))
                    self._wake()
                else:
                    self._write_now(data)

    @property
    def sent_events(self) -> list[SequencedShoeEvent]:
        """Every event the firmware produced, in sequence order (sent or not)."""
        with self._lock:
            return list(self.firmware.sent_events)

    # -- the wire -----------------------------------------------------------------------

    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line discipline: bytes are bytes
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self._decoder.reset()
        self._outbox.clear()
        link = self.link
        if self._requested_link is None:
            self._temporary_dir.mkdir(mode=0o700, exist_ok=True)
        temporary = link.with_name(link.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        os.symlink(os.ttyname(slave), temporary)
        os.replace(temporary, link)  # the path appears in one step, already complete

    def _unplug(self) -> None:
        if self._master is None:
            return
        with contextlib.suppress(FileNotFoundError):
            self.link.unlink()
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None
        self._outbox.clear()
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
            copies = 1
            data = frame.to_bytes()
            if frame.is_sequenced and not frame.is_retransmit and self._faults:
                fault = self._faults.popleft()
                if fault is Fault.DROP:
                    copies = 0
                elif fault is Fault.LOSE:
                    copies = 0
                    self.firmware.forget(frame.sequence)
                elif fault is Fault.DUPLICATE:
                    copies = 2
                elif fault is Fault.CORRUPT:
                    damaged = bytearray(data)
                    damaged[self._random.randrange(1, len(damaged))] ^= self._random.randrange(1, 256)
                    data = bytes(damaged)
            for _ in range(copies):
                self._write(frame, data)

    def _write(self, frame: Frame, data: bytes) -> None:
        if self._master is None:
            return
        if self._outbox or self.byte_interval is not None or time.monotonic() < self._hold_until:
            self._outbox.append((self._hold_until, data))
            self._wake()
            return
        if self.on_frame_written is not None:
            self.on_frame_written(frame, time.perf_counter_ns())
        self._write_now(data)

    def _write_now(self, data: bytes) -> None:
        assert self._master is not None
        try:
            os.write(self._master, data)
        except BlockingIOError:
            pass  # nobody reads: like a USB device whose host is away, the bytes are lost (§3 recovers)
        except OSError:
            self._unplug()

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
                readers = [self._wake_read] if self._master is None else [self._wake_read, self._master]
            ready, _, _ = select.select(readers, [], [], timeout)
            if self._wake_read in ready:
                with contextlib.suppress(OSError):
                    os.read(self._wake_read, 512)
            with self._lock:
                self._generation += 1
                self._cycled.notify_all()
                if self._master is not None and self._master in ready:
                    self._receive()

    def _receive(self) -> None:
        assert self._master is not None
        try:
            data = os.read(self._master, 4096)
        except BlockingIOError:
            return
        except OSError:
            return  # EIO while nobody holds the slave: nothing to read
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
        if self._master is None:
            return max(0.0, min(waits))
        if self._outbox:
            waits.append(self._flush_outbox(now))
        if now >= self._next_heartbeat:
            self._next_heartbeat = now + self.heartbeat_interval
            self._write(self.firmware.heartbeat(), self.firmware.heartbeat().to_bytes())
        waits.append(self._next_heartbeat - now)
        if self.firmware.unacknowledged:
            due = self._last_progress + self.retransmit_timeout
            if now >= due:
                self._send(self.firmware.resend())
                due = now + self.retransmit_timeout
            waits.append(due - now)
        return max(0.0, min(waits))

    def _flush_outbox(self, now: float) -> float:
        """Write delayed bytes that are due; one byte per interval when trickling. Returns the next wait."""
        while self._outbox and self._master is not None:
            not_before, data = self._outbox[0]
            not_before = max(not_before, self._hold_until)
            if now < not_before:
                return not_before - now
            if self.byte_interval is None:
                self._outbox.popleft()
                self._write_now(data)
                continue
            self._write_now(data[:1])
            if len(data) > 1:
                self._outbox[0] = (now + self.byte_interval, data[1:])
            else:
                self._outbox.popleft()
            return self.byte_interval
        return 1.0
