"""Frames of the shoe protocol (docs/protocols/shoe.md §2): pure, no I/O.

`decode` looks at the start of a buffer and answers one of three things:
`Decoded` (a good frame and how many bytes it used), `NeedMore` (wait for more
bytes) or `Skipped` (that many bad bytes to drop). `FrameDecoder` keeps the
buffer and the counters for a byte stream. Neither ever raises on bad bytes.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass
from enum import IntFlag

SYNC = 0x7E
MAX_PAYLOAD = 64
HEADER_SIZE = 6  # SYNC, LEN, SEQ(2), TYPE, FLAGS
CRC_SIZE = 2
OVERHEAD = HEADER_SIZE + CRC_SIZE
MAX_FRAME = OVERHEAD + MAX_PAYLOAD
SEQUENCE_MODULUS = 1 << 16
_SYNC_BYTE = bytes([SYNC])


class FrameFlags(IntFlag):
    """FLAGS byte (§2)."""

    NONE = 0
    SEQUENCED = 0x01
    RETRANSMIT = 0x02


_FLAGS: tuple[FrameFlags, ...] = tuple(FrameFlags(value) for value in range(256))


def crc16(data: bytes | bytearray | memoryview) -> int:
    """CRC-16/IBM-3740 (CCITT-FALSE): poly 0x1021, init 0xFFFF, no reflection, no xorout; check 0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True, slots=True, kw_only=True)
class Frame:
    """One frame: the sender's sequence number, the message type, flags and payload."""

    sequence: int
    message_type: int
    flags: FrameFlags = FrameFlags.NONE
    payload: bytes = b""

    def __post_init__(self) -> None:
        # Our own misuse, not the peer's: a plain ValueError.
        if not 0 <= self.sequence < SEQUENCE_MODULUS:
            raise ValueError(f"sequence {self.sequence} outside 0..65535")
        if not 0 <= self.message_type <= 0xFF:
            raise ValueError(f"message type {self.message_type} outside 0..255")
        if not 0 <= self.flags <= 0xFF:
            raise ValueError(f"flags {self.flags} outside 0..255")
        if len(self.payload) > MAX_PAYLOAD:
            raise ValueError(f"payload of {len(self.payload)} bytes exceeds {MAX_PAYLOAD}")

    @property
    def is_sequenced(self) -> bool:
        return bool(self.flags & FrameFlags.SEQUENCED)

    @property
    def is_retransmit(self) -> bool:
        return bool(self.flags & FrameFlags.RETRANSMIT)

    def to_bytes(self) -> bytes:
        body = bytes(
            (
                len(self.payload),
                self.sequence >> 8,
                self.sequence & 0xFF,
                self.message_type,
                int(self.flags),
            )
        ) + self.payload
        return _SYNC_BYTE + body + crc16(body).to_bytes(2, "big")

    @classmethod
    def from_bytes(cls, data: bytes) -> Frame:
        """Exactly one whole frame, or ShoeProtocolError."""
        from firmware_bridge.shoe.errors import ShoeProtocolError

        result = decode(data)
        if isinstance(result, Decoded) and result.consumed == len(data):
            return result.frame
        raise ShoeProtocolError(f"not exactly one good frame: {bytes(data[:MAX_FRAME]).hex(' ')}")


@dataclass(frozen=True, slots=True)
class Decoded:
    """A good frame at the start of the buffer, `consumed` bytes long."""

    frame: Frame
    consumed: int


@dataclass(frozen=True, slots=True)
class NeedMore:
    """The buffer may start a good frame; at least `needed` more bytes are wanted (0 if it is empty)."""

    needed: int


@dataclass(frozen=True, slots=True)
class Skipped:
    """The first `count` bytes cannot start a good frame; drop them."""

    count: int


DecodeResult = Decoded | NeedMore | Skipped


def _skip_to_next_sync(buffer: bytes | bytearray, start: int) -> Skipped:
    following = buffer.find(_SYNC_BYTE, start + 1)
    return Skipped(len(buffer) - start if following < 0 else following - start)


def decode(buffer: bytes | bytearray, start: int = 0) -> DecodeResult:
    """What the bytes of `buffer` from `start` on hold (§2 Decoding)."""
    available = len(buffer) - start
    if available <= 0:
        return NeedMore(HEADER_SIZE)
    if buffer[start] != SYNC:
        following = buffer.find(_SYNC_BYTE, start)
        return Skipped(available if following < 0 else following - start)
    if available < 2:
        return NeedMore(HEADER_SIZE - available)
    length = buffer[start + 1]
    if length > MAX_PAYLOAD:
        return _skip_to_next_sync(buffer, start)
    total = OVERHEAD + length
    if available < total:
        return NeedMore(total - available)
    end = start + total
    body = memoryview(buffer)[start + 1 : end - CRC_SIZE]
    expected = (buffer[end - 2] << 8) | buffer[end - 1]
    if crc16(body) != expected:
        body.release()
        return _skip_to_next_sync(buffer, start)
    body.release()
    frame = Frame(
        sequence=(buffer[start + 2] << 8) | buffer[start + 3],
        message_type=buffer[start + 4],
        flags=_FLAGS[buffer[start + 5]],
        payload=bytes(buffer[start + HEADER_SIZE : end - CRC_SIZE]),
    )
    return Decoded(frame, total)


class FrameDecoder:
    """Turns a byte stream into frames; owns the pending bytes and the bad-byte counters."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self.frames_decoded = 0
        self.bytes_skipped = 0
        self.skips = 0  # how many separate runs of bad bytes were dropped

    @property
    def pending(self) -> int:
        """Bytes held waiting for the rest of a frame."""
        return len(self._buffer)

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame]:
        """Add bytes; return every complete good frame, in order. Never raises on bad bytes.

        The good-frame path is `decode` inlined: this runs for every byte the shoe sends.
        """
        buffer = self._buffer
        buffer += data
        frames: list[Frame] = []
        position = 0
        size = len(buffer)
        while position < size:
            if buffer[position] == SYNC and size - position >= 2:
                length = buffer[position + 1]
                end = position + OVERHEAD + length
                if length <= MAX_PAYLOAD and end <= size:
                    crc_at = end - CRC_SIZE
                    if binascii.crc_hqx(buffer[position + 1 : crc_at], 0xFFFF) == (buffer[crc_at] << 8) | buffer[
                        crc_at + 1
                    ]:
                        frames.append(
                            Frame(
                                sequence=(buffer[position + 2] << 8) | buffer[position + 3],
                                message_type=buffer[position + 4],
                                flags=_FLAGS[buffer[position + 5]],
                                payload=bytes(buffer[position + HEADER_SIZE : crc_at]),
                            )
                        )
                        position = end
                        continue
            result = decode(buffer, position)
            if isinstance(result, Decoded):  # pragma: no cover - the fast path above takes every good frame
                frames.append(result.frame)
                position += result.consumed
            elif isinstance(result, Skipped):
                self.bytes_skipped += result.count
                self.skips += 1
                position += result.count
            else:
                break
        if position:
            del buffer[:position]
        self.frames_decoded += len(frames)
        return frames

    def reset(self) -> None:
        """Forget pending bytes (the link was reopened)."""
        self._buffer.clear()
