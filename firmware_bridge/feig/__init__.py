"""FEIG's ISO-Host protocol for ISO 15693 readers: frames (framing.py) and messages (messages.py).

See docs/protocols/feig.md. Pure: no I/O, no clock.
"""

from firmware_bridge.feig.framing import BROADCAST, Frame, FrameDecoder, FrameError, crc16
from firmware_bridge.feig.messages import (
    DEVICE_ID_MODE,
    ISO15693,
    Blocks,
    Command,
    DeviceId,
    InventoryMode,
    InventoryPage,
    IsoCommand,
    Reply,
    ReplyError,
    Sighting,
    SoftwareVersion,
    Status,
    TagRecord,
    inventory_data,
    read_blocks_data,
    request,
    status_name,
)

__all__ = [
    "BROADCAST",
    "DEVICE_ID_MODE",
    "ISO15693",
    "Blocks",
    "Command",
    "DeviceId",
    "Frame",
    "FrameDecoder",
    "FrameError",
    "InventoryMode",
    "InventoryPage",
    "IsoCommand",
    "Reply",
    "ReplyError",
    "Sighting",
    "SoftwareVersion",
    "Status",
    "TagRecord",
    "crc16",
    "inventory_data",
    "read_blocks_data",
    "request",
    "status_name",
]
