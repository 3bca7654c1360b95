"""The ISO-Host commands we send and the replies we read (docs/protocols/feig.md, sections 3 and 4).

Requests are built as frames (`request`), replies split into STATUS and data (`Reply.from_frame`), and the data of
the replies we use read into frozen dataclasses: the software version (0x65), the ISO 15693 inventory (0xB0 0x01)
with or without per-antenna records, and the data blocks of one tag (0xB0 0x23). A reply whose data breaks
section 4 raises `ReplyError`. The simulated reader writes the same replies with the `to_data` methods.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from firmware_bridge.errors import ProtocolError
from firmware_bridge.feig.framing import Frame

UID_SIZE = 8
ISO15693 = 0x03  # TR-TYPE of an ISO 15693 tag


class ReplyError(ProtocolError):
    """A reply whose data does not match its command (section 4)."""


class Command(IntEnum):
    """Section 3: the commands this project sends."""

    SOFTWARE_VERSION = 0x65
    READER_INFO = 0x66
    RF_RESET = 0x69
    RF_OUTPUT = 0x6A
    CHECK_ANTENNAS = 0x76
    ISO_HOST = 0xB0  # ISO 15693 host commands; the first data byte names one


DEVICE_ID_MODE = 0x80  # MODE of 0x66 (reader info) whose reply is the reader's device id


class IsoCommand(IntEnum):
    INVENTORY = 0x01
    READ_MULTIPLE_BLOCKS = 0x23


class InventoryMode(IntEnum):
    """Bits of the inventory's MODE byte."""

    ANTENNA = 0x10  # ANT-SEL follows: a bit per reader output; the reply lists per-antenna records
    MORE = 0x80  # the next page of the last inventory (after STATUS 0x94)


class Status(IntEnum):
    """STATUS of a reply (section 3.2); the manuals list more, which we report by number."""

    OK = 0x00
    NO_TRANSPONDER = 0x01
    DATA_FALSE = 0x02  # the request's data (CRC or content) was wrong
    BUSY = 0x0F
    PARAMETER_RANGE = 0x11
    UNKNOWN_COMMAND = 0x80
    LENGTH_ERROR = 0x81
    COMMAND_NOT_AVAILABLE = 0x82
    RF_COMMUNICATION_ERROR = 0x83
    RF_WARNING = 0x84  # antenna fault: the antenna's impedance or the RF power is wrong
    MORE_DATA = 0x94
    ISO15693_ERROR = 0x95


def status_name(value: int) -> str:
    """`RF_WARNING (0x84)`, or the number alone for a status we do not name."""
    try:
        return f"{Status(value).name} (0x{value:02X})"
    except ValueError:
        return f"status 0x{value:02X}"


def request(address: int, command: int, data: bytes = b"", *, advanced: bool = False) -> Frame:
    return Frame(address, command, data, advanced)


def inventory_data(*, antennas: int | None = None, more: bool = False) -> bytes:
    """The data of an ISO 15693 inventory: `antennas` is the ANT-SEL bit field (None: the reader's default)."""
    mode = (InventoryMode.MORE if more else 0) | (InventoryMode.ANTENNA if antennas is not None else 0)
    if antennas is None:
        return bytes((IsoCommand.INVENTORY, mode))
    if not 0 < antennas <= 0xFF:
        raise ReplyError(f"ANT-SEL {antennas}: one to eight reader outputs")
    return bytes((IsoCommand.INVENTORY, mode, antennas))


def read_blocks_data(uid: str, first: int, count: int) -> bytes:
    """Read Multiple Blocks of one tag, addressed by its UID (MODE 0x01)."""
    return bytes((IsoCommand.READ_MULTIPLE_BLOCKS, 0x01)) + bytes.fromhex(uid) + bytes((first, count))


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """A reply frame split into its STATUS and the data after it."""

    address: int
    command: int
    status: int
    data: bytes = b""

    @classmethod
    def from_frame(cls, frame: Frame) -> Reply:
        if not frame.data:
            raise ReplyError(f"reply to 0x{frame.command:02X} without a STATUS byte")
        return cls(address=frame.address, command=frame.command, status=frame.data[0], data=frame.data[1:])

    def to_frame(self, *, advanced: bool = False) -> Frame:
        return Frame(self.address, self.command, bytes((self.status,)) + self.data, advanced)


