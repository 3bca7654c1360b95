"""Messages of the shoe protocol (docs/protocols/shoe.md §4, §5): payloads to and from typed values.

Pure. `shoe_frame`/`parse_shoe_frame` are the shoe→host direction (events,
`Hello`, `Heartbeat`); `host_frame`/`parse_host_frame` the host→shoe commands.
Parsing raises only `MalformedMessageError`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from firmware_bridge.shoe.errors import MalformedMessageError
from firmware_bridge.shoe.events import (
    CARD_RANKS,
    CARD_SUITS,
    BufferGateChanged,
    CardDrawn,
    CutCardReached,
    DoorClosed,
    DoorOpened,
    GateChanged,
    Jam,
    JamCleared,
    SequencedShoeEvent,
    ShoeShuffled,
    UnreadableCard,
    is_card_code,
)
from firmware_bridge.shoe.framing import Frame, FrameFlags

PROTOCOL_VERSION = 2  # what a shoe of ours speaks; version 2 added BUFFER_GATE and HEARTBEAT's BUFFER_FULL (§3)
SUPPORTED_VERSIONS: tuple[int, ...] = (1, PROTOCOL_VERSION)  # a version-1 shoe just never sends them


class MessageType(IntEnum):
    HELLO = 0x01
    HEARTBEAT = 0x02
    BUFFER_GATE = 0x03
    CARD_DRAWN = 0x10
    SHOE_LOADED = 0x11
    CUT_CARD_REACHED = 0x12
    UNREADABLE_CARD = 0x13
    DOOR_OPENED = 0x14
    DOOR_CLOSED = 0x15
    JAM = 0x16
    JAM_CLEARED = 0x17
    GATE_CHANGED = 0x18
    IDENTIFY = 0x81
    ACK = 0x82
    RESEND = 0x83
    SET_GATE = 0x84


class ShoeStatus(IntEnum):
    """Bits of HEARTBEAT.status (§4)."""

    DOOR_OPEN = 0x01
    GATE_LOCKED = 0x02
    JAMMED = 0x04
    BUFFER_FULL = 0x08  # version 2: the gate is locked because the resend buffer is full (§3)


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello:
    """The shoe's answer to IDENTIFY (§4, §6)."""

    protocol_version: int
    boot_id: int
    next_sequence: int
    oldest_held: int
    shoe_id: int
    cards_drawn: int
    firmware_version: str
    serial_number: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Heartbeat:
    """Sent every 500 ms (§4)."""

    next_sequence: int
    status: int
    cards_drawn: int


@dataclass(frozen=True, slots=True)
class Identify:
    """Host asks the shoe to say HELLO."""


@dataclass(frozen=True, slots=True)
class Ack:
    """Every event up to and including `sequence` arrived."""

    sequence: int


@dataclass(frozen=True, slots=True)
class Resend:
    """Resend buffered events from `from_sequence` on."""

    from_sequence: int


@dataclass(frozen=True, slots=True)
class SetGate:
    """Lock (no card can leave) or unlock the card gate."""

    locked: bool


HostCommand = Identify | Ack | Resend | SetGate
ShoeMessage = SequencedShoeEvent | Hello | Heartbeat | BufferGateChanged

_U16 = struct.Struct(">H")
_LOADED = struct.Struct(">IBHHB")
_CUT = struct.Struct(">IH")
_CARD = struct.Struct(">HccH")
_HEARTBEAT = struct.Struct(">HBH")
_BUFFER_GATE = struct.Struct(">BHH")
_HELLO_FIXED = struct.Struct(">BIHHIH")


def _text(value: str, field: str) -> bytes:
    data = value.encode("ascii")
    if len(data) > 20:
        raise ValueError(f"{field} longer than 20 ASCII characters: {value!r}")
    return bytes((len(data),)) + data


def _event_payload(event: SequencedShoeEvent) -> tuple[MessageType, bytes]:
    match event:
        case CardDrawn(code=code, card_number=number, raw_code=raw):
            if not is_card_code(code):
                raise ValueError(f"not a card code: {code!r} (rank {CARD_RANKS} then suit {CARD_SUITS})")
            return MessageType.CARD_DRAWN, _CARD.pack(number, code[0].encode(), code[1].encode(), raw)
        case ShoeShuffled():
            payload = _LOADED.pack(event.shoe_id, event.decks, event.cards, event.cut_position, int(event.stacked))
            return MessageType.SHOE_LOADED, payload
        case CutCardReached(shoe_id=shoe_id, card_number=number):
            return MessageType.CUT_CARD_REACHED, _CUT.pack(shoe_id, number)
        case UnreadableCard(card_number=number):
            return MessageType.UNREADABLE_CARD, _U16.pack(number)
        case DoorOpened():
            return MessageType.DOOR_OPENED, b""
        case DoorClosed():
            return MessageType.DOOR_CLOSED, b""
        case Jam():
            return MessageType.JAM, b""
        case JamCleared():
            return MessageType.JAM_CLEARED, b""
        case GateChanged(locked=locked):
            return MessageType.GATE_CHANGED, bytes((int(locked),))
    raise TypeError(f"not a shoe event: {event!r}")


