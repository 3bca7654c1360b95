"""Frames of the chip reader's USB protocol (docs/protocols/rfid.md, section 2).

Pure: bytes in, frames out. The decoder keeps the bytes it has not used yet
and answers, per call, the complete frames it found; a bad frame (length out of
range, CRC mismatch) is counted and skipped by resynchronising one byte past
its sync.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.errors import ProtocolError

SYNC = b"\xa5\x5a"
HEADER_SIZE = 4  # sync + length
CRC_SIZE = 2
MAX_BODY = 16384
MAX_LENGTH = MAX_BODY + 2  # seq + type + body


class FrameError(ProtocolError):
    """A frame that cannot be built (field out of range)."""


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_TABLE = _crc_table()


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame: the sequence number, the message type and its body."""

    seq: int
    type: int
    body: bytes = b""

    def __post_init__(self) -> None:
        if not 0 <= self.seq <= 255:
            raise FrameError(f"seq {self.seq} is not 0..255")
        if not 0 <= self.type <= 255:
            raise FrameError(f"type {self.type} is not 0..255")
        if len(self.body) > MAX_BODY:
            raise FrameError(f"body of {len(self.body)} bytes is over {MAX_BODY}")

    def to_bytes(self) -> bytes:
        covered = (len(self.body) + 2).to_bytes(2, "little") + bytes((self.seq, self.type)) + self.body
        return SYNC + covered + crc16(covered).to_bytes(2, "little")


class FrameDecoder:
    """Reassembles frames from a byte stream that may split or corrupt them."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self.bad_frames = 0
        self.skipped_bytes = 0

    @property
    def pending(self) -> int:
        """Bytes held while waiting for the rest of a frame."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += data
        frames: list[Frame] = []
        buffer = self._buffer
        while True:
            start = buffer.find(SYNC)
            if start < 0:
                # Keep a trailing first sync byte: its partner may come next.
                keep = 1 if buffer.endswith(SYNC[:1]) else 0
                self.skipped_bytes += len(buffer) - keep
                del buffer[: len(buffer) - keep]
                return frames
            if start:
                self.skipped_bytes += start
                del buffer[:start]
            if len(buffer) < HEADER_SIZE:
                return frames
            length = int.from_bytes(buffer[2:4], "little")
            if not 2 <= length <= MAX_LENGTH:
                self._bad(buffer)
                continue
            end = HEADER_SIZE + length + CRC_SIZE
            if len(buffer) < end:
                return frames
            covered = bytes(buffer[2 : HEADER_SIZE + length])
            if crc16(covered) != int.from_bytes(buffer[end - 2 : end], "little"):
                self._bad(buffer)
                continue
            frames.append(Frame(covered[2], covered[3], covered[4:]))
            del buffer[:end]

    def _bad(self, buffer: bytearray) -> None:
        self.bad_frames += 1
        self.skipped_bytes += 1
        del buffer[:1]
