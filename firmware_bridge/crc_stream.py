"""The bytes a frame decoder holds, and the CRC-16/CCITT of any span of them in bounded work.

Both chip reader protocols (firmware_bridge.rfid.framing, firmware_bridge.feig.framing) check a candidate frame
that may claim up to 16 KiB at every byte a hostile stream offers; checking each candidate's CRC from scratch
would cost thousands of times the stream. `CrcStream` keeps the CCITT register (`binascii.crc_hqx`, init 0xFFFF,
no final xor) at every `step`-th byte of its buffer (`STEP` unless the decoder says otherwise), each byte run
through the CRC once, and gets a long span's CRC from the registers at both ends: a CRC without final xor is
linear, so the CRC of a span is the register at its end xor the register at its start carried over the span's
length in zero bytes (`carried`, from a few precomputed tables). Each span then costs at most `2 * (step - 1)`
bytes of CRC, whatever its length (a span of at most `step` bytes is checked directly). A decoder whose candidates
may start at every byte (FEIG's standard frame has no sync) keeps its registers closer than one whose sync spaces
them out (the chip reader's: at most one every 4 bytes).

A decoder subclasses it, appends what it receives to `_buffer`, moves `_start` past what it has decided, asks
`_span_crc`, and calls `_compact` at the end of each feed. Pure: bytes in, numbers out.
"""

from __future__ import annotations

import binascii

__all__ = ["STEP", "CrcStream", "carried"]

STEP = 64  # bytes between two registers the stream keeps; a span this short is checked directly
_COMPACT = 1 << 16  # used bytes dropped from the buffer once there are this many

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
_TIMES_256: dict[int, _Map] = {}


def carried(register: int, count: int) -> int:
    """The CRC register after `count` zero bytes: two table look-ups per byte of `count`."""
    ones = _ONES[count & 0xFF]
    if ones is None:
        ones = _ONES[count & 0xFF] = _zero_map(count & 0xFF)
    high, low = ones
    register = high[register >> 8] ^ low[register & 0xFF]
    hundreds = count >> 8
    if hundreds:
        times = _TIMES_256.get(hundreds)
        if times is None:
            times = _TIMES_256[hundreds] = _zero_map(hundreds << 8)
        high, low = times
        register = high[register >> 8] ^ low[register & 0xFF]
    return register


class CrcStream:
    """The bytes a decoder has received and not dropped yet, with the CCITT register every `step` bytes.

    `crc_bytes` counts the bytes run through the CRC (the decoder's work); `bad_frames` and `skipped_bytes` are
    the decoder's counts of what it refused.
    """

    def __init__(self, *, step: int = STEP) -> None:
        self._step = step  # bytes between two kept registers; a span this short is checked directly
        self._buffer = bytearray()
        self._start = 0  # the first byte of the buffer not decided yet
        self._registers = [0]  # the CRC register after the buffer's first i * step bytes (from any origin)
        self.bad_frames = 0
        self.skipped_bytes = 0
        self.crc_bytes = 0

    @property
    def pending(self) -> int:
        """Bytes held while waiting for the rest of a frame."""
        return len(self._buffer) - self._start

    def _span_crc(self, begin: int, end: int) -> int:
        """The CCITT CRC (init 0xFFFF) of buffer[begin:end]."""
        if end - begin <= self._step:
            self.crc_bytes += end - begin
            return binascii.crc_hqx(self._buffer[begin:end], 0xFFFF)
        return self._register(end) ^ carried(self._register(begin) ^ 0xFFFF, end - begin)

    def _register(self, at: int) -> int:
        """The CRC register after the buffer's first `at` bytes, from the kept registers."""
        registers, buffer, step = self._registers, self._buffer, self._step
        index = at // step
        while len(registers) <= index:
            done = (len(registers) - 1) * step
            registers.append(binascii.crc_hqx(buffer[done : done + step], registers[-1]))
            self.crc_bytes += step
        self.crc_bytes += at - index * step
        return binascii.crc_hqx(buffer[index * step : at], registers[index])

    def _compact(self) -> None:
        """Drop the used bytes once there are many (a whole number of steps: the registers stay valid)."""
        if self._start < _COMPACT and self._start * 2 < len(self._buffer):
            return
        steps = self._start // self._step
        if not steps:
            return
        del self._buffer[: steps * self._step]
        self._registers = self._registers[steps:] or [0]
        self._start -= steps * self._step