def shoe_frame(message: ShoeMessage, *, retransmit: bool = False) -> Frame:
    """The frame the shoe sends for an event, a Hello, a Heartbeat or its buffer gate's state."""
    if isinstance(message, Hello):
        payload = (
            _HELLO_FIXED.pack(
                message.protocol_version,
                message.boot_id,
                message.next_sequence,
                message.oldest_held,
                message.shoe_id,
                message.cards_drawn,
            )
            + _text(message.firmware_version, "firmware_version")
            + _text(message.serial_number, "serial_number")
        )
        return Frame(sequence=0, message_type=MessageType.HELLO, payload=payload)
    if isinstance(message, Heartbeat):
        payload = _HEARTBEAT.pack(message.next_sequence, message.status, message.cards_drawn)
        return Frame(sequence=0, message_type=MessageType.HEARTBEAT, payload=payload)
    if isinstance(message, BufferGateChanged):
        payload = _BUFFER_GATE.pack(int(message.locked), message.held, message.capacity)
        return Frame(sequence=0, message_type=MessageType.BUFFER_GATE, payload=payload)
    message_type, payload = _event_payload(message)
    flags = FrameFlags.SEQUENCED | (FrameFlags.RETRANSMIT if retransmit else FrameFlags.NONE)
    return Frame(sequence=message.sequence, message_type=message_type, flags=flags, payload=payload)


def _unpack(layout: struct.Struct, frame: Frame) -> tuple[object, ...]:
    if len(frame.payload) != layout.size:
        raise MalformedMessageError(
            frame.message_type, f"payload is {len(frame.payload)} bytes, expected {layout.size}"
        )
    return layout.unpack(frame.payload)


def _expect_empty(frame: Frame) -> None:
    if frame.payload:
        raise MalformedMessageError(frame.message_type, f"payload is {len(frame.payload)} bytes, expected none")


def _flag(frame: Frame) -> bool:
    if len(frame.payload) != 1 or frame.payload[0] > 1:
        raise MalformedMessageError(frame.message_type, f"expected one byte 0 or 1, got {frame.payload.hex()}")
    return frame.payload[0] == 1


def _parse_hello(frame: Frame) -> Hello:
    payload = frame.payload
    fixed = _HELLO_FIXED.size
    if len(payload) < fixed + 2:
        raise MalformedMessageError(frame.message_type, f"HELLO of {len(payload)} bytes is too short")
    version, boot_id, next_sequence, oldest, shoe_id, cards_drawn = _HELLO_FIXED.unpack_from(payload)
    texts: list[str] = []
    position = fixed
    for field in ("firmware version", "serial number"):
        if position >= len(payload):
            raise MalformedMessageError(frame.message_type, f"HELLO ends before the {field}")
        length = payload[position]
        raw = payload[position + 1 : position + 1 + length]
        if len(raw) != length or not raw.isascii():
            raise MalformedMessageError(frame.message_type, f"HELLO {field} is cut short or not ASCII")
        texts.append(raw.decode("ascii"))
        position += 1 + length
    if position != len(payload):
        raise MalformedMessageError(frame.message_type, f"HELLO has {len(payload) - position} trailing bytes")
    return Hello(
        protocol_version=version,
        boot_id=boot_id,
        next_sequence=next_sequence,
        oldest_held=oldest,
        shoe_id=shoe_id,
        cards_drawn=cards_drawn,
        firmware_version=texts[0],
        serial_number=texts[1],
    )


def protocol_version_of(frame: Frame) -> int | None:
    """The version byte of a HELLO, read before anything else is trusted (§6)."""
    if frame.message_type == MessageType.HELLO and frame.payload:
        return frame.payload[0]
    return None


