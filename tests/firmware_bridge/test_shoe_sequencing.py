"""Host-side sequencing: duplicates dropped, gaps asked again, unfillable gaps become MissedCards."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.shoe import (
    CardDrawn,
    Frame,
    Hello,
    MissedCards,
    Sequencer,
    sequence_distance,
    shoe_frame,
)


def hello(*, boot_id: int = 1, next_sequence: int = 0, oldest_held: int = 0) -> Hello:
    return Hello(
        protocol_version=1,
        boot_id=boot_id,
        next_sequence=next_sequence,
        oldest_held=oldest_held,
        shoe_id=1,
        cards_drawn=0,
        firmware_version="sim",
        serial_number="S1",
    )


def card(sequence: int, *, retransmit: bool = False) -> Frame:
    event = CardDrawn(sequence=sequence, code="AS", card_number=sequence % 312 + 1, raw_code=0)
    return shoe_frame(event, retransmit=retransmit)


def test_in_order_frames_are_delivered_and_acknowledged() -> None:
    sequencer = Sequencer()
    assert sequencer.on_hello(hello()).resend_from is None
    for sequence in range(3):
        decision = sequencer.on_frame(card(sequence))
        assert decision.deliver and decision.acknowledge == sequence


def test_duplicate_is_dropped_and_reacknowledged() -> None:
    sequencer = Sequencer()
    sequencer.on_hello(hello())
    sequencer.on_frame(card(0))
    sequencer.on_frame(card(1))
    duplicate = sequencer.on_frame(card(0, retransmit=True))
    assert not duplicate.deliver and duplicate.acknowledge == 1
    assert sequencer.duplicates == 1


def test_gap_asks_for_a_resend_once_then_the_resend_fills_it() -> None:
    sequencer = Sequencer()
    sequencer.on_hello(hello())
    sequencer.on_frame(card(0))
    first = sequencer.on_frame(card(2))
    assert not first.deliver and first.resend_from == 1
    assert sequencer.on_frame(card(3)).resend_from is None  # asked already
    assert sequencer.on_heartbeat(4).resend_from == 1  # a heartbeat asks again
    assert sequencer.on_frame(card(1, retransmit=True)).deliver
    assert sequencer.on_frame(card(2, retransmit=True)).deliver
    assert sequencer.missed == 0


def test_retransmit_past_the_gap_means_the_cards_are_lost() -> None:
    sequencer = Sequencer()
    sequencer.on_hello(hello())
    sequencer.on_frame(card(0))
    decision = sequencer.on_frame(card(4, retransmit=True))
    assert decision.deliver and decision.acknowledge == 4
    assert decision.missed == MissedCards(first_sequence=1, count=3)


def test_reconnect_same_boot_keeps_the_count_and_asks_for_the_rest() -> None:
    sequencer = Sequencer()
    sequencer.on_hello(hello(boot_id=9))
    sequencer.on_frame(card(0))
    again = sequencer.on_hello(hello(boot_id=9, next_sequence=5, oldest_held=1))
    assert again.missed is None and again.resend_from == 1


def test_reconnect_after_buffer_overflow_reports_missed_cards() -> None:
    sequencer = Sequencer()
    sequencer.on_hello(hello(boot_id=9))
    sequencer.on_frame(card(0))
    again = sequencer.on_hello(hello(boot_id=9, next_sequence=300, oldest_held=44))
    assert again.missed == MissedCards(first_sequence=1, count=43)
    assert again.resend_from == 44


def test_rebooted_shoe_restarts_the_count() -> None:
    sequencer = Sequencer()
    sequencer.on_hello(hello(boot_id=1))
    for sequence in range(10):
        sequencer.on_frame(card(sequence))
    decision = sequencer.on_hello(hello(boot_id=2, next_sequence=1, oldest_held=0))
    assert decision.missed is None and decision.resend_from == 0
    assert sequencer.on_frame(card(0)).deliver


def test_frames_before_hello_are_not_placed() -> None:
    assert not Sequencer().on_frame(card(0)).deliver


@settings(deadline=None)  # no timing in unit tests: CI machines are loaded
@given(st.integers(0, 0xFFFF), st.integers(-32768, 32767))
def test_sequence_distance_wraps(base: int, step: int) -> None:
    assert sequence_distance((base + step) % 65536, base) == step


@settings(deadline=None)  # no timing in unit tests: CI machines are loaded
@given(st.integers(0, 0xFFFF), st.lists(st.sampled_from(["deliver", "drop", "duplicate"]), max_size=40))
def test_every_event_is_delivered_exactly_once_through_go_back_n(start: int, plan: list[str]) -> None:
    """A shoe that resends from the oldest unacknowledged frame: the host sees each event once, in order."""
    sequencer = Sequencer()
    sequencer.on_hello(hello(next_sequence=start, oldest_held=start))
    delivered: list[int] = []
    sent = 0
    oldest_unacked = start
    for action in plan:
        sequence = (start + sent) % 65536
        sent += 1
        copies = {"deliver": 1, "drop": 0, "duplicate": 2}[action]
        for _ in range(copies):
            decision = sequencer.on_frame(card(sequence))
            if decision.deliver:
                delivered.append(sequence)
    # The shoe's timer resends whatever was not acknowledged, until nothing is left.
    for _ in range(2):
        if sequencer.expected is not None:
            oldest_unacked = sequencer.expected
        backlog = sequence_distance((start + sent) % 65536, oldest_unacked)
        for offset in range(backlog):
            decision = sequencer.on_frame(card((oldest_unacked + offset) % 65536, retransmit=True))
            if decision.deliver:
                delivered.append(decision.acknowledge or 0)
    assert delivered == [(start + index) % 65536 for index in range(sent)]
    assert sequencer.missed == 0
