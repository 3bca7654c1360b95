"""`EvdevCardReader`: a keyboard-wedge player card reader read through the Linux input layer.

The reader's event device (``/dev/input/by-id/usb-...-event-kbd``, a character device) is opened non-blocking and
read in the event loop (`loop.add_reader`: no thread). It is grabbed exclusively (the EVIOCGRAB ioctl): while the
table holds it, the card numbers it types reach no console, login prompt or kiosk browser. A FIFO (the simulated
reader, simulators/player_card.py) is read the same way, without the grab, which a pipe has not. The bytes are
`input_event` records decoded by firmware_bridge/key_events.py (docs/protocols/player_card.md).

The record size is the system's for an event device (the kernel writes the `input_event` of the reading process:
24 bytes on a 64-bit system, 16 on a 32-bit one; a configured size that disagrees is logged and not used), the
configured one for a FIFO; the decoder detects the other size, and stray bytes, when the records stop making
sense, and reads on from the next ENTER (the card lost then is a `CardUnreadable`, an alarm). Each wake-up of the
loop reads and decodes at most `READS_PER_WAKE` reads of `READ_RECORDS` records, so a reader that types without
end (a card number of a megabyte at pipe speed) never holds the loop: the rest waits for the next wake-up.

A reader pulled out (ENODEV, or an end of file on a FIFO), missing at the start, or not ours to open (permissions,
grabbed by another program) is `CardReaderOffline` with the reason in one line, never a traceback; the driver
looks for it again every `retry_seconds` and says `CardReaderOnline` once it reads it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import logging
import os
import stat
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Final, Self

from drivers.ports import CardRead, CardReaderEvent, CardReaderOffline, CardReaderOnline, CardUnreadable
from firmware_bridge.key_events import MAX_KEYS, NATIVE_LAYOUT, CardNumber, EventLayout, KeyDecoder

# _IOW('E', 0x90, int) from include/uapi/linux/input.h: direction write (1 << 30), size 4 (<< 16), type 'E' (<< 8).
EVIOCGRAB: Final = (1 << 30) | (4 << 16) | (ord("E") << 8) | 0x90
READ_RECORDS = 64  # records read at most per os.read (a card is a few hundred)
READS_PER_WAKE = 16  # os.read calls per wake-up of the loop at most (1,024 records: well under a millisecond)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Gone:
    reason: str


class EvdevCardReader:
    """One card reader at `path`: its decoder, its file descriptor while open, and whether it is online."""

    def __init__(self, path: str | os.PathLike[str], *, name: str = "table", layout: EventLayout = NATIVE_LAYOUT,
                 retry_seconds: float = 1.0, max_keys: int = MAX_KEYS, clock: Callable[[], float] = time.time,
                 grab: bool = True) -> None:
        self.path = Path(path)
        self._name = name
        self.layout = layout
        self.retry_seconds = retry_seconds
        self.max_keys = max_keys
        self._clock = clock
        self._grab = grab  # False: leave the device to others too (a test bench sharing a keyboard)
        self._fd: int | None = None
        self._queue: asyncio.Queue[CardReaderEvent | _Gone] = asyncio.Queue()
        self._decoder = KeyDecoder(layout, max_keys)
        self.grabbed = False  # whether the open device is held exclusively (never for a FIFO)

    @property
    def name(self) -> str:
        return self._name

    @property
    def online(self) -> bool:
        return self._fd is not None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        self._close()

    async def reads(self) -> AsyncGenerator[CardReaderEvent, None]:
        said_offline = False
        while True:
            try:
                device = self._open()
            except OSError as error:
                if not said_offline:
                    yield CardReaderOffline(reader=self._name, at=self._clock(), reason=_why(self.path, error))
                    said_offline = True
                await asyncio.sleep(self.retry_seconds)
                continue
            said_offline = False
            yield CardReaderOnline(reader=self._name, at=self._clock(), device=device)
            while True:
                item = await self._queue.get()
                if isinstance(item, _Gone):
                    self._close()
                    yield CardReaderOffline(reader=self._name, at=self._clock(), reason=item.reason)
                    said_offline = True
                    break
                yield item
            await asyncio.sleep(self.retry_seconds)

    # ------------------------------------------------------------------ the device

    def _open(self) -> str:
        """Open (and grab) the device; what it is, for the log. OSError when it cannot be read."""
        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            mode = os.fstat(fd).st_mode
            layout = self.layout
            if stat.S_ISCHR(mode):
                if layout != NATIVE_LAYOUT:
                    log.warning("%s: event_size %d configured, but this system's input_event is %d bytes: %d used",
                                self.path, layout.size, NATIVE_LAYOUT.size, NATIVE_LAYOUT.size)
                    layout = NATIVE_LAYOUT
                if self._grab:
                    fcntl.ioctl(fd, EVIOCGRAB, 1)
                    self.grabbed = True
                kind = "input event device" + (", grabbed" if self._grab else "")
            elif stat.S_ISFIFO(mode):
                kind = "FIFO, not grabbed"
            else:
                raise OSError(errno.ENODEV, "neither an input event device nor a FIFO")
            self._decoder = KeyDecoder(layout, self.max_keys)  # a read cut by the unplug is not continued
            self._queue = asyncio.Queue()
            asyncio.get_running_loop().add_reader(fd, self._readable)  # OSError: a device the loop cannot poll
        except OSError:
            os.close(fd)
            self.grabbed = False
            raise
        self._fd = fd
        return f"{self.path} ({kind}, {layout.size}-byte events)"

    def _readable(self) -> None:
        """The loop's callback: read what is there (at most `READS_PER_WAKE` reads: the loop calls again while more
        waits), decode it, queue the reads (or that the device is gone)."""
        fd = self._fd
        if fd is None:
            return
        for _ in range(READS_PER_WAKE):
            try:
                data = os.read(fd, READ_RECORDS * self._decoder.layout.size)
            except BlockingIOError:
                return
            except OSError as error:  # ENODEV: the reader was pulled out
                self._gone(f"{self.path}: {error.strerror or error}")
                return
            if not data:
                self._gone(f"{self.path}: the device closed (unplugged)")
                return
            now = self._clock()
            for item in self._decoder.feed(data, at=now):
                if isinstance(item, CardNumber):
                    self._queue.put_nowait(CardRead(reader=self._name, at=now, number=item.number))
                else:
                    self._queue.put_nowait(CardUnreadable(reader=self._name, at=now,
                                                          reason=f"{item.reason} ({item.keys} characters)"))

    def _gone(self, reason: str) -> None:
        if self._fd is not None:
            asyncio.get_running_loop().remove_reader(self._fd)
        self._queue.put_nowait(_Gone(reason))

    def _close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(RuntimeError):  # no loop any more (closing at exit): nothing to remove
            asyncio.get_running_loop().remove_reader(fd)
        os.close(fd)  # closing the descriptor also ends the grab
        self.grabbed = False


def _why(path: Path, error: OSError) -> str:
    """One line saying why the reader cannot be opened, and what to do about it."""
    if error.errno == errno.ENOENT:
        return f"{path}: no such device (unplugged?)"
    if error.errno in (errno.EACCES, errno.EPERM):
        return f"{path}: permission denied (the table's user must be in the `input` group)"
    if error.errno == errno.EBUSY:
        return f"{path}: grabbed by another program"
    return f"{path}: {error.strerror or error}"
