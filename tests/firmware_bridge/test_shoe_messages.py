"""Shoe messages: every event and command round-trips; bad payloads raise only our error."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.shoe import (
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    Ack,
    BufferGateChanged,
    CardDrawn,
    CutCardReached,
    DoorClosed,
    DoorOpened,
    Frame,
    FrameDecoder,
    FrameFlags,
    GateChanged,
    Heartbeat,
    Hello,
    HostCommand,
    Identify,
    Jam,
    JamCleared,
    MalformedMessageError,
    MessageType,
    Resend,
    SequencedShoeEvent,
    SetGate,
    ShoeShuffled,
    ShoeStatus,
    UnreadableCard,
    host_frame,
    parse_host_frame,
    parse_shoe_frame,
    shoe_frame,
)
from firmware_bridge.shoe.events import CARD_RANKS, CARD_SUITS, is_card_code
from firmware_bridge.shoe.messages import protocol_version_of
from table_runtime.game.cards import ALL_CARDS

u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFF_FFFF)

events: st.SearchStrategy[SequencedShoeEvent] = st.one_of(
    st.builds(CardDrawn, sequence=u16, code=st.sampled_from([card.code for card in ALL_CARDS]), card_number=u16,
              raw_code=u16),
    st.builds(
        ShoeShuffled,
        sequence=u16,
        shoe_id=u32,
        decks=st.integers(1, 8),
        cards=u16,
        cut_position=u16,
        stacked=st.booleans(),
    ),
    st.builds(CutCardReached, sequence=u16, shoe_id=u32, card_number=u16),
    st.builds(UnreadableCard, sequence=u16, card_number=u16),
    st.builds(GateChanged, sequence=u16, locked=st.booleans()),
    *(st.builds(kind, sequence=u16) for kind in (DoorOpened, DoorClosed, Jam, JamCleared)),
)
ascii_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=20)
hellos = st.builds(
    Hello,
    protocol_version=st.integers(0, 255),
    boot_id=u32,
    next_sequence=u16,
    oldest_held=u16,
    shoe_id=u32,
    cards_drawn=u16,
    firmware_version=ascii_text,
    serial_number=ascii_text,
)
heartbeats = st.builds(Heartbeat, next_sequence=u16, status=st.integers(0, 15), cards_drawn=u16)
buffer_gates = st.builds(lambda locked, held, spare: BufferGateChanged(locked=locked, held=held,
                                                                      capacity=min(held + spare, 0xFFFF)),
                         st.booleans(), u16, u16)
commands: st.SearchStrategy[HostCommand] = st.one_of(
    st.just(Identify()), st.builds(Ack, u16), st.builds(Resend, u16), st.builds(SetGate, st.booleans())
)


@settings(deadline=None)  # no timing in unit tests: CI machines are loaded
@given(events, st.booleans())
def test_events_round_trip_through_bytes(event: SequencedShoeEvent, retransmit: bool) -> None:
    frame = shoe_frame(event, retransmit=retransmit)
    assert frame.is_sequenced and frame.is_retransmit == retransmit
    (decoded,) = FrameDecoder().feed(frame.to_bytes())
    assert parse_shoe_frame(decoded) == event


@settings(deadline=None)  # no timing in unit tests: CI machines are loaded
@given(st.one_of(hellos, heartbeats, buffer_gates))
def test_link_messages_round_trip(message: Hello | Heartbeat | BufferGateChanged) -> None:
    frame = shoe_frame(message)
    assert not frame.is_sequenced
    assert parse_shoe_frame(Frame.from_bytes(frame.to_bytes())) == message


@settings(deadline=None)  # no timing in unit tests: CI machines are loaded
@given(hellos)
def test_version_is_read_before_anything_else(hello: Hello) -> None:
    assert protocol_version_of(shoe_frame(hello)) == hello.protocol_version


@settings(deadline=None)  # no timing in unit tests: CI machines are loaded
@given(commands, u16)
def test_host_commands_round_trip(command: HostCommand, sequence: int) -> None:
    frame = host_frame(command, sequence)
    assert parse_host_frame(Frame.from_bytes(frame.to_bytes())) == command


def test_card_payload_is_as_documented() -> None:
    event = CardDrawn(sequence=7, code="AS", card_number=12, raw_code=0x11)
    assert shoe_frame(event).payload == bytes.fromhex("000C41530011")


def test_a_card_code_naming_no_card_is_malformed() -> None:
    frame = Frame(
        sequence=1, message_type=MessageType.CARD_DRAWN, flags=FrameFlags.SEQUENCED, payload=b"\x00\x01ZS\x00\x00"
    )
    with pytest.raises(MalformedMessageError, match="no card"):
        parse_shoe_frame(frame)


def test_the_shoe_speaks_version_2_and_the_host_version_1_too() -> None:
    assert PROTOCOL_VERSION == 2 and SUPPORTED_VERSIONS == (1, 2)


def test_buffer_gate_payload_is_as_documented() -> None:
    """§4: BUFFER_GATE 0x03, unsequenced: locked u8, held u16, capacity u16; HEARTBEAT's bit 3 says the same."""
    frame = shoe_frame(BufferGateChanged(locked=True, held=249, capacity=256))
    assert (frame.message_type, frame.is_sequenced, frame.payload) == (0x03, False, bytes.fromhex("0100F90100"))
    assert int(ShoeStatus.BUFFER_FULL) == 0x08


@pytest.mark.parametrize("payload", ["02000a0010", "010011 0010".replace(" ", ""), "0100", "01000a001000"])
def test_a_buffer_gate_that_cannot_be_is_malformed(payload: str) -> None:
    """A locked byte other than 0 or 1, more held than the buffer holds, a payload of the wrong length."""
    with pytest.raises(MalformedMessageError):
        parse_shoe_frame(Frame(sequence=0, message_type=MessageType.BUFFER_GATE, payload=bytes.fromhex(payload)))


@settings(deadline=None)  # no timing in unit tests: CI machines are loaded
@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=64))
def test_parsing_any_frame_raises_only_malformed_message(message_type: int, flags: int, payload: bytes) -> None:
    frame = Frame(sequence=0, message_type=message_type, flags=FrameFlags(flags), payload=payload)
    for parse in (parse_shoe_frame, parse_host_frame):
        try:
            parse(frame)
        except MalformedMessageError as error:
            assert error.message_type == message_type


def test_the_protocol_card_codes_are_the_games_cards() -> None:
    """The shoe decodes to two-letter codes; every code it can send is one of the game's 52 cards, and back."""
    codes = {rank + suit for rank in CARD_RANKS for suit in CARD_SUITS}
    assert codes == {card.code for card in ALL_CARDS}
    assert all(is_card_code(code) for code in codes)
    assert not any(is_card_code(code) for code in ("", "A", "ZS", "AX", "as", "ASS", "10S"))


def test_an_event_naming_no_card_is_refused_on_encoding() -> None:
    with pytest.raises(ValueError, match="not a card code"):
        shoe_frame(CardDrawn(sequence=1, code="ZZ", card_number=1, raw_code=0))
