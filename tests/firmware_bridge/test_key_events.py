"""The keyboard-wedge decoder: `input_event` records of a card reader in, card numbers or refusals out."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.key_events import (
    EV_KEY,
    EV_MSC,
    EV_SYN,
    KEY_ENTER,
    KEY_KPENTER,
    KEY_LEFTSHIFT,
    LAYOUT_32,
    LAYOUT_64,
    CardNumber,
    EventLayout,
    GarbledRead,
    KeyDecoder,
    encode_event,
    layout_of_size,
)
from simulators.player_card import typed


def press(code: int, layout: EventLayout = LAYOUT_64) -> bytes:
    """A key as the kernel reports it: scan code, press, SYN, release, SYN."""
    return b"".join(encode_event(layout, kind, key, value) for kind, key, value in (
        (EV_MSC, 4, 0x70000 + code), (EV_KEY, code, 1), (EV_SYN, 0, 0), (EV_KEY, code, 0), (EV_SYN, 0, 0)))


def test_the_records_are_24_bytes_on_64_bit_and_16_on_32_bit() -> None:
    assert (LAYOUT_64.size, LAYOUT_32.size) == (24, 16)
    assert layout_of_size(16) is LAYOUT_32 and layout_of_size(24) is LAYOUT_64
    # type, code and value follow the two longs of the time, native order
    record = encode_event(LAYOUT_64, EV_KEY, 30, 1, seconds=5, microseconds=7)
    assert struct.unpack("=qqHHi", record) == (5, 7, 1, 30, 1)


def test_digits_by_their_linux_key_codes_then_enter_are_one_card() -> None:
    # KEY_1 = 2 ... KEY_9 = 10, KEY_0 = 11 (input-event-codes.h)
    data = b"".join(press(code) for code in (2, 3, 4, 11, 10)) + press(KEY_ENTER)
    assert KeyDecoder(LAYOUT_64).feed(data) == [CardNumber("12309")]


def test_shift_types_capitals_and_symbols_and_is_followed_through_its_release() -> None:
    shift_down = encode_event(LAYOUT_64, EV_KEY, KEY_LEFTSHIFT, 1)
    shift_up = encode_event(LAYOUT_64, EV_KEY, KEY_LEFTSHIFT, 0)
    # a (30), shift A, shift 1 = "!", then b (48) after the release; the keypad's ENTER ends it
    data = press(30) + shift_down + press(30) + press(2) + shift_up + press(48) + press(KEY_KPENTER)
    assert KeyDecoder(LAYOUT_64).feed(data) == [CardNumber("aA!b")]


def test_releases_repeats_syn_and_msc_type_nothing() -> None:
    records = [encode_event(LAYOUT_64, EV_KEY, 2, 1), encode_event(LAYOUT_64, EV_KEY, 2, 2),  # a repeat
               encode_event(LAYOUT_64, EV_KEY, 2, 0), encode_event(LAYOUT_64, EV_SYN, 0, 0),
               encode_event(LAYOUT_64, EV_MSC, 4, 0x7001E), encode_event(LAYOUT_64, 0x11, 1, 1)]  # EV_LED
    assert KeyDecoder(LAYOUT_64).feed(b"".join(records) + press(KEY_ENTER)) == [CardNumber("1")]


def test_magstripe_sentinels_are_stripped_from_track_2_and_track_1() -> None:
    decoder = KeyDecoder(LAYOUT_64)
    assert decoder.feed(typed(";6012345678901234=4912?", LAYOUT_64)) == [CardNumber("6012345678901234")]
    assert decoder.feed(typed("%B6012345678901234^DUPONT/JEAN^4912?", LAYOUT_64)) == [CardNumber("6012345678901234")]
    assert decoder.feed(typed(";?", LAYOUT_64)) == [GarbledRead("no card number in 2 characters", 2)]


def test_an_unknown_key_garbles_the_read_and_the_next_card_reads_clean() -> None:
    decoder = KeyDecoder(LAYOUT_64)
    data = press(2) + press(59) + press(3) + press(KEY_ENTER)  # 59 = KEY_F1: no reader types it
    assert decoder.feed(data) == [GarbledRead("unknown key code 59", 2)]
    assert decoder.feed(typed("777", LAYOUT_64)) == [CardNumber("777")]


def test_no_enter_within_the_limit_is_one_refusal_and_the_rest_of_that_read_is_skipped() -> None:
    decoder = KeyDecoder(LAYOUT_64, max_keys=8)
    assert decoder.feed(typed("123456789012", LAYOUT_64)) == [GarbledRead("no ENTER within 8 keys", 9)]
    assert decoder.feed(typed("42", LAYOUT_64)) == [CardNumber("42")]
    assert decoder.feed(press(KEY_ENTER)) == []  # a lone ENTER is no card


def test_the_32_bit_layout_reads_its_16_byte_records() -> None:
    data = typed("P-0042", LAYOUT_32)
    assert len(data) % 16 == 0
    assert KeyDecoder(LAYOUT_32).feed(data) == [CardNumber("P-0042")]


@given(st.text(alphabet="0123456789ABCDEFabcdef-=;/", min_size=1, max_size=40).filter(
    lambda text: not text.startswith(";")), st.integers(1, 50), st.sampled_from([LAYOUT_64, LAYOUT_32]))
def test_any_split_of_the_stream_gives_the_same_card(text: str, cut: int, layout: EventLayout) -> None:
    data = typed(text, layout)
    decoder = KeyDecoder(layout)
    items: list[CardNumber | GarbledRead] = []
    for start in range(0, len(data), cut):
        items += decoder.feed(data[start:start + cut])
    assert items == [CardNumber(text.strip())]


@given(st.binary(max_size=600))
def test_garbage_never_raises_and_never_yields_an_over_long_number(data: bytes) -> None:
    for item in KeyDecoder(LAYOUT_64, max_keys=20).feed(data):
        assert isinstance(item, GarbledRead) or 0 < len(item.number) <= 20


ALIGNMENT_LOST = "the records lost their alignment"


@given(st.binary(min_size=1, max_size=200).filter(lambda stray: len(stray) % 24), st.sampled_from(
    [LAYOUT_64, LAYOUT_32]), st.integers(1, 400))
def test_after_stray_bytes_one_read_is_lost_and_every_later_card_reads(stray: bytes, layout: EventLayout,
                                                                       cut: int) -> None:
    """Bytes that are no records shift every record after them: the card they fall before (or into) is refused at
    its ENTER, naming the lost alignment, and every card after it reads exactly; in any split of the stream."""
    if len(stray) % layout.size == 0:
        stray += b"\x00"
    data = typed("1111", layout) + stray + typed("2222", layout) + typed("3333", layout) + typed("A-44", layout)
    decoder = KeyDecoder(layout)
    items: list[CardNumber | GarbledRead] = []
    for start in range(0, len(data), cut):
        items += decoder.feed(data[start:start + cut])
    assert items[0] == CardNumber("1111")
    assert [type(item) for item in items[1:-2]] == [GarbledRead] and ALIGNMENT_LOST in items[1].reason  # type: ignore[union-attr]
    assert items[-2:] == [CardNumber("3333"), CardNumber("A-44")]


@pytest.mark.parametrize(("written", "configured"), [(LAYOUT_64, LAYOUT_32), (LAYOUT_32, LAYOUT_64)])
def test_records_of_the_other_size_are_detected_at_the_first_enter(written: EventLayout,
                                                                   configured: EventLayout) -> None:
    decoder = KeyDecoder(configured)
    items = decoder.feed(typed("5555", written) + typed("6666", written) + typed("77", written))
    assert len(items) == 3 and isinstance(items[0], GarbledRead)
    assert items[0].reason.endswith(f"as {written.size}-byte records")
    assert items[1:] == [CardNumber("6666"), CardNumber("77")] and decoder.layout is written


def test_records_with_real_times_lose_their_alignment_at_once_too() -> None:
    def timed(text: str) -> bytes:  # the kernel's records carry the time of each event
        records = typed(text, LAYOUT_64)
        return b"".join(struct.pack("=qq", 1_764_600_000 + n, 123_456) + records[n * 24 + 16:(n + 1) * 24]
                        for n in range(len(records) // 24))
    decoder = KeyDecoder(LAYOUT_64)
    items = decoder.feed(timed("12") + b"\x07" * 16 + timed("34") + timed("56"))
    assert items[0] == CardNumber("12") and isinstance(items[1], GarbledRead) and items[2:] == [CardNumber("56")]


def test_a_shift_never_released_refuses_its_card_and_not_the_next() -> None:
    decoder = KeyDecoder(LAYOUT_64)
    stuck = encode_event(LAYOUT_64, EV_KEY, KEY_LEFTSHIFT, 1)
    assert decoder.feed(typed("12", LAYOUT_64, enter=False) + stuck + typed("34", LAYOUT_64)) == [
        GarbledRead("SHIFT still held at ENTER", 4)]  # it would have read 12#$
    assert decoder.feed(typed("5678", LAYOUT_64)) == [CardNumber("5678")]  # not %^&*


def test_a_read_without_its_enter_is_lost_before_the_next_card_not_joined_to_it() -> None:
    decoder = KeyDecoder(LAYOUT_64, line_gap=2.0)
    assert decoder.feed(typed("12", LAYOUT_64, enter=False), at=100.0) == []
    assert decoder.feed(typed("34", LAYOUT_64), at=103.0) == [
        GarbledRead("no ENTER after 2 characters: the read stopped", 2), CardNumber("34")]  # never 1234
    assert decoder.feed(typed("5", LAYOUT_64, enter=False), at=200.0) == []
    assert decoder.feed(typed("6", LAYOUT_64), at=201.0) == [CardNumber("56")]  # within the gap: one card


def test_garbage_without_enter_is_held_in_bounded_memory() -> None:
    decoder = KeyDecoder(LAYOUT_64)
    decoder.feed(b"\x00" * 16 + typed("1", LAYOUT_64, enter=False))
    for _ in range(200):
        assert decoder.feed(bytes(range(256)) * 4) == []
    assert len(decoder._pending) <= 8 + 3 * 24
