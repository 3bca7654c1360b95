"""The chip reader codec: CRC, frames, messages, version check (docs/protocols/rfid.md)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.rfid import (
    SYNC,
    AntennaReport,
    AntennaStatus,
    BlockStatus,
    ErrorCode,
    ErrorReply,
    Frame,
    FrameDecoder,
    Identify,
    Identity,
    Inventory,
    InventoryResult,
    Message,
    MessageError,
    Tag,
    VersionError,
    check_version,
    crc16,
    decode_message,
    encode,
)


def test_crc_is_ccitt_false() -> None:
    # The catalogued check value of CRC-16/CCITT-FALSE.
    assert crc16(b"123456789") == 0x29B1


def test_frame_layout_matches_the_document() -> None:
    data = Frame(7, 0x01).to_bytes()
    assert data[:2] == SYNC
    assert data[2:4] == (2).to_bytes(2, "little")
    assert data[4:6] == bytes((7, 0x01))
    assert data[6:] == crc16(data[2:6]).to_bytes(2, "little")


uids = st.binary(min_size=8, max_size=8).map(lambda raw: raw.hex().upper())
read_tags = st.builds(lambda uid, cents, casino: Tag(uid=uid, denomination_cents=cents, casino_id=casino),
                      uids, st.integers(0, 2**32 - 1), st.integers(0, 2**16 - 1))
unread_tags = st.builds(lambda uid, status: Tag(uid=uid, block_status=status), uids,
                        st.sampled_from([BlockStatus.READ_FAILED, BlockStatus.UNKNOWN_FORMAT]))
reports = st.builds(lambda antenna, status, tags: AntennaReport(antenna=antenna, status=status, tags=tuple(tags)),
                    st.integers(0, 31), st.sampled_from(list(AntennaStatus)),
                    st.lists(read_tags | unread_tags, max_size=6))
text = st.text(alphabet="abcXYZ0123.-", max_size=20)
messages: st.SearchStrategy[Message] = st.one_of(
    st.just(Identify()),
    st.builds(lambda antennas: Inventory(antennas=tuple(sorted(antennas))), st.sets(st.integers(0, 31), min_size=1)),
    st.builds(lambda major, minor, antennas, max_tags, firmware, serial: Identity(
        major=major, minor=minor, antennas=antennas, max_tags=max_tags, firmware=firmware, serial=serial),
        st.integers(0, 255), st.integers(0, 255), st.integers(1, 32), st.integers(1, 255), text, text),
    st.builds(lambda rs: InventoryResult(reports=tuple(rs)), st.lists(reports, max_size=4)),
    st.builds(lambda code, message: ErrorReply(code=code, text=message), st.sampled_from(list(ErrorCode)), text),
)


@given(st.lists(st.tuples(messages, st.integers(0, 255)), max_size=5), st.data())
def test_messages_round_trip_through_any_chunking(sent: list[tuple[Message, int]], data: st.DataObject) -> None:
    stream = b"".join(encode(message, seq) for message, seq in sent)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    decoder = FrameDecoder()
    frames: list[Frame] = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        frames += decoder.feed(stream[start:end])
    assert [(decode_message(frame), frame.seq) for frame in frames] == sent
    assert decoder.bad_frames == 0
    assert decoder.pending == 0


@given(messages, st.integers(0, 255), st.data())
def test_a_corrupted_frame_never_decodes(message: Message, seq: int, data: st.DataObject) -> None:
    frame = bytearray(encode(message, seq))
    # Any byte after the length: a CRC-16 detects every burst of 16 bits or fewer.
    position = data.draw(st.integers(4, len(frame) - 1))
    frame[position] ^= data.draw(st.integers(1, 255))
    decoder = FrameDecoder()
    assert decoder.feed(bytes(frame)) == []
    # At least this frame is bad; a body holding the sync bytes (a UID 00A55A...) is a second one on resync.
    assert decoder.bad_frames >= 1


@given(messages, st.integers(0, 255), st.integers(2, 3), st.integers(1, 255))
def test_a_damaged_length_waits_or_skips_but_then_recovers(message: Message, seq: int, position: int,
                                                           flip: int) -> None:
    frame = bytearray(encode(message, seq))
    frame[position] ^= flip
    decoder = FrameDecoder()
    # A longer length waits for bytes; the next frames complete it, fail its CRC
    # and resynchronise. Send enough good frames to cover the largest length.
    good = encode(Identify(), 9)
    decoded = decoder.feed(bytes(frame) + good * (16400 // len(good) + 2))
    assert decoded[-1] == Frame(9, Identify.TYPE)
    assert decoder.bad_frames >= 1


@given(st.binary(max_size=40), messages, st.integers(0, 255))
def test_garbage_before_a_frame_is_skipped(garbage: bytes, message: Message, seq: int) -> None:
    decoder = FrameDecoder()
    frames = decoder.feed(garbage.replace(SYNC[:1], b"") + encode(message, seq))
    assert [(decode_message(frame), frame.seq) for frame in frames] == [(message, seq)]
    assert decoder.skipped_bytes == len(garbage.replace(SYNC[:1], b""))


def test_bad_crc_resynchronises_on_the_next_frame() -> None:
    good = encode(Identify(), 3)
    broken = bytearray(encode(Identify(), 2))
    broken[-1] ^= 0xFF
    decoder = FrameDecoder()
    frames = decoder.feed(bytes(broken) + good)
    assert [frame.seq for frame in frames] == [3]
    assert decoder.bad_frames == 1


def test_inventory_body_is_an_antenna_mask() -> None:
    assert Inventory(antennas=(0, 3)).body() == (0b1001).to_bytes(4, "little")
    with pytest.raises(MessageError):
        Inventory(antennas=(32,)).body()


def test_tag_block_layout() -> None:
    tag = Tag(uid="E004015012345678", denomination_cents=2500, casino_id=42)
    raw = tag.to_bytes()
    assert raw[:8] == bytes.fromhex("E004015012345678")
    assert raw[8] == BlockStatus.OK
    assert raw[9:13] == (2500).to_bytes(4, "little")
    assert raw[13:15] == (42).to_bytes(2, "little")
    assert raw[15] == 1  # block format version
    unknown_format = raw[:15] + bytes((9,)) + raw[16:]
    assert Tag.from_bytes(unknown_format) == Tag(uid=tag.uid, block_status=BlockStatus.UNKNOWN_FORMAT)


def test_truncated_and_overlong_bodies_are_refused() -> None:
    body = InventoryResult(reports=(AntennaReport(antenna=1, tags=(
        Tag(uid="E004015012345678", denomination_cents=500, casino_id=1),)),)).body()
    with pytest.raises(MessageError, match="body ends"):
        decode_message(Frame(0, 0x82, body[:-1]))
    with pytest.raises(MessageError, match="after the end"):
        decode_message(Frame(0, 0x82, body + b"\x00"))
    with pytest.raises(MessageError, match="unknown message type"):
        decode_message(Frame(0, 0x42))


def test_bad_tag_fields_are_refused() -> None:
    with pytest.raises(MessageError):
        Tag(uid="e004015012345678", denomination_cents=1, casino_id=1)
    with pytest.raises(MessageError):
        Tag(uid="E00401501234567G", denomination_cents=1, casino_id=1)
    with pytest.raises(MessageError):
        Tag(uid="E004015012345678")
    with pytest.raises(MessageError):
        Tag(uid="E004015012345678", denomination_cents=1, casino_id=1, block_status=BlockStatus.READ_FAILED)


def test_version_check_refuses_another_major_and_accepts_a_higher_minor() -> None:
    check_version(Identity(major=1, minor=7, antennas=4, max_tags=64, firmware="1.7", serial="A"))
    with pytest.raises(VersionError, match=r"2\.0.*1\.x") as caught:
        check_version(Identity(major=2, minor=0, antennas=4, max_tags=64, firmware="2.0", serial="A"))
    assert isinstance(caught.value, ValueError)


def test_identity_may_carry_fields_of_a_later_minor() -> None:
    body = Identity(major=1, minor=1, antennas=2, max_tags=9, firmware="f", serial="s").body() + b"\x01\x02"
    decoded = decode_message(Frame(0, 0x81, body))
    assert isinstance(decoded, Identity)
    assert decoded.serial == "s"
