"""Frames of the shoe protocol: CRC variant, round trips, corruption never accepted."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.shoe import (
    Decoded,
    Frame,
    FrameDecoder,
    FrameFlags,
    NeedMore,
    ShoeProtocolError,
    Skipped,
    crc16,
    decode,
)
from firmware_bridge.shoe.framing import MAX_PAYLOAD, SYNC

frames = st.builds(
    lambda sequence, message_type, flags, payload: Frame(
        sequence=sequence, message_type=message_type, flags=FrameFlags(flags), payload=payload
    ),
    st.integers(0, 0xFFFF),
    st.integers(0, 0xFF),
    st.integers(0, 0xFF),
    st.binary(max_size=MAX_PAYLOAD),
)


def test_crc_is_ibm_3740_with_its_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


def test_documented_example_frame() -> None:
    frame = Frame(
        sequence=7, message_type=0x10, flags=FrameFlags.SEQUENCED, payload=bytes.fromhex("000C41530011")
    )
    data = frame.to_bytes()
    assert data.hex(" ") == "7e 06 00 07 10 01 00 0c 41 53 00 11 87 08"
    assert Frame.from_bytes(data) == frame


@settings(deadline=None)  # no timing in unit tests: CI machines are loaded
@given(frames)
def test_frame_round_trip(frame: Frame) -> None:
    data = frame.to_bytes()
    assert len(data) == 8 + len(frame.payload)
    assert decode(data) == Decoded(frame, len(data))
    assert Frame.from_bytes(data) == frame


@settings(deadline=None)  # no timing in unit tests: CI machines are loaded
@given(st.lists(frames, max_size=8), st.data())
def test_stream_split_anywhere_gives_the_same_frames(sent: list[Frame], data: st.DataObject) -> None:
    stream = b"".join(frame.to_bytes() for frame in sent)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    decoder = FrameDecoder()
    received: list[Frame] = []
    previous = 0
    for cut in [*cuts, len(stream)]:
        received += decoder.feed(stream[previous:cut])
        previous = cut
    assert received == sent
    assert decoder.bytes_skipped == 0
    assert decoder.pending == 0


def test_byte_at_a_time_answers_need_more_until_whole() -> None:
    data = Frame(sequence=1, message_type=2, payload=b"abc").to_bytes()
    for size in range(len(data)):
        assert isinstance(decode(data[:size]), NeedMore)
    decoder = FrameDecoder()
    results = [decoder.feed(data[i : i + 1]) for i in range(len(data))]
    assert results[:-1] == [[]] * (len(data) - 1)
    assert len(results[-1]) == 1


def test_garbage_before_a_frame_is_skipped_and_counted() -> None:
    frame = Frame(sequence=3, message_type=0x14, flags=FrameFlags.SEQUENCED)
    assert decode(b"\x00\x01" + frame.to_bytes()) == Skipped(2)
    decoder = FrameDecoder()
    assert decoder.feed(b"hello\x7e\xff" + frame.to_bytes()) == [frame]
    assert decoder.bytes_skipped == 7


def test_length_over_the_maximum_is_not_a_frame_start() -> None:
    assert decode(bytes([SYNC, MAX_PAYLOAD + 1, 0, 0])) == Skipped(4)


def test_from_bytes_refuses_anything_but_one_frame() -> None:
    data = Frame(sequence=1, message_type=2).to_bytes()
    for bad in (data + b"\x00", data[:-1], b"", data[:-1] + bytes([data[-1] ^ 1])):
        try:
            Frame.from_bytes(bad)
        except ShoeProtocolError:
            continue
        raise AssertionError(f"accepted {bad.hex()}")


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.lists(frames, min_size=1, max_size=4), st.data())
def test_a_corrupted_frame_is_never_accepted(sent: list[Frame], data: st.DataObject) -> None:
    encoded = [frame.to_bytes() for frame in sent]
    victim = data.draw(st.integers(0, len(sent) - 1), label="victim")
    position = data.draw(st.integers(1, len(encoded[victim]) - 1), label="position")  # any byte after SYNC
    damage = data.draw(st.integers(1, 255), label="xor")
    broken = bytearray(encoded[victim])
    broken[position] ^= damage
    encoded[victim] = bytes(broken)
    decoder = FrameDecoder()
    received = decoder.feed(b"".join(encoded))
    received += decoder.feed(b"\x7e" * 80)  # flush a frame the corruption made look longer
    # Every intact frame is recovered, in order; the damaged one never.
    intact = [frame for index, frame in enumerate(sent) if index != victim]
    assert received == intact
    assert decoder.bytes_skipped > 0


@settings(deadline=None)  # no timing in unit tests: CI machines are loaded
@given(st.lists(st.binary(max_size=200), max_size=20))
def test_decoder_never_raises_on_arbitrary_bytes(chunks: list[bytes]) -> None:
    decoder = FrameDecoder()
    for chunk in chunks:
        for frame in decoder.feed(chunk):
            assert isinstance(frame, Frame)
    assert decoder.pending <= len(b"".join(chunks))


@settings(derandomize=True, max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=30), frames), min_size=1, max_size=6), st.binary(max_size=30))
def test_noise_between_frames_is_skipped_and_every_frame_recovered(
    pieces: list[tuple[bytes, Frame]], tail: bytes
) -> None:
    stream = b"".join(noise + frame.to_bytes() for noise, frame in pieces) + tail
    decoder = FrameDecoder()
    received = [*decoder.feed(stream), *decoder.feed(b"\x7e" * 80)]
    assert received == [frame for _, frame in pieces]
