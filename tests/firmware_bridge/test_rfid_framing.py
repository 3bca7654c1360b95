"""The chip reader's frame decoder against the one it replaced, and its work on hostile streams.

`ReferenceDecoder` is the decoder as it was (a pure-Python CRC re-run over the
whole claimed frame after every skipped byte): the new one must find the same
frames and count the same bad frames and skipped bytes on any stream, split
anywhere, while its CRC work stays linear in the bytes fed.
"""

from __future__ import annotations

import binascii
import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.rfid import SYNC, Frame, FrameDecoder, crc16
from firmware_bridge.rfid.framing import MAX_LENGTH, STEP


def _reference_crc(data: bytes, crc: int = 0xFFFF) -> int:
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


class ReferenceDecoder:
    """The decoder before it was made linear (kept only to compare against)."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.bad_frames = 0
        self.skipped_bytes = 0

    def feed(self, data: bytes) -> list[Frame]:
        self.buffer += data
        frames: list[Frame] = []
        buffer = self.buffer
        while True:
            start = buffer.find(SYNC)
            if start < 0:
                keep = 1 if buffer.endswith(SYNC[:1]) else 0
                self.skipped_bytes += len(buffer) - keep
                del buffer[: len(buffer) - keep]
                return frames
            if start:
                self.skipped_bytes += start
                del buffer[:start]
            if len(buffer) < 4:
                return frames
            length = int.from_bytes(buffer[2:4], "little")
            if not 2 <= length <= MAX_LENGTH:
                self._bad()
                continue
            end = 4 + length + 2
            if len(buffer) < end:
                return frames
            covered = bytes(buffer[2 : 4 + length])
            if _reference_crc(covered) != int.from_bytes(buffer[end - 2 : end], "little"):
                self._bad()
                continue
            frames.append(Frame(covered[2], covered[3], covered[4:]))
            del buffer[:end]

    def _bad(self) -> None:
        self.bad_frames += 1
        self.skipped_bytes += 1
        del self.buffer[:1]


def test_the_crc_is_crc_hqx_and_ccitt_false() -> None:
    assert binascii.crc_hqx(b"123456789", 0xFFFF) == 0x29B1 == _reference_crc(b"123456789")
    assert crc16(b"123456789") == 0x29B1
    data = random.Random(1).randbytes(5000)
    assert crc16(data) == _reference_crc(data)


frames = st.builds(Frame, st.integers(0, 255), st.integers(0, 255), st.binary(max_size=300)).map(Frame.to_bytes)
# Pieces a hostile or noisy stream is made of: good frames, noise, syncs claiming plausible lengths,
# frames with one byte flipped, and frames cut short.
pieces = st.one_of(
    frames,
    st.binary(max_size=30),
    st.builds(lambda n, tail: SYNC + n.to_bytes(2, "little") + tail, st.integers(0, 400), st.binary(max_size=8)),
    st.builds(lambda frame, at: frame[:at] + bytes((frame[at % len(frame)] ^ 0x10,)) + frame[at + 1:],
              frames, st.integers(0, 400)),
    st.builds(lambda frame, at: frame[:at], frames, st.integers(0, 400)),
)


def _decode(decoder: FrameDecoder | ReferenceDecoder, stream: bytes, cuts: list[int]) -> list[Frame]:
    out: list[Frame] = []
    edges = [0, *sorted(cut % (len(stream) + 1) for cut in cuts), len(stream)]
    for begin, end in itertools.pairwise(edges):
        out += decoder.feed(stream[begin:end])
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(pieces, max_size=25), st.lists(st.integers(0, 1 << 20), max_size=12))
def test_the_same_frames_and_counts_as_the_reference_decoder(parts: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(parts)
    new, old = FrameDecoder(), ReferenceDecoder()
    assert _decode(new, stream, cuts) == _decode(old, stream, cuts)
    assert (new.bad_frames, new.skipped_bytes, new.pending) == (old.bad_frames, old.skipped_bytes, len(old.buffer))


def test_long_frames_among_noise_decode_as_the_reference_does() -> None:
    rng = random.Random(7)
    parts = []
    for _ in range(30):
        parts.append(Frame(rng.randrange(256), 0x82, rng.randbytes(rng.randrange(0, 16384))).to_bytes())
        parts.append(SYNC + rng.randrange(STEP, MAX_LENGTH).to_bytes(2, "little") + rng.randbytes(rng.randrange(9)))
    stream = b"".join(parts)
    cuts = [rng.randrange(len(stream)) for _ in range(200)]
    new, old = FrameDecoder(), ReferenceDecoder()
    decoded = _decode(new, stream, cuts)
    assert len(decoded) >= 28  # a sync claiming more than is left waits for the rest: the last frames may wait
    assert decoded == _decode(old, stream, cuts)
    assert (new.bad_frames, new.skipped_bytes) == (old.bad_frames, old.skipped_bytes)


def hostile(size: int, seed: int = 3) -> bytes:
    """A sync every 4 bytes, each claiming a frame of 8 to 16 KiB: every one a CRC to check."""
    rng = random.Random(seed)
    return b"".join(SYNC + rng.randrange(8192, MAX_LENGTH).to_bytes(2, "little") for _ in range(size // 4))


def _work(stream: bytes, chunk: int) -> int:
    decoder = FrameDecoder()
    for begin in range(0, len(stream), chunk):
        decoder.feed(stream[begin : begin + chunk])  # a candidate may pass by chance (1 in 65,536)
    return decoder.crc_bytes


def test_the_crc_work_is_linear_on_a_hostile_stream() -> None:
    # The old decoder ran about 12 KiB of CRC per candidate here, 3,000 times the stream.
    for chunk in (64, 16384):
        small, large = _work(hostile(1 << 17), chunk), _work(hostile(1 << 18), chunk)
        assert small <= (STEP // 2 + 1) * (1 << 17)
        assert 1.8 < large / small < 2.2


def test_random_and_valid_streams_cost_about_one_crc_pass() -> None:
    rng = random.Random(5)
    noise = rng.randbytes(1 << 18)
    valid = b"".join(Frame(n % 256, 0x82, rng.randbytes(900)).to_bytes() for n in range(280))
    for stream in (noise, valid):
        decoder = FrameDecoder()
        decoder.feed(stream)
        assert decoder.crc_bytes <= 2 * len(stream)
