"""Frames of FEIG's ISO-Host protocol (docs/protocols/feig.md, section 2).

Two frame shapes, the same fields:

- standard: ``LEN COM-ADR CMD [DATA] CRC16``, LEN (one byte) counting the whole frame (5..255);
- advanced: ``02 LEN_MSB LEN_LSB COM-ADR CMD [DATA] CRC16``, LEN counting the whole frame (7..MAX_ADVANCED).

A reply carries its STATUS as the first byte of DATA (firmware_bridge.feig.messages splits it off). The CRC is
CRC-16/MCRF4XX (reflected polynomial 0x8408, preset 0xFFFF, no final xor) over every byte before it, sent least
significant byte first.

Pure: bytes in, frames out. The standard frame has no sync byte, so every byte may start a frame; the decoder
checks the candidate at its first undecided byte and, on a bad one (length out of range, CRC mismatch), skips one
byte. Linear on any input: the reflected CRC of a span is the bit-reversal of CCITT's CRC (`binascii.crc_hqx`)
over the bit-reversed bytes, so the decoder keeps the bit-reversed stream and the CCITT register every `STEP`
bytes, and gets a long candidate's CRC from the registers at both ends of its span (firmware_bridge.crc_stream,
as the chip reader's decoder does). A candidate costs at most `2 * (STEP - 1)` bytes of CRC (the bytes between
each end of its span and the register before it), and every byte is run once more to keep the registers: at most
`2 * STEP - 1` bytes of CRC per byte fed. Unlike the chip reader's frames, whose sync makes a candidate at most
every fourth byte, every byte here may start one, so the registers are kept closer (8 bytes, not 64):
bench/README.md has the figures (`python -m bench.feig_framing`).
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass

from firmware_bridge.crc_stream import CrcStream
from firmware_bridge.errors import ProtocolError

ADVANCED_START = 0x02
BROADCAST = 0xFF  # COM-ADR every reader answers
STANDARD_MIN = 5  # LEN ADR CMD CRC CRC
ADVANCED_MIN = 7  # 02 LEN LEN ADR CMD CRC CRC
STANDARD_MAX = 255
MAX_ADVANCED = 16384  # our limit: a reader pages longer inventories with STATUS 0x94 (more data)
STEP = 8  # bytes between two CRC registers the decoder keeps: a candidate may start at every byte

_REVERSED = bytes(int(f"{byte:08b}"[::-1], 2) for byte in range(256))


class FrameError(ProtocolError):
    """A frame that cannot be built (field out of range)."""


def _reverse16(value: int) -> int:
    return _REVERSED[value & 0xFF] << 8 | _REVERSED[value >> 8]


def crc16(data: bytes | bytearray | memoryview) -> int:
    """CRC-16/MCRF4XX (poly 0x8408 reflected, preset 0xFFFF, no final xor): 0x6F91 on b"123456789"."""
    return _reverse16(binascii.crc_hqx(bytes(data).translate(_REVERSED), 0xFFFF))


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame: the reader's bus address, the command and its data (a reply's data starts with STATUS)."""

    address: int
    command: int
    data: bytes = b""
    advanced: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.address <= 255:
            raise FrameError(f"COM-ADR {self.address} is not 0..255")
        if not 0 <= self.command <= 255:
            raise FrameError(f"command {self.command} is not 0..255")
        limit = MAX_ADVANCED - ADVANCED_MIN if self.advanced else STANDARD_MAX - STANDARD_MIN
        if len(self.data) > limit:
            raise FrameError(f"{len(self.data)} bytes of data: a {self.kind} frame holds at most {limit}")

    @property
    def kind(self) -> str:
        return "advanced" if self.advanced else "standard"

    def to_bytes(self) -> bytes:
        if self.advanced:
            length = ADVANCED_MIN + len(self.data)
            covered = bytes((ADVANCED_START, length >> 8, length & 0xFF, self.address, self.command)) + self.data
        else:
            covered = bytes((STANDARD_MIN + len(self.data), self.address, self.command)) + self.data
        return covered + crc16(covered).to_bytes(2, "little")


class FrameDecoder(CrcStream):
    """Reassembles the frames of one shape (standard or advanced) from a stream that may split or corrupt them.

    `crc_bytes` counts the bytes run through the CRC: at most `2 * step - 1` per byte fed, on any stream.
    """

    def __init__(self, *, advanced: bool | None = False, step: int = STEP) -> None:
        super().__init__(step=step)  # _buffer holds the stream bit-reversed byte by byte (what the CCITT CRC runs over)
        self.advanced = advanced  # None: either shape, as a reader takes them (a standard LEN is never 0x02)

    def reset(self) -> None:
        """Forget what is held (the host gave up waiting for a reply: the reader stays silent on a bad frame)."""
        self.skipped_bytes += self.pending
        self._start = len(self._buffer)
        self._compact()

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += bytes(data).translate(_REVERSED)
        frames: list[Frame] = []
        buffer, start = self._buffer, self._start
        bad = 0
        while True:
            span = self._candidate(start)
            if span is None:
                break
            if span > 0:
                end = start + span
                if len(buffer) < end:
                    break
                sent = _REVERSED[buffer[end - 2]] | _REVERSED[buffer[end - 1]] << 8
                if _reverse16(self._span_crc(start, end - 2)) == sent:
                    frames.append(self._frame(start, end, advanced=_REVERSED[buffer[start]] == ADVANCED_START))
                    start = end
                    continue
            bad += 1
            start += 1
        self.bad_frames += bad
        self.skipped_bytes += bad
        self._start = start
        self._compact()
        return frames

    def _candidate(self, start: int) -> int | None:
        """The length the frame at `start` claims; 0: no frame can start there; None: need more bytes."""
        buffer = self._buffer
        have = len(buffer) - start
        if have < 1:
            return None
        first = _REVERSED[buffer[start]]
        if not self.advanced and (self.advanced is False or first != ADVANCED_START):
            return first if first >= STANDARD_MIN else 0
        if first != ADVANCED_START:
            return 0
        if have < 3:
            return None
        length = _REVERSED[buffer[start + 1]] << 8 | _REVERSED[buffer[start + 2]]
        return length if ADVANCED_MIN <= length <= MAX_ADVANCED else 0

    def _frame(self, start: int, end: int, *, advanced: bool) -> Frame:
        raw = bytes(self._buffer[start:end]).translate(_REVERSED)
        head = 3 if advanced else 1
        return Frame(raw[head], raw[head + 1], raw[head + 2 : -2], advanced)
