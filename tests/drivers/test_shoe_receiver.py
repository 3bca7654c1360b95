"""The shoe driver's receiving half on bytes alone: no port, no loop (the driver's tests run it over a pty)."""

from __future__ import annotations

from drivers.shoe_receiver import ShoeReceiver
from firmware_bridge.shoe import (
    SUPPORTED_VERSIONS,
    Ack,
    CardDrawn,
    GateChanged,
    Hello,
    MissedCards,
    Resend,
    SequencedShoeEvent,
    ShoeEvent,
    ShoeVersionError,
    shoe_frame,
)

HELLO = Hello(protocol_version=1, boot_id=7, next_sequence=1, oldest_held=1, shoe_id=1, cards_drawn=0,
              firmware_version="1.0", serial_number="SIM1")


def card(sequence: int, code: str = "AS") -> CardDrawn:
    return CardDrawn(sequence=sequence, code=code, card_number=sequence, raw_code=0)


def wire(*events: SequencedShoeEvent) -> bytes:
    return b"".join(shoe_frame(event).to_bytes() for event in events)


def sequenced(events: list[ShoeEvent]) -> list[SequencedShoeEvent]:
    assert all(isinstance(event, SequencedShoeEvent) for event in events)
    return [event for event in events if isinstance(event, SequencedShoeEvent)]


def identified() -> ShoeReceiver:
    receiver = ShoeReceiver("/dev/pts/9", SUPPORTED_VERSIONS)
    assert receiver.identify(HELLO).events == []
    return receiver


def test_nothing_is_placed_before_hello_and_the_awaited_hello_is_handed_over() -> None:
    receiver = ShoeReceiver("/dev/pts/9", SUPPORTED_VERSIONS)
    before = receiver.feed(wire(card(1)))
    assert before.frames == 1 and before.events == [] and before.commands == []
    got = receiver.feed(shoe_frame(HELLO).to_bytes(), awaiting_hello=True)
    assert got.hello == HELLO
    assert receiver.feed(shoe_frame(HELLO).to_bytes()).hello is None  # not awaited: ignored


def test_a_hello_in_another_protocol_version_is_refused_before_anything_else_is_read() -> None:
    receiver = ShoeReceiver("/dev/pts/9", (2,))
    got = receiver.feed(shoe_frame(HELLO).to_bytes(), awaiting_hello=True)
    assert isinstance(got.hello, ShoeVersionError) and got.hello.spoken == 1 and "/dev/pts/9" in str(got.hello)


def test_events_in_order_and_no_ack_until_the_table_acknowledges() -> None:
    receiver = identified()
    data = wire(card(1, "AS"), card(2, "TD"), GateChanged(sequence=3, locked=True))
    got = receiver.feed(data[:5])  # half a frame: nothing yet
    assert got.frames == 0 and got.events == []
    got = receiver.feed(data[5:])
    assert [getattr(event, "code", None) for event in got.events] == ["AS", "TD", None]
    assert got.commands == []  # delivered is not journaled: the shoe keeps them until the table says so
    assert got.gate_locked is True
    assert receiver.statistics.bytes_received == len(data)
    delivered = sequenced(got.events)
    assert receiver.acknowledge(delivered[1]) == Ack(2)  # cumulative: 1 and 2
    assert receiver.acknowledge(delivered[0]) is None  # already covered
    assert receiver.acknowledge(delivered[2]) == Ack(3)


def test_a_duplicate_is_acknowledged_only_up_to_what_the_table_acknowledged() -> None:
    receiver = identified()
    first = sequenced(receiver.feed(wire(card(1), card(2))).events)
    assert receiver.feed(wire(card(2))).commands == []  # nothing acknowledged yet: no ACK at all
    receiver.acknowledge(first[0])
    assert receiver.feed(wire(card(2))).commands == [Ack(1)]  # 2 is not journaled yet: the shoe keeps it


def test_an_event_the_table_could_not_keep_is_delivered_again_with_the_shoes_resend() -> None:
    receiver = identified()
    events = sequenced(receiver.feed(wire(card(1, "AS"), card(2, "TD"), card(3, "KH"))).events)
    receiver.acknowledge(events[0])
    assert receiver.rewind(events[1]) == events[1:]  # 2 refused: 2 and 3 are taken back
    racing = receiver.feed(shoe_frame(card(3, "KH"), retransmit=True).to_bytes())  # a resend already under way
    assert racing.events == [] and receiver.statistics.missed == 0  # not a loss: 3 was taken back, not missed
    newer = receiver.feed(wire(card(4, "QS")))  # a new card while they are held: behind them, not before
    assert newer.events == [] and newer.commands == []
    resent = b"".join(shoe_frame(event, retransmit=True).to_bytes() for event in (card(2, "TD"), card(3, "KH")))
    again = receiver.feed(resent)
    assert [getattr(event, "code", None) for event in again.events] == ["TD", "KH", "QS"]
    assert again.commands == [Ack(1)]  # the duplicates are acknowledged only up to what the table kept
    assert receiver.acknowledge(sequenced(again.events)[2]) == Ack(4)
    assert receiver.rewind(events[2]) == []  # acknowledged since: nothing to take back


def test_a_rebooted_shoe_is_not_acknowledged_with_the_old_boots_events() -> None:
    receiver = identified()
    old = sequenced(receiver.feed(wire(card(1))).events)[0]
    receiver.identify(Hello(protocol_version=1, boot_id=8, next_sequence=1, oldest_held=1, shoe_id=1,
                            cards_drawn=1, firmware_version="1.0", serial_number="SIM1"))
    assert receiver.acknowledge(old) is None and receiver.acknowledged is None


def test_a_gap_asks_for_a_resend_and_a_duplicate_is_dropped() -> None:
    receiver = identified()
    receiver.feed(wire(card(1)))
    got = receiver.feed(wire(card(3)))  # 2 was lost on the wire
    assert got.events == [] and got.commands == [Resend(2)]
    assert receiver.statistics.out_of_order == 1
    again = receiver.feed(wire(card(1)))
    assert again.events == [] and receiver.statistics.duplicates == 1


def test_a_resend_past_what_the_shoe_still_holds_is_missed_cards_before_the_next_event() -> None:
    receiver = identified()
    receiver.feed(wire(card(1)))
    resent = shoe_frame(card(4), retransmit=True).to_bytes()  # the shoe no longer holds 2 and 3
    got = receiver.feed(resent)
    assert got.events[0] == MissedCards(first_sequence=2, count=2)
    assert isinstance(got.events[1], CardDrawn) and got.events[1].sequence == 4
    assert receiver.statistics.missed == 2
