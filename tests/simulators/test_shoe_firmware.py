"""The simulated shoe firmware without I/O: seeded shoes, resume, cut card, gate, retransmit buffer."""

from __future__ import annotations

from collections import Counter

import pytest

from firmware_bridge.shoe import (
    Ack,
    BufferGateChanged,
    CardDrawn,
    CutCardReached,
    GateChanged,
    Hello,
    Identify,
    Resend,
    SetGate,
    ShoeShuffled,
    ShoeStatus,
    UnreadableCard,
    parse_shoe_frame,
)
from simulators.shoe_firmware import (
    GATE_RESERVE,
    GATE_UNLOCK_FREE,
    FirmwareIdentity,
    GateLockedError,
    ShoeEmptyError,
    ShoeFirmware,
    raw_code,
    shuffled_shoe,
)
from table_runtime.errors import DeviceError
from table_runtime.game.cards import ALL_CARDS, Card, parse_cards


def test_a_seeded_shoe_is_six_full_decks_the_same_every_time() -> None:
    shoe = shuffled_shoe(7, 1)
    assert len(shoe) == 312
    assert Counter(shoe) == Counter({card: 6 for card in ALL_CARDS})
    assert shoe == shuffled_shoe(7, 1)
    assert shoe != shuffled_shoe(7, 2) and shoe != shuffled_shoe(8, 1)
    assert [card.code for card in shoe[:3]] == ["JD", "6S", "7S"]  # pinned: the seeds must not drift


def test_resume_continues_exactly_where_the_previous_run_stopped() -> None:
    first = ShoeFirmware(seed=3, shoe_number=2)
    drawn = [first.draw()[0] for _ in range(40)]
    resumed = ShoeFirmware(seed=3, shoe_number=2, cards_already_drawn=40)
    assert resumed.remaining == first.remaining
    assert resumed.draw()[0] == first.draw()[0]
    assert drawn == shuffled_shoe(3, 2)[:40]


def test_shuffle_takes_the_next_shoe_of_the_seed() -> None:
    firmware = ShoeFirmware(seed=5)
    firmware.draw()
    (frame,) = firmware.shuffle()
    loaded = parse_shoe_frame(frame)
    assert isinstance(loaded, ShoeShuffled) and loaded.shoe_id == 2 and not loaded.stacked
    assert firmware.remaining == tuple(shuffled_shoe(5, 2))


def test_cut_card_comes_out_one_deck_from_the_end() -> None:
    firmware = ShoeFirmware(seed=1, cards_already_drawn=258)
    assert not any(isinstance(parse_shoe_frame(f), CutCardReached) for f in firmware.draw()[1])
    _, frames = firmware.draw()
    events = [parse_shoe_frame(frame) for frame in frames]
    assert isinstance(events[0], CardDrawn) and events[0].card_number == 260
    assert isinstance(events[1], CutCardReached) and events[1].card_number == 260
    assert firmware.cards_left == 52


def test_stacked_shoe_in_order_then_empty() -> None:
    stack = parse_cards("AS KH 5D")
    firmware = ShoeFirmware(stack=stack, cut_cards_behind=1)
    (frame,) = firmware.announce()
    loaded = parse_shoe_frame(frame)
    assert isinstance(loaded, ShoeShuffled) and loaded.stacked and loaded.cards == 3 and loaded.cut_position == 2
    assert [firmware.draw()[0] for _ in range(3)] == stack
    with pytest.raises(ShoeEmptyError) as empty:
        firmware.draw()
    assert isinstance(empty.value, DeviceError) and isinstance(empty.value, LookupError)


def test_unreadable_card_still_leaves_the_shoe() -> None:
    firmware = ShoeFirmware(seed=1)
    card, frames = firmware.draw(unreadable=True)
    assert card == shuffled_shoe(1, 1)[0]
    event = parse_shoe_frame(frames[0])
    assert isinstance(event, UnreadableCard) and event.card_number == 1


def test_raw_code_names_suit_and_rank() -> None:
    assert raw_code(Card.parse("AS")) == 0x11
    assert raw_code(Card.parse("KC")) == 0x4D


