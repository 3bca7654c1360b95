"""The serial line to the shoe: the port a configured URL names, the asyncio protocol that hands the shoe's bytes
and the loss of the port to the driver (drivers/shoe.py), and whether bytes wait on the port unread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from urllib.parse import urlsplit

from firmware_bridge.errors import ConfigError

BAUD_RATE = 115200  # the shoe's line: 115200 8N1 (docs/protocols/shoe.md §1)
_PYSERIAL_SCHEMES = ("socket", "rfc2217", "loop")


def port_of(url: str) -> str:
    """The pyserial port for a configured device: `serial:///dev/ttyACM0`, a plain path, or a pyserial URL."""
    parts = urlsplit(url)
    if parts.scheme == "serial":
        if not parts.path:
            raise ConfigError("devices.shoe", f"{url!r}: name the port, e.g. serial:///dev/ttyACM0")
        return parts.path
    if parts.scheme in _PYSERIAL_SCHEMES:
        return url
    if parts.scheme == "" and url:
        return url
    raise ConfigError("devices.shoe", f"{url!r}: use serial:///dev/ttyACM0, a device path, or socket:// rfc2217://")


class ShoeLine(asyncio.Protocol):
    """The pyserial-asyncio-fast protocol: hands the bytes to `on_bytes` and the loss of the port to `lost`."""

    def __init__(self, on_bytes: Callable[[bytes], None]) -> None:
        self._on_bytes = on_bytes
        self.lost: asyncio.Future[Exception | None] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        self._on_bytes(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(exc)


def bytes_waiting(transport: asyncio.BaseTransport | None) -> bool:
    """Whether bytes from the shoe wait on the port, unread (False when the port cannot tell)."""
    try:
        return transport is not None and bool(transport.serial.in_waiting)  # type: ignore[attr-defined]
    except (OSError, AttributeError, ValueError):
        return False
