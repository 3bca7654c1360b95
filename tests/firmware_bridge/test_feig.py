"""FEIG ISO-Host codec: the public test vectors, round trips, corruption, and linear work on hostile streams."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.feig import (
    Blocks,
    DeviceId,
    Frame,
    FrameDecoder,
    InventoryPage,
    Reply,
    ReplyError,
    Sighting,
    SoftwareVersion,
    Status,
    TagRecord,
    crc16,
    inventory_data,
    read_blocks_data,
)
from firmware_bridge.feig.framing import MAX_ADVANCED, STEP


def _reference_crc(data: bytes) -> int:
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


def test_the_crc_is_mcrf4xx() -> None:
    assert crc16(b"123456789") == 0x6F91 == _reference_crc(b"123456789")
    data = random.Random(2).randbytes(3000)
    assert crc16(data) == _reference_crc(data)


@pytest.mark.parametrize(("frame", "wire"), [
    (Frame(0xFF, 0x65, advanced=True), "02 00 07 FF 65 6E 61"),
    (Frame(0xFF, 0x65), "05 FF 65 E5 CB"),
    (Frame(0xFF, 0xB0, inventory_data(), advanced=True), "02 00 09 FF B0 01 00 18 43"),
    (Frame(0x00, 0x65, bytes.fromhex("00 03 03 00 44 53 0D 30")), "0D 00 65 00 03 03 00 44 53 0D 30 33 09"),
])
def test_the_public_vectors_encode_and_decode(frame: Frame, wire: str) -> None:
    raw = bytes.fromhex(wire)
    assert frame.to_bytes() == raw
    assert FrameDecoder(advanced=frame.advanced).feed(raw) == [frame]


def test_the_software_version_reply_reads() -> None:
    reply = Reply.from_frame(FrameDecoder().feed(bytes.fromhex("0D 00 65 00 03 03 00 44 53 0D 30 33 09"))[0])
    assert reply.status == Status.OK
    version = SoftwareVersion.from_data(reply.data)
    assert (version.revision, version.hardware_type, version.reader_type) == (0x0303, 0x44, 0x53)
    assert version.firmware == "3.03.00"
    assert SoftwareVersion.from_data(version.to_data()) == version


uids = st.binary(min_size=7, max_size=7).map(lambda tail: ("E0" + tail.hex()).upper())
sightings = st.builds(Sighting, antenna=st.integers(1, 88), status=st.integers(0, 255), rssi=st.integers(0, 255))
records = st.builds(TagRecord, uid=uids, dsfid=st.integers(0, 255),
                    sightings=st.lists(sightings, max_size=3).map(tuple))


@settings(max_examples=200, deadline=None)
@given(st.lists(records, max_size=20), st.booleans(), st.booleans())
def test_an_inventory_page_round_trips(tags: list[TagRecord], antennas: bool, more: bool) -> None:
    if not antennas:
        tags = [TagRecord(uid=tag.uid, dsfid=tag.dsfid) for tag in tags]
    page = InventoryPage(tags=tuple(tags), more=more)
    reply = Reply(address=0, command=0xB0, status=Status.MORE_DATA if more else Status.OK,
                  data=page.to_data(antennas=antennas))
    decoded = FrameDecoder(advanced=True).feed(reply.to_frame(advanced=True).to_bytes())
    assert InventoryPage.from_reply(Reply.from_frame(decoded[0]), antennas=antennas) == page


@given(st.lists(records, min_size=1, max_size=5), st.integers(0, 40))
def test_a_cut_inventory_is_an_error_not_a_short_list(tags: list[TagRecord], cut: int) -> None:
    data = InventoryPage(tags=tuple(tags)).to_data(antennas=True)
    cut = cut % (len(data) - 1) + 1
    with pytest.raises(ReplyError):
        InventoryPage.from_reply(Reply(address=0, command=0xB0, status=0, data=data[:-cut]), antennas=True)


def test_no_transponder_is_an_empty_page_and_a_fault_an_error() -> None:
    assert InventoryPage.from_reply(Reply(address=0, command=0xB0, status=Status.NO_TRANSPONDER),
                                    antennas=True).tags == ()
    with pytest.raises(ReplyError, match="RF_WARNING"):
        InventoryPage.from_reply(Reply(address=0, command=0xB0, status=Status.RF_WARNING), antennas=True)


def test_the_device_id_reads_as_the_readers_serial_number() -> None:
    data = DeviceId(device_id=0x0123ABCD).to_data()
    assert len(data) == 16 and DeviceId.from_data(data).serial == "0123ABCD"
    with pytest.raises(ReplyError):
        DeviceId.from_data(b"\x01\x02")


def test_blocks_round_trip_and_read_request() -> None:
    blocks = Blocks(size=4, blocks=(b"\x10\x27\x00\x00", b"\x07\x00\x01\x00"))
    assert Blocks.from_reply(Reply(address=0, command=0xB0, status=0, data=blocks.to_data())) == blocks
    assert read_blocks_data("E004010012345678", 0, 2) == bytes.fromhex("23 01 E0 04 01 00 12 34 56 78 00 02")


frames = st.builds(Frame, st.integers(0, 255), st.integers(0, 255), st.binary(max_size=250))
big_frames = st.builds(Frame, st.integers(0, 255), st.integers(0, 255), st.binary(max_size=600), st.just(True))


def _decode(decoder: FrameDecoder, stream: bytes, cuts: list[int]) -> list[Frame]:
    out: list[Frame] = []
    edges = [0, *sorted(cut % (len(stream) + 1) for cut in cuts), len(stream)]
    for begin, end in itertools.pairwise(edges):
        out += decoder.feed(stream[begin:end])
    return out


@settings(max_examples=200, deadline=None)
@given(st.one_of(frames, big_frames), st.lists(st.integers(0, 1 << 16), max_size=8))
def test_a_frame_round_trips_split_anywhere(frame: Frame, cuts: list[int]) -> None:
    assert _decode(FrameDecoder(advanced=frame.advanced), frame.to_bytes(), cuts) == [frame]


@settings(max_examples=300, deadline=None)
@given(st.one_of(frames, big_frames), st.integers(0, 1 << 16), st.integers(1, 255))
def test_a_corrupted_frame_never_decodes(frame: Frame, at: int, flip: int) -> None:
    raw = bytearray(frame.to_bytes())
    length_field = (1, 2) if frame.advanced else (0,)
    at = at % len(raw)
    raw[at] ^= flip
    decoder = FrameDecoder(advanced=frame.advanced)
    decoded = decoder.feed(bytes(raw))
    assert frame not in decoded
    if at not in length_field:  # the same span, one byte wrong: CRC-16 catches every error of up to 16 bits
        assert decoder.bad_frames >= 1
        assert all(other.to_bytes() != bytes(raw) for other in decoded)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(frames.map(Frame.to_bytes), st.binary(max_size=20)), max_size=15),
       st.lists(st.integers(0, 1 << 16), max_size=8))
def test_frames_after_noise_and_a_reset_are_found(parts: list[bytes], cuts: list[int]) -> None:
    decoder = FrameDecoder()
    _decode(decoder, b"".join(parts), cuts)
    decoder.reset()  # the host gave up on a reply: the next request's reply starts clean
    frame = Frame(1, 0x65, b"\x00abc")
    assert decoder.feed(frame.to_bytes()) == [frame]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(frames, big_frames), max_size=10), st.lists(st.integers(0, 1 << 16), max_size=8))
def test_a_decoder_for_either_shape_takes_both_as_a_reader_does(sent: list[Frame], cuts: list[int]) -> None:
    assert _decode(FrameDecoder(advanced=None), b"".join(frame.to_bytes() for frame in sent), cuts) == sent


def _hostile(size: int, seed: int = 4) -> bytes:
    """An advanced start every 3 bytes, each claiming a frame of 4 to 16 KiB: every one a CRC to check."""
    rng = random.Random(seed)
    return b"".join(bytes((2,)) + rng.randrange(4096, MAX_ADVANCED).to_bytes(2, "big") for _ in range(size // 3))


def _work(stream: bytes, chunk: int, *, advanced: bool) -> int:
    decoder = FrameDecoder(advanced=advanced)
    for begin in range(0, len(stream), chunk):
        decoder.feed(stream[begin : begin + chunk])
    return decoder.crc_bytes


def _worst_standard(size: int, step: int = STEP) -> bytes:
    """Each byte a LEN whose CRC span is longer than `step` and ends `step - 1` bytes past a register: the most CRC
    work a candidate can cost."""
    return bytes(next(length for length in range(255, 4, -1) if length - 2 > step and (at + length - 2) % step
                      == step - 1) for at in range(size))


def test_the_crc_work_is_linear_on_a_hostile_stream() -> None:
    bound = 2 * STEP - 1  # per byte fed: both ends of a candidate's span past their registers, and the registers
    for chunk in (64, 8192):
        small = _work(_hostile(1 << 17), chunk, advanced=True)
        large = _work(_hostile(1 << 18), chunk, advanced=True)
        assert small <= bound * (1 << 17)
        assert 1.8 < large / small < 2.2
    # standard frames: a candidate at every byte, each claiming 255 bytes, or chosen to cost the most
    for stream in (b"\xff" * (1 << 15), _worst_standard(1 << 15)):
        small = _work(stream, 512, advanced=False)
        large = _work(stream * 2, 512, advanced=False)
        assert small <= bound * (1 << 15)
        assert 1.8 < large / small < 2.2


def test_the_registers_kept_closer_cut_the_crc_work_of_a_stream_without_sync() -> None:
    """Every byte may start a standard frame: with the chip reader's spacing (64) a crafted stream cost 95 CRC
    bytes per byte fed; with the decoder's own (8) at most 2 * 8 - 1."""
    spaced_stream = _worst_standard(1 << 14, 64)
    spaced = FrameDecoder(advanced=False, step=64)
    assert spaced.feed(spaced_stream) == []
    assert spaced.crc_bytes > 90 * len(spaced_stream)  # the chip reader's spacing: the decoder's cost before
    stream = _worst_standard(1 << 14)
    close = FrameDecoder(advanced=False)
    assert close.feed(stream) == []
    assert close.crc_bytes <= (2 * STEP - 1) * len(stream)
