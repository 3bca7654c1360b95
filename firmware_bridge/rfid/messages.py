"""Messages of the chip reader's USB protocol (docs/protocols/rfid.md, section 3).

Each message is a frozen dataclass that knows its type byte and how to write
its body; `decode_message` reads a frame back into one. A body that breaks
section 3 raises `MessageError`; a reader that speaks another major version is
refused by `check_version` (section 4).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar

from firmware_bridge.errors import ProtocolError
from firmware_bridge.rfid.framing import Frame

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 0
MAX_ANTENNAS = 32
UID_SIZE = 8
BLOCK_SIZE = 8
TAG_SIZE = UID_SIZE + 1 + BLOCK_SIZE
BLOCK_FORMAT = 1


class MessageError(ProtocolError):
    """A frame whose body does not match its message type (section 3)."""


class VersionError(ProtocolError):
    """The reader speaks a protocol major version we do not (section 4)."""

    def __init__(self, major: int, minor: int) -> None:
        super().__init__(f"reader speaks protocol {major}.{minor}, this driver speaks {PROTOCOL_MAJOR}.x")
        self.major = major
        self.minor = minor


class MessageType(IntEnum):
    IDENTIFY = 0x01
    INVENTORY = 0x02
    IDENTITY = 0x81
    INVENTORY_RESULT = 0x82
    ERROR = 0xEE


class ErrorCode(IntEnum):
    """Section 3.5."""

    BAD_CRC = 0x01
    UNKNOWN_TYPE = 0x02
    BAD_REQUEST = 0x03
    BUSY = 0x04
    INTERNAL = 0x05


class AntennaStatus(IntEnum):
    """Section 3.6."""

    OK = 0
    OPEN = 1
    SHORT = 2
    TOO_MANY_TAGS = 3
    RF_NOISE = 4


class BlockStatus(IntEnum):
    """Section 3.6."""

    OK = 0
    READ_FAILED = 1
    UNKNOWN_FORMAT = 2


@dataclass(frozen=True, slots=True, kw_only=True)
class Tag:
    """One chip tag read by an antenna: its UID and, if the block was read, its data."""

    uid: str  # 16 upper-case hex digits, most significant byte first
    denomination_cents: int | None = None
    casino_id: int | None = None
    block_status: BlockStatus = BlockStatus.OK

    def __post_init__(self) -> None:
        if len(self.uid) != 2 * UID_SIZE or self.uid != self.uid.upper() or not _is_hex(self.uid):
            raise MessageError(f"tag uid {self.uid!r}: 16 upper-case hex digits")
        if self.block_status == BlockStatus.OK:
            if self.denomination_cents is None or self.casino_id is None:
                raise MessageError(f"tag {self.uid}: a read block carries a denomination and a casino id")
            if not 0 <= self.denomination_cents < 2**32 or not 0 <= self.casino_id < 2**16:
                raise MessageError(f"tag {self.uid}: denomination or casino id out of range")
        elif self.denomination_cents is not None or self.casino_id is not None:
            raise MessageError(f"tag {self.uid}: an unread block carries no data")

    def to_bytes(self) -> bytes:
        if self.block_status == BlockStatus.OK:
            assert self.denomination_cents is not None and self.casino_id is not None
            block = (self.denomination_cents.to_bytes(4, "little") + self.casino_id.to_bytes(2, "little")
                     + bytes((BLOCK_FORMAT, 0)))
        else:
            block = bytes(BLOCK_SIZE)
        return bytes.fromhex(self.uid) + bytes((self.block_status,)) + block

    @classmethod
    def from_bytes(cls, data: bytes) -> Tag:
        uid = data[:UID_SIZE].hex().upper()
        try:
            status = BlockStatus(data[UID_SIZE])
        except ValueError:
            raise MessageError(f"tag {uid}: unknown block status {data[UID_SIZE]}") from None
        block = data[UID_SIZE + 1 : TAG_SIZE]
        if status == BlockStatus.OK and block[6] != BLOCK_FORMAT:
            status = BlockStatus.UNKNOWN_FORMAT
        if status != BlockStatus.OK:
            return cls(uid=uid, block_status=status)
        return cls(uid=uid, denomination_cents=int.from_bytes(block[0:4], "little"),
                   casino_id=int.from_bytes(block[4:6], "little"))


@dataclass(frozen=True, slots=True, kw_only=True)
class AntennaReport:
    """What one antenna saw in one inventory (section 3.4)."""

    antenna: int
    status: AntennaStatus = AntennaStatus.OK
    tags: tuple[Tag, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Identify:
    TYPE: ClassVar[MessageType] = MessageType.IDENTIFY

    def body(self) -> bytes:
        return b""


@dataclass(frozen=True, slots=True, kw_only=True)
class Identity:
    TYPE: ClassVar[MessageType] = MessageType.IDENTITY
    major: int
    minor: int
    antennas: int
    max_tags: int
    firmware: str
    serial: str

    def body(self) -> bytes:
        return (bytes((self.major, self.minor, self.antennas, self.max_tags))
                + _text(self.firmware) + _text(self.serial))


@dataclass(frozen=True, slots=True, kw_only=True)
class Inventory:
    TYPE: ClassVar[MessageType] = MessageType.INVENTORY
    antennas: tuple[int, ...]

    def body(self) -> bytes:
        mask = 0
        for antenna in self.antennas:
            if not 0 <= antenna < MAX_ANTENNAS:
                raise MessageError(f"antenna {antenna} is not 0..{MAX_ANTENNAS - 1}")
            mask |= 1 << antenna
        return mask.to_bytes(4, "little")


@dataclass(frozen=True, slots=True, kw_only=True)
class InventoryResult:
    TYPE: ClassVar[MessageType] = MessageType.INVENTORY_RESULT
    reports: tuple[AntennaReport, ...]

    def body(self) -> bytes:
        parts = [bytes((len(self.reports),))]
        for report in self.reports:
            parts.append(bytes((report.antenna, report.status, len(report.tags))))
            parts.extend(tag.to_bytes() for tag in report.tags)
        return b"".join(parts)


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorReply:
    TYPE: ClassVar[MessageType] = MessageType.ERROR
    code: ErrorCode
    text: str = ""

    def body(self) -> bytes:
        return bytes((self.code,)) + _text(self.text)


Message = Identify | Identity | Inventory | InventoryResult | ErrorReply


def encode(message: Message, seq: int) -> bytes:
    """The bytes of one frame carrying `message`."""
    return Frame(seq, message.TYPE, message.body()).to_bytes()


def _is_hex(text: str) -> bool:
    return all(char in "0123456789ABCDEF" for char in text)


def _text(value: str) -> bytes:
    data = value.encode("ascii")
    if len(data) > 255:
        raise MessageError(f"text of {len(data)} bytes is over 255")
    return bytes((len(data),)) + data


class _Reader:
    def __init__(self, kind: MessageType, body: bytes) -> None:
        self.kind = kind
        self.body = body
        self.offset = 0

    def take(self, size: int) -> bytes:
        if self.offset + size > len(self.body):
            raise MessageError(f"{self.kind.name}: body ends at byte {len(self.body)}, need {self.offset + size}")
        chunk = self.body[self.offset : self.offset + size]
        self.offset += size
        return chunk

    def byte(self) -> int:
        return self.take(1)[0]

    def text(self) -> str:
        data = self.take(self.byte())
        try:
            return data.decode("ascii")
        except UnicodeDecodeError:
            raise MessageError(f"{self.kind.name}: text is not ASCII") from None

    def done(self, allow_trailing: bool = False) -> None:
        if not allow_trailing and self.offset != len(self.body):
            raise MessageError(f"{self.kind.name}: {len(self.body) - self.offset} bytes after the end")


def decode_message(frame: Frame) -> Message:
    """The message a frame carries, or `MessageError`."""
    try:
        kind = MessageType(frame.type)
    except ValueError:
        raise MessageError(f"unknown message type 0x{frame.type:02X}") from None
    reader = _Reader(kind, frame.body)
    message: Message
    if kind == MessageType.IDENTIFY:
        message = Identify()
    elif kind == MessageType.INVENTORY:
        mask = int.from_bytes(reader.take(4), "little")
        message = Inventory(antennas=tuple(i for i in range(MAX_ANTENNAS) if mask >> i & 1))
    elif kind == MessageType.IDENTITY:
        major, minor, antennas, max_tags = reader.take(4)
        message = Identity(major=major, minor=minor, antennas=antennas, max_tags=max_tags,
                           firmware=reader.text(), serial=reader.text())
        reader.done(allow_trailing=True)  # a higher minor may add fields (section 4)
        return message
    elif kind == MessageType.INVENTORY_RESULT:
        reports = []
        for _ in range(reader.byte()):
            antenna, raw_status, count = reader.take(3)
            try:
                status = AntennaStatus(raw_status)
            except ValueError:
                raise MessageError(f"antenna {antenna}: unknown status {raw_status}") from None
            tags = tuple(Tag.from_bytes(reader.take(TAG_SIZE)) for _ in range(count))
            reports.append(AntennaReport(antenna=antenna, status=status, tags=tags))
        message = InventoryResult(reports=tuple(reports))
    else:
        raw_code = reader.byte()
        try:
            code = ErrorCode(raw_code)
        except ValueError:
            code = ErrorCode.INTERNAL
        message = ErrorReply(code=code, text=reader.text())
    reader.done()
    return message


def check_version(identity: Identity) -> None:
    """Section 4: refuse a reader of another major version."""
    if identity.major != PROTOCOL_MAJOR:
        raise VersionError(identity.major, identity.minor)
