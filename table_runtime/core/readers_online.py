"""A device of several readers (the chip readers, the player card readers) is online only when every reader is.

Its readers each say when they read and when they are gone; the device's status on the display and in the
journal follows from this rule alone: one reader gone is the device offline, and it is online again only once
every one of them reads again.
"""

from __future__ import annotations

from collections.abc import Iterable


class ReadersOnline:
    """Which of a device's readers last said they read; the device's status they make."""

    def __init__(self, readers: Iterable[str]) -> None:
        self.readers = frozenset(readers)
        self._reading: set[str] = set()

    def online(self, reader: str) -> str | None:
        """`reader` reads: "online" once every reader does, else None (the device's status unchanged)."""
        self._reading.add(reader)
        return "online" if self._reading >= self.readers else None

    def offline(self, reader: str) -> str:
        """`reader` is gone: the device is offline."""
        self._reading.discard(reader)
        return "offline"
