"""Errors of the shoe protocol (docs/protocols/shoe.md)."""

from __future__ import annotations

from firmware_bridge.errors import DeviceError, ProtocolError


class ShoeProtocolError(ProtocolError):
    """Bytes from the shoe that break docs/protocols/shoe.md."""


class MalformedMessageError(ShoeProtocolError):
    """A frame with a good CRC whose payload does not fit its message type (§2, §4)."""

    def __init__(self, message_type: int, reason: str) -> None:
        super().__init__(f"malformed shoe message type 0x{message_type:02X}: {reason}")
        self.message_type = message_type
        self.reason = reason


class ShoeVersionError(DeviceError):
    """The shoe speaks a protocol version this host does not (§6): a firmware update is needed."""

    def __init__(self, spoken: int, supported: tuple[int, ...], device: str = "") -> None:
        versions = ", ".join(str(v) for v in supported)
        where = f" on {device}" if device else ""
        super().__init__(
            f"shoe{where} speaks protocol version {spoken}; this host speaks "
            f"version{'s' if len(supported) > 1 else ''} {versions} only "
            "(update the shoe firmware or the table controller)"
        )
        self.spoken = spoken
        self.supported = supported
        self.device = device
