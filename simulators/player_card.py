"""A simulated keyboard-wedge player card reader: real `input_event` records in a FIFO the real driver reads.

`SimulatedCardReader(path)` makes a named pipe (os.mkfifo) at `path` and writes into it what the kernel would
write into the event device of a USB card reader when a card is swiped: per character, an EV_MSC scan code, the
key press, a SYN_REPORT, the key release and a SYN_REPORT (SHIFT pressed around the characters that need it),
then ENTER (docs/protocols/player_card.md). The real driver (drivers/player_card.py) opens `path` as it would
open ``/dev/input/by-id/...-event-kbd`` (it skips the exclusive grab, a FIFO has none).

The simulator holds the pipe open for reading and writing itself, so the pipe always has a writer (the driver
never reads an end of file while the simulated reader is plugged in) and a card swiped before the driver opened
it waits in the pipe. `unplug()` closes that end and removes the file: the driver reads an end of file, as it
reads ENODEV from a real device pulled out, and the path is gone until `replug()`.

The faults, gpiozero-style: `stray(count)` (bytes that are no record: the records after them are out of
alignment), `stick_shift()` (SHIFT pressed and never released), `write(data)` (anything else); a reader made with
the other `layout` than the driver's writes records of the other size.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from types import TracebackType
from typing import Self

from firmware_bridge.key_events import (
    EV_KEY,
    EV_MSC,
    EV_SYN,
    KEY_ENTER,
    KEY_LEFTSHIFT,
    NATIVE_LAYOUT,
    EventLayout,
    encode_event,
    key_code_of,
)

MSC_SCAN = 0x04  # the EV_MSC code carrying the key's USB HID usage
_HID_ENTER = 0x70028


def typed(text: str, layout: EventLayout = NATIVE_LAYOUT, *, enter: bool = True) -> bytes:
    """The records a keyboard-wedge reader sends to type `text` (then ENTER when `enter`)."""
    records: list[bytes] = []

    def key(code: int, value: int) -> None:
        records.append(encode_event(layout, EV_MSC, MSC_SCAN, 0x70000 + code))
        records.append(encode_event(layout, EV_KEY, code, value))
        records.append(encode_event(layout, EV_SYN, 0, 0))

    for character in text:
        code, shift = key_code_of(character)
        if shift:
            key(KEY_LEFTSHIFT, 1)
        key(code, 1)
        key(code, 0)
        if shift:
            key(KEY_LEFTSHIFT, 0)
    if enter:
        records.append(encode_event(layout, EV_MSC, MSC_SCAN, _HID_ENTER))
        key(KEY_ENTER, 1)
        key(KEY_ENTER, 0)
    return b"".join(records)


class SimulatedCardReader:
    """A card reader at a FIFO path: `swipe(number)` types a card; `unplug()` / `replug()` take it away and back."""

    def __init__(self, path: str | os.PathLike[str], *, layout: EventLayout = NATIVE_LAYOUT) -> None:
        self.path = Path(path)
        self.layout = layout
        self._fd: int | None = None
        self.swiped = 0  # cards typed so far (a test helper)

    @property
    def plugged(self) -> bool:
        return self._fd is not None

    def start(self) -> Self:
        self.replug()
        return self

    def stop(self) -> None:
        self.unplug()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()

    def replug(self) -> None:
        """The FIFO made at `path`, held open by the reader (made under another name, then renamed, so that the
        driver never opens a pipe nobody writes)."""
        if self._fd is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = self.path.with_name(f".{self.path.name}.new")
        fresh.unlink(missing_ok=True)
        os.mkfifo(fresh, 0o600)
        self._fd = os.open(fresh, os.O_RDWR)  # Linux: a FIFO opened for both never blocks and always has a writer
        os.replace(fresh, self.path)

    def unplug(self) -> None:
        """The reader pulled out: the driver reads an end of file; the path is gone."""
        if self._fd is None:
            return
        os.close(self._fd)
        self._fd = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def swipe(self, number: str, *, track: int | None = None) -> None:
        """A card read: `number` typed then ENTER; `track` 1 or 2 wraps it in that magnetic track's sentinels."""
        text = {None: number, 2: f";{number}=4912?", 1: f"%B{number}^PLAYER/CARD^4912?"}[track]
        self.write(typed(text, self.layout))
        self.swiped += 1

    def stray(self, count: int = 16) -> None:
        """`count` bytes that are no record (zeros: they read as the time of a record), so that every record after
        them is out of alignment."""
        self.write(bytes(count))

    def stick_shift(self) -> None:
        """SHIFT pressed and never released (a reader's glitch): every character after it would type shifted."""
        self.write(encode_event(self.layout, EV_KEY, KEY_LEFTSHIFT, 1) + encode_event(self.layout, EV_SYN, 0, 0))

    def write(self, data: bytes) -> None:
        """Raw bytes into the device (a partial record, another layout, garbage: the tests' faults)."""
        if self._fd is None:
            raise OSError(f"{self.path}: the simulated card reader is unplugged")
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]
