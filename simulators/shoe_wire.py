"""The cable of the simulated shoe: a pty at a stable path, and what can go wrong on it.

`ShoeWire` is the device end a `SimulatedShoe` writes to: a pty pair whose
slave is symlinked at `link`, so the real driver opens it like
``/dev/ttyACM0``; `unplug` makes the path vanish as a pulled USB cable does,
`plug` makes a new device appear there in one step. On the way out it applies
the line's faults: the next new event frame corrupted, dropped, duplicated or
lost (`queue_fault`), everything held back for a while (`hold`), bytes trickled
one at a time (`byte_interval`). Not thread-safe by itself: the shoe calls it
under its own lock, and `wake` tells the shoe's loop that queued bytes are due.
"""

from __future__ import annotations

import contextlib
import enum
import os
import random
import tempfile
import time
import uuid
from collections import deque
from collections.abc import Callable
from pathlib import Path

from firmware_bridge.shoe import Frame
from simulators.pty_link import open_raw_pty

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


FRAME_FAULTS = (Fault.CORRUPT, Fault.DROP, Fault.DUPLICATE, Fault.LOSE)


class ShoeWire:
    """One pty device at `link` (a private temporary path when none is asked for) and the line's faults."""

    def __init__(self, link: str | os.PathLike[str] | None, *, seed: int, wake: Callable[[], None],
                 byte_interval: float | None = None, on_frame_written: FrameHook | None = None) -> None:
        self._requested_link = Path(link) if link is not None else None
        # Without a link, one private directory per shoe, made when it is plugged and removed on `remove`.
        self._temporary_dir = Path(tempfile.gettempdir()) / f"shoe-{uuid.uuid4().hex[:12]}"
        self.byte_interval = byte_interval  # write one byte at a time, this far apart (seconds)
        self.on_frame_written = on_frame_written
        self._wake = wake
        self._random = random.Random(seed)
        self._faults: deque[Fault] = deque()
        self._outbox: deque[tuple[float, bytes]] = deque()  # (not before, bytes) when delayed or trickled
        self._hold_until = 0.0
        self.master: int | None = None
        self._slave: int | None = None

    @property
    def link(self) -> Path:
        """The device path the driver opens (a symlink to the current pty slave)."""
        if self._requested_link is not None:
            return self._requested_link
        return self._temporary_dir / "ttySHOE"

    @property
    def plugged(self) -> bool:
        return self.master is not None

    @property
    def pending(self) -> bool:
        """Bytes wait in the outbox (held back or trickled)."""
        return bool(self._outbox)

    # -- the device appears and vanishes -------------------------------------------------

    def plug(self) -> None:
        if self._requested_link is None:
            self._temporary_dir.mkdir(mode=0o700, exist_ok=True)
        self.master, self._slave = open_raw_pty(self.link)
        self._outbox.clear()

    def unplug(self) -> bool:
        """The path vanishes and the pty closes; False when it was not plugged."""
        if self.master is None:
            return False
        with contextlib.suppress(FileNotFoundError):
            self.link.unlink()
        for fd in (self.master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.master = self._slave = None
        self._outbox.clear()
        return True

    def remove(self) -> None:
        """After the last unplug: the private directory goes too."""
        if self._requested_link is None:
            with contextlib.suppress(OSError):
                self._temporary_dir.rmdir()

    # -- bytes in and out ----------------------------------------------------------------

    def read(self) -> bytes:
        """What the host wrote, b"" when nothing (or nobody holds the slave: EIO)."""
        if self.master is None:
            return b""
        try:
            return os.read(self.master, 4096)
        except OSError:  # BlockingIOError: nothing yet; EIO while nobody holds the slave
            return b""

    def queue_fault(self, fault: Fault) -> None:
        """`fault` (one of FRAME_FAULTS) hits the next new event frame."""
        self._faults.append(fault)

    def hold(self, seconds: float) -> None:
        """Everything sent from now waits until `seconds` from now (Fault.DELAY)."""
        self._hold_until = max(self._hold_until, time.monotonic() + seconds)

    def send(self, frame: Frame, *, forget: Callable[[int], None]) -> None:
        """One frame on the wire, hit by the next queued fault if it is a new event; `forget` a LOST sequence."""
        copies = 1
        data = frame.to_bytes()
        if frame.is_sequenced and not frame.is_retransmit and self._faults:
            fault = self._faults.popleft()
            if fault is Fault.DROP:
                copies = 0
            elif fault is Fault.LOSE:
                copies = 0
                forget(frame.sequence)
            elif fault is Fault.DUPLICATE:
                copies = 2
            elif fault is Fault.CORRUPT:
                damaged = bytearray(data)
                damaged[self._random.randrange(1, len(damaged))] ^= self._random.randrange(1, 256)
                data = bytes(damaged)
        for _ in range(copies):
            self.write_frame(frame, data)

    def write_frame(self, frame: Frame, data: bytes) -> None:
        if self.master is None:
            return
        if self._queue(data):
            return
        if self.on_frame_written is not None:
            self.on_frame_written(frame, time.perf_counter_ns())
        self._write_now(data)

    def write_raw(self, data: bytes) -> None:
        """Arbitrary bytes (line noise, a misbehaving firmware), in order with the frames."""
        if self.master is not None and not self._queue(data):
            self._write_now(data)

    def flush(self, now: float) -> float:
        """Write held or trickled bytes that are due; one byte per interval when trickling. Returns the next wait."""
        while self._outbox and self.master is not None:
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

    def _queue(self, data: bytes) -> bool:
        """Queue `data` behind what waits, when held back or trickled; False: write it now."""
        if self._outbox or self.byte_interval is not None or time.monotonic() < self._hold_until:
            self._outbox.append((self._hold_until, data))
            self._wake()
            return True
        return False

    def _write_now(self, data: bytes) -> None:
        assert self.master is not None
        try:
            os.write(self.master, data)
        except BlockingIOError:
            pass  # nobody reads: like a USB device whose host is away, the bytes are lost (§3 recovers)
        except OSError:
            self.unplug()
            self._wake()
