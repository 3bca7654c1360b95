"""Frames of the chip reader's USB protocol (docs/protocols/rfid.md, section 2).

Pure: bytes in, frames out. The decoder keeps the bytes it has not used yet
and answers, per call, the complete frames it found; a bad frame (length out of
range, CRC mismatch) is counted and skipped by resynchronising one byte past
its sync.

Linear on any input: a hostile stream can put a sync with a plausible length
every 4 bytes, each claiming up to 16 KiB, so the decoder gets a long
candidate's CRC from the registers `firmware_bridge.crc_stream.CrcStream` keeps
every `STEP` bytes: each candidate costs at most `2 * STEP` bytes of CRC,
whatever its length.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass

from firmware_bridge.crc_stream import STEP as STEP  # the decoder's register spacing, named here too
from firmware_bridge.crc_stream import CrcStream
from firmware_bridge.errors import ProtocolError

SYNC = b"\xa5\x5a"
HEADER_SIZE = 4  # sync + length
CRC_SIZE = 2
MAX_BODY = 16384
MAX_LENGTH = MAX_BODY + 2  # seq + type + body


class FrameError(ProtocolError):
    """A frame that cannot be built (field out of range)."""


def crc16(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor (`binascii.crc_hqx`)."""
    return binascii.crc_hqx(data, crc)


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


class FrameDecoder(CrcStream):
    """Reassembles frames from a byte stream that may split or corrupt them.

    `crc_bytes` counts the bytes run through the CRC (the decoder's work: at most about `STEP / 2 + 1`
    per byte fed, on any stream).
    """

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += data
        frames: list[Frame] = []
        buffer = self._buffer
        start = self._start
        bad = skipped = 0
        while True:
            found = buffer.find(SYNC, start)
            if found < 0:
                # Keep a trailing first sync byte: its partner may come next.
                keep = 1 if len(buffer) > start and buffer[-1] == SYNC[0] else 0
                skipped += len(buffer) - keep - start
                start = len(buffer) - keep
                break
            skipped += found - start
            start = found
            if len(buffer) - start < HEADER_SIZE:
                break
            length = buffer[start + 2] | buffer[start + 3] << 8
            end = start + HEADER_SIZE + length + CRC_SIZE
            if 2 <= length <= MAX_LENGTH:
                if len(buffer) < end:
                    break
                if self._span_crc(start + 2, end - CRC_SIZE) == buffer[end - 2] | buffer[end - 1] << 8:
                    frames.append(Frame(buffer[start + 4], buffer[start + 5], bytes(buffer[start + 6 : end - 2])))
                    start = end
                    continue
            bad += 1  # a bad frame: skip one byte past its sync
            skipped += 1
            start += 1
        self.bad_frames += bad
        self.skipped_bytes += skipped
        self._start = start
        self._compact()
        return frames