def test_locked_gate_stops_the_dealer() -> None:
    firmware = ShoeFirmware(seed=1)
    (frame,) = firmware.handle(SetGate(True))
    event = parse_shoe_frame(frame)
    assert isinstance(event, GateChanged) and event.locked
    assert firmware.handle(SetGate(True)) == []  # idempotent
    with pytest.raises(GateLockedError):
        firmware.draw()
    firmware.handle(SetGate(False))
    firmware.draw()


def test_acknowledged_events_leave_the_buffer_and_resend_starts_where_asked() -> None:
    firmware = ShoeFirmware(seed=1)
    for _ in range(5):
        firmware.draw()
    assert firmware.unacknowledged == 5
    firmware.handle(Ack(1))
    assert firmware.unacknowledged == 3 and firmware.oldest_held == 2
    resent = firmware.handle(Resend(3))
    assert [frame.sequence for frame in resent] == [3, 4]
    assert all(frame.is_retransmit for frame in resent)
    (hello_frame,) = firmware.handle(Identify())
    hello = parse_shoe_frame(hello_frame)
    assert isinstance(hello, Hello) and (hello.next_sequence, hello.oldest_held, hello.cards_drawn) == (5, 2, 5)


def test_a_full_buffer_of_a_version_1_shoe_forgets_the_oldest() -> None:
    firmware = ShoeFirmware(seed=1, buffer_size=4, identity=FirmwareIdentity(protocol_version=1))
    for _ in range(6):
        firmware.draw()
    assert firmware.oldest_held == 2 and firmware.unacknowledged == 4


def test_a_full_buffer_locks_the_gate_until_acknowledgements_free_room() -> None:
    """§3 (version 2): the card that leaves the buffer fewer than GATE_RESERVE free slots locks the gate, and
    BUFFER_GATE says so; no card leaves while it is locked; an ACK that frees GATE_UNLOCK_FREE slots unlocks it."""
    firmware = ShoeFirmware(seed=1, buffer_size=32)  # cards from sequence 0 (no SHOE_LOADED announced here)
    frames = []
    for _ in range(32 - GATE_RESERVE + 1):
        frames += firmware.draw()[1]
    assert firmware.buffer_locked and firmware.unacknowledged == 32 - GATE_RESERVE + 1
    *cards, status = [parse_shoe_frame(frame) for frame in frames]
    assert all(isinstance(card, CardDrawn) for card in cards)
    assert status == BufferGateChanged(locked=True, held=25, capacity=32)
    assert parse_shoe_frame(firmware.heartbeat()).status & ShoeStatus.BUFFER_FULL  # type: ignore[union-attr]
    assert firmware.buffer_gate_status() == [frames[-1]]  # what it repeats after each heartbeat
    with pytest.raises(GateLockedError, match=r"resend buffer is full \(25 of 32 events unacknowledged\)"):
        firmware.draw()
    assert firmware.cards_drawn == 25  # the dealer got no card
    assert firmware.handle(Ack(5)) == []  # 6 acknowledged: 13 free, not yet GATE_UNLOCK_FREE
    (unlocked,) = firmware.handle(Ack(8))
    assert parse_shoe_frame(unlocked) == BufferGateChanged(locked=False, held=16, capacity=32)
    assert 32 - firmware.unacknowledged >= GATE_UNLOCK_FREE
    card, _ = firmware.draw()
    assert card == shuffled_shoe(1, 1)[25]  # the next card: none lost, none skipped


def test_a_version_1_shoe_has_no_buffer_gate_and_a_version_2_buffer_is_large_enough() -> None:
    old = ShoeFirmware(seed=1, buffer_size=4, identity=FirmwareIdentity(protocol_version=1))
    assert old.buffer_gate_status() == []
    with pytest.raises(ValueError, match="at least 16 events"):
        ShoeFirmware(seed=1, buffer_size=4)


def test_resume_past_the_end_is_refused() -> None:
    with pytest.raises(ValueError, match="holds 312"):
        ShoeFirmware(seed=1, cards_already_drawn=313)