@dataclass(frozen=True, slots=True, kw_only=True)
class SoftwareVersion:
    """The reply to 0x65 (section 4.1): SW-REV (2 bytes), D-REV, HW-TYPE, SW-TYPE, TR-TYPE (2 bytes)."""

    revision: int
    development: int
    hardware_type: int
    reader_type: int
    transponders: int

    @property
    def firmware(self) -> str:
        return f"{self.revision >> 8}.{self.revision & 0xFF:02d}.{self.development:02d}"

    @classmethod
    def from_data(cls, data: bytes) -> SoftwareVersion:
        if len(data) < 7:
            raise ReplyError(f"software version of {len(data)} bytes: expected 7")
        return cls(revision=data[0] << 8 | data[1], development=data[2], hardware_type=data[3],
                   reader_type=data[4], transponders=data[5] << 8 | data[6])

    def to_data(self) -> bytes:
        return (self.revision.to_bytes(2, "big") + bytes((self.development, self.hardware_type, self.reader_type))
                + self.transponders.to_bytes(2, "big"))


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceId:
    """The reply to 0x66 with MODE 0x80 (section 4.1): DEV_ID (4 bytes, the reader's serial number) and the
    firmware's licence fields we do not use (12 bytes)."""

    device_id: int

    @property
    def serial(self) -> str:
        return f"{self.device_id:08X}"

    @classmethod
    def from_data(cls, data: bytes) -> DeviceId:
        if len(data) < 4:
            raise ReplyError(f"device id of {len(data)} bytes: expected at least 4")
        return cls(device_id=int.from_bytes(data[:4], "big"))

    def to_data(self) -> bytes:
        return self.device_id.to_bytes(4, "big") + bytes(12)


@dataclass(frozen=True, slots=True, kw_only=True)
class Sighting:
    """One antenna that saw a tag (the inventory with ANT-SEL): its number, its status, the signal strength."""

    antenna: int
    status: int = 0
    rssi: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class TagRecord:
    """One tag of an inventory reply: its type, DSFID and UID (16 hex digits, E0 first), where it was seen."""

    uid: str
    transponder: int = ISO15693
    dsfid: int = 0
    sightings: tuple[Sighting, ...] = ()

    def to_data(self, *, antennas: bool) -> bytes:
        data = bytes((self.transponder, self.dsfid)) + bytes.fromhex(self.uid)
        if antennas:
            data += bytes((len(self.sightings),))
            data += b"".join(bytes((s.antenna, s.status, s.rssi)) for s in self.sightings)
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class InventoryPage:
    """One reply to an inventory (section 4.2): its tags; `more` when STATUS 0x94 said another page waits."""

    tags: tuple[TagRecord, ...]
    more: bool = False

    @classmethod
    def from_reply(cls, reply: Reply, *, antennas: bool) -> InventoryPage:
        if reply.status == Status.NO_TRANSPONDER:
            return cls(tags=())
        if reply.status not in (Status.OK, Status.MORE_DATA):
            raise ReplyError(f"inventory answered {status_name(reply.status)}")
        data = reply.data
        if not data:
            raise ReplyError("inventory reply without DATA-SETS")
        tags: list[TagRecord] = []
        at = 1
        for index in range(data[0]):
            if len(data) < at + 2 + UID_SIZE:
                raise ReplyError(f"inventory data set {index + 1} of {data[0]} is cut short")
            transponder, dsfid = data[at], data[at + 1]
            uid = data[at + 2 : at + 2 + UID_SIZE].hex().upper()
            at += 2 + UID_SIZE
            sightings: list[Sighting] = []
            if antennas:
                if len(data) < at + 1 or len(data) < at + 1 + 3 * data[at]:
                    raise ReplyError(f"inventory data set {index + 1}: antenna records cut short")
                count = data[at]
                sightings = [Sighting(antenna=data[at + 1 + 3 * n], status=data[at + 2 + 3 * n],
                                      rssi=data[at + 3 + 3 * n]) for n in range(count)]
                at += 1 + 3 * count
            tags.append(TagRecord(uid=uid, transponder=transponder, dsfid=dsfid, sightings=tuple(sightings)))
        if at != len(data):
            raise ReplyError(f"inventory reply: {len(data) - at} bytes after the last data set")
        return cls(tags=tuple(tags), more=reply.status == Status.MORE_DATA)

    def to_data(self, *, antennas: bool) -> bytes:
        return bytes((len(self.tags),)) + b"".join(tag.to_data(antennas=antennas) for tag in self.tags)


@dataclass(frozen=True, slots=True, kw_only=True)
class Blocks:
    """The reply to Read Multiple Blocks (section 4.3): DB-N, DB-SIZE, then per block its security status and data."""

    size: int
    blocks: tuple[bytes, ...]

    @property
    def data(self) -> bytes:
        return b"".join(self.blocks)

    @classmethod
    def from_reply(cls, reply: Reply) -> Blocks:
        if reply.status != Status.OK:
            raise ReplyError(f"read blocks answered {status_name(reply.status)}")
        data = reply.data
        if len(data) < 2 or data[1] == 0:
            raise ReplyError("read blocks reply without DB-N and DB-SIZE")
        count, size = data[0], data[1]
        if len(data) != 2 + count * (1 + size):
            raise ReplyError(f"read blocks reply of {len(data)} bytes for {count} blocks of {size}")
        return cls(size=size, blocks=tuple(data[3 + n * (1 + size) : 3 + n * (1 + size) + size]
                                           for n in range(count)))

    def to_data(self) -> bytes:
        return bytes((len(self.blocks), self.size)) + b"".join(b"\x00" + block for block in self.blocks)
