"""The chip reader's USB protocol: frames (framing.py) and messages (messages.py).

See docs/protocols/rfid.md. Pure: no I/O, no clock.
"""

from firmware_bridge.rfid.framing import SYNC, Frame, FrameDecoder, FrameError, crc16
from firmware_bridge.rfid.messages import (
    PROTOCOL_MAJOR,
    PROTOCOL_MINOR,
    AntennaReport,
    AntennaStatus,
    BlockStatus,
    ErrorCode,
    ErrorReply,
    Identify,
    Identity,
    Inventory,
    InventoryResult,
    Message,
    MessageError,
    MessageType,
    Tag,
    VersionError,
    check_version,
    decode_message,
    encode,
)

__all__ = [
    "PROTOCOL_MAJOR",
    "PROTOCOL_MINOR",
    "SYNC",
    "AntennaReport",
    "AntennaStatus",
    "BlockStatus",
    "ErrorCode",
    "ErrorReply",
    "Frame",
    "FrameDecoder",
    "FrameError",
    "Identify",
    "Identity",
    "Inventory",
    "InventoryResult",
    "Message",
    "MessageError",
    "MessageType",
    "Tag",
    "VersionError",
    "check_version",
    "crc16",
    "decode_message",
    "encode",
]