def parse_shoe_frame(frame: Frame) -> ShoeMessage:
    """Decode a shoe→host frame; MalformedMessageError if its payload does not fit its type."""
    kind = frame.message_type
    if kind == MessageType.HELLO:
        return _parse_hello(frame)
    if kind == MessageType.HEARTBEAT:
        next_sequence, status, cards_drawn = _unpack(_HEARTBEAT, frame)
        assert isinstance(next_sequence, int) and isinstance(status, int) and isinstance(cards_drawn, int)
        return Heartbeat(next_sequence=next_sequence, status=status, cards_drawn=cards_drawn)
    if kind == MessageType.BUFFER_GATE:
        locked, held, capacity = _unpack(_BUFFER_GATE, frame)
        assert isinstance(locked, int) and isinstance(held, int) and isinstance(capacity, int)
        if locked > 1 or held > capacity:
            raise MalformedMessageError(kind, f"locked {locked} (0 or 1), {held} held of {capacity}")
        return BufferGateChanged(locked=bool(locked), held=held, capacity=capacity)
    if not frame.is_sequenced:
        raise MalformedMessageError(kind, "unknown unsequenced message type")
    sequence = frame.sequence
    if kind == MessageType.CARD_DRAWN:
        number, rank, suit, raw = _unpack(_CARD, frame)
        assert isinstance(rank, bytes) and isinstance(suit, bytes)
        assert isinstance(number, int) and isinstance(raw, int)
        code = rank.decode("latin-1") + suit.decode("latin-1")
        if not is_card_code(code):
            raise MalformedMessageError(kind, f"no card has rank {rank!r} and suit {suit!r}")
        return CardDrawn(sequence=sequence, code=code, card_number=number, raw_code=raw)
    if kind == MessageType.SHOE_LOADED:
        shoe_id, decks, cards, cut, stacked = _unpack(_LOADED, frame)
        assert isinstance(shoe_id, int) and isinstance(decks, int) and isinstance(cards, int)
        assert isinstance(cut, int) and isinstance(stacked, int)
        if stacked > 1:
            raise MalformedMessageError(kind, f"stacked must be 0 or 1, got {stacked}")
        return ShoeShuffled(
            sequence=sequence, shoe_id=shoe_id, decks=decks, cards=cards, cut_position=cut, stacked=bool(stacked)
        )
    if kind == MessageType.CUT_CARD_REACHED:
        shoe_id, number = _unpack(_CUT, frame)
        assert isinstance(shoe_id, int) and isinstance(number, int)
        return CutCardReached(sequence=sequence, shoe_id=shoe_id, card_number=number)
    if kind == MessageType.UNREADABLE_CARD:
        (number,) = _unpack(_U16, frame)
        assert isinstance(number, int)
        return UnreadableCard(sequence=sequence, card_number=number)
    if kind == MessageType.GATE_CHANGED:
        return GateChanged(sequence=sequence, locked=_flag(frame))
    simple: dict[int, type[SequencedShoeEvent]] = {
        MessageType.DOOR_OPENED: DoorOpened,
        MessageType.DOOR_CLOSED: DoorClosed,
        MessageType.JAM: Jam,
        MessageType.JAM_CLEARED: JamCleared,
    }
    event_class = simple.get(kind)
    if event_class is None:
        raise MalformedMessageError(kind, "unknown sequenced message type")
    _expect_empty(frame)
    return event_class(sequence=sequence)


def host_frame(command: HostCommand, sequence: int) -> Frame:
    """The frame the host sends for a command; `sequence` is the host's own counter (§5)."""
    match command:
        case Identify():
            return Frame(sequence=sequence, message_type=MessageType.IDENTIFY)
        case Ack(sequence=acked):
            return Frame(sequence=sequence, message_type=MessageType.ACK, payload=_U16.pack(acked))
        case Resend(from_sequence=start):
            return Frame(sequence=sequence, message_type=MessageType.RESEND, payload=_U16.pack(start))
        case SetGate(locked=locked):
            return Frame(sequence=sequence, message_type=MessageType.SET_GATE, payload=bytes((int(locked),)))
    raise TypeError(f"not a host command: {command!r}")


def parse_host_frame(frame: Frame) -> HostCommand:
    """Decode a host→shoe frame (the firmware side); MalformedMessageError if it does not fit."""
    kind = frame.message_type
    if kind == MessageType.IDENTIFY:
        _expect_empty(frame)
        return Identify()
    if kind == MessageType.ACK:
        (acked,) = _unpack(_U16, frame)
        assert isinstance(acked, int)
        return Ack(acked)
    if kind == MessageType.RESEND:
        (start,) = _unpack(_U16, frame)
        assert isinstance(start, int)
        return Resend(start)
    if kind == MessageType.SET_GATE:
        return SetGate(_flag(frame))
    raise MalformedMessageError(kind, "unknown host command")
