"""Frames of the chip reader's USB protocol (docs/protocols/rfid.md, section 2).

Pure: bytes in, frames out. The decoder keeps the bytes it has not used yet
and answers, per call, the complete frames it found; a bad frame (length out of
range, CRC mismatch) is counted and skipped by resynchronising one byte past
its sync.

Linear on any input: a hostile stream can put a sync with a plausible length
every 4 bytes, each claiming up to 16 KiB, so checking each candidate's CRC
from scratch costs up to 4,000 times the stream. Instead the decoder keeps the
CRC register at every `STEP`-th byte of its buffer (each byte is run through
the CRC once) and gets a long frame's CRC from the registers at both ends of
its span: a CRC without final xor is linear, so the CRC of a span is the
register at its end xor the register at its start carried over `length` zero
bytes (`_carried`, from a few precomputed tables). Each candidate then costs
at most `2 * STEP` bytes of CRC, whatever its length.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass

from firmware_bridge.errors import ProtocolError

SYNC = b"\xa5\x5a"
HEADER_SIZE = 4  # sync + length
CRC_SIZE = 2
MAX_BODY = 16384
MAX_LENGTH = MAX_BODY + 2  # seq + type + body
STEP = 64  # bytes between two registers the decoder keeps; a span this short is checked directly
_COMPACT = 1 << 16  # used bytes dropped from the buffer once there are this many


class FrameError(ProtocolError):
    """A frame that cannot be built (field out of range)."""


def crc16(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor (`binascii.crc_hqx`)."""
    return binascii.crc_hqx(data, crc)


_Map = tuple[tuple[int, ...], tuple[int, ...]]


def _zero_map(count: int) -> _Map:
    """The CRC register carried over `count` zero bytes (a linear map), as tables of its high and low byte."""
    zeros = bytes(count)
    images = [binascii.crc_hqx(zeros, 1 << bit) for bit in range(16)]
    low, high = [0] * 256, [0] * 256
    for value in range(1, 256):
        lowest = (value & -value).bit_length() - 1
        low[value] = low[value & (value - 1)] ^ images[lowest]
        high[value] = high[value & (value - 1)] ^ images[lowest + 8]
    return tuple(high), tuple(low)


# Maps for 0..255 zero bytes and for 0, 256, 512, ... zero bytes, built when first needed.
_ONES: list[_Map | None] = [None] * 256
_TIMES_256: list[_Map | None] = [None] * (MAX_LENGTH // 256 + 2)


def _carried(register: int, count: int) -> int:
    """The CRC register after `count` (at most MAX_LENGTH + 2) zero bytes: two table look-ups per byte of `count`."""
    ones = _ONES[count & 0xFF]
    if ones is None:
        ones = _ONES[count & 0xFF] = _zero_map(count & 0xFF)
    high, low = ones
    register = high[register >> 8] ^ low[register & 0xFF]
    hundreds = count >> 8
    if hundreds:
        times = _TIMES_256[hundreds]
        if times is None:
            times = _TIMES_256[hundreds] = _zero_map(hundreds << 8)
        high, low = times
        register = high[register >> 8] ^ low[register & 0xFF]
    return register


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
    """Reassembles frames from a byte stream that may split or corrupt them.

    `crc_bytes` counts the bytes run through the CRC (the decoder's work: at most about `STEP / 2 + 1`
    per byte fed, on any stream).
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._start = 0  # the first byte of the buffer not decided yet
        self._registers = [0]  # the CRC register after the buffer's first i * STEP bytes (from any origin)
        self.bad_frames = 0
        self.skipped_bytes = 0
        self.crc_bytes = 0

    @property
    def pending(self) -> int:
        """Bytes held while waiting for the rest of a frame."""
        return len(self._buffer) - self._start

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

    def _span_crc(self, begin: int, end: int) -> int:
        """The frame CRC (init 0xFFFF) of buffer[begin:end]."""
        if end - begin <= STEP:
            self.crc_bytes += end - begin
            return binascii.crc_hqx(self._buffer[begin:end], 0xFFFF)
        return self._register(end) ^ _carried(self._register(begin) ^ 0xFFFF, end - begin)

    def _register(self, at: int) -> int:
        """The CRC register after the buffer's first `at` bytes, from the kept registers."""
        registers, buffer = self._registers, self._buffer
        index = at // STEP
        while len(registers) <= index:
            done = (len(registers) - 1) * STEP
            registers.append(binascii.crc_hqx(buffer[done : done + STEP], registers[-1]))
            self.crc_bytes += STEP
        self.crc_bytes += at - index * STEP
        return binascii.crc_hqx(buffer[index * STEP : at], registers[index])

    def _compact(self) -> None:
        """Drop the used bytes once there are many (a whole number of steps: the registers stay valid)."""
        if self._start < _COMPACT and self._start * 2 < len(self._buffer):
            return
        steps = self._start // STEP
        if not steps:
            return
        del self._buffer[: steps * STEP]
        self._registers = self._registers[steps:] or [0]
        self._start -= steps * STEP
