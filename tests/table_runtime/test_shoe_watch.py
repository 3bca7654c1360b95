"""The shoe's rules (docs/rules.md "Shoe integrity"), on exact times: no loop, no sleep."""

from __future__ import annotations

import pytest

from drivers.ports import (
    BufferGateChanged,
    CardDrawn,
    DoorClosed,
    DoorOpened,
    Jam,
    JamCleared,
    MissedCards,
    ShoeEvent,
    ShoeIdentity,
    ShoeOffline,
    ShoeOnline,
    UnreadableCard,
)
from table_runtime.core.shoe_watch import SHOE_RULE, ShoeWatch, TableCounts
from table_runtime.game.cards import Card
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import CardDrawn as DrawnInput
from table_runtime.game.inputs import ShoeShuffled
from table_runtime.game.rules import profile
from table_runtime.game.table import Table

IDENTITY = ShoeIdentity(protocol_version=1, firmware_version="1.0", serial_number="SIM1", boot_id=1)
IN_ROUND = TableCounts(round_in_play=True, loaded=True, shoe_id="S1", dealt=9)
BETWEEN = TableCounts(round_in_play=False, loaded=True, shoe_id="S1", dealt=9)


def online(shoe_number: int, drawn: int) -> ShoeOnline:
    return ShoeOnline(identity=IDENTITY, shoe_id=shoe_number, cards_drawn=drawn, device="/dev/pts/3")


def kinds(alarms: list[Alarm]) -> list[str]:
    assert all(alarm.rule == SHOE_RULE for alarm in alarms)
    return [alarm.kind for alarm in alarms]


@pytest.mark.parametrize(("event", "counts", "expected"), [
    (DoorOpened(sequence=1), IN_ROUND, ["shoe_door_open"]),
    (DoorOpened(sequence=1), BETWEEN, []),
    (DoorClosed(sequence=1), IN_ROUND, []),
    (UnreadableCard(sequence=1, card_number=10), BETWEEN, ["unreadable_card"]),
    (Jam(sequence=1), BETWEEN, ["shoe_jam"]),
    (JamCleared(sequence=1), IN_ROUND, []),
    (ShoeOffline(reason="no heartbeat for 3 s", device="/dev/pts/3"), IN_ROUND, ["shoe_offline"]),
    (MissedCards(first_sequence=40, count=2), IN_ROUND, ["missed_cards"]),
    (CardDrawn(sequence=1, code="AS", card_number=10, raw_code=0), IN_ROUND, []),
    (BufferGateChanged(locked=True, held=249, capacity=256), BETWEEN, ["shoe_gate_locked"]),
    (BufferGateChanged(locked=False, held=0, capacity=256), IN_ROUND, []),
])
def test_each_shoe_event_and_its_alarm(event: ShoeEvent, counts: TableCounts, expected: list[str]) -> None:
    watch = ShoeWatch()
    assert kinds(watch.on_event(event, counts, now=100.0)) == expected
    assert watch.next_due is None


def test_the_alarms_name_what_happened() -> None:
    watch = ShoeWatch()
    [unreadable] = watch.on_event(UnreadableCard(sequence=1, card_number=10), IN_ROUND, 0.0)
    assert "card 10" in unreadable.message
    [offline] = watch.on_event(ShoeOffline(reason="device disconnected", device="/dev/ttyACM0"), IN_ROUND, 0.0)
    assert "/dev/ttyACM0" in offline.message and "device disconnected" in offline.message
    [missed] = watch.on_event(MissedCards(first_sequence=40, count=2), IN_ROUND, 0.0)
    assert missed.amounts == (("cards", 2),) and "sequence 40" in missed.message
    [gate] = watch.on_event(BufferGateChanged(locked=True, held=249, capacity=256), IN_ROUND, 0.0)
    assert gate.amounts == (("unacknowledged", 249), ("capacity", 256)) and "249 of 256" in gate.message


def test_a_shoe_back_with_fewer_cards_than_the_journal_is_an_alarm_at_once() -> None:
    watch = ShoeWatch(grace_seconds=2.0)
    [alarm] = watch.on_event(online(1, 7), BETWEEN, now=50.0)
    assert alarm.kind == "shoe_count_mismatch"
    assert alarm.amounts == (("shoe_cards_drawn", 7), ("journal_cards", 9))
    assert watch.next_due is None


def test_the_same_count_needs_no_check() -> None:
    watch = ShoeWatch()
    assert watch.on_event(online(1, 9), BETWEEN, now=50.0) == []
    assert watch.next_due is None


def test_more_cards_are_judged_after_the_grace_time_the_resent_cards_may_close_the_gap() -> None:
    watch = ShoeWatch(grace_seconds=2.0)
    assert watch.on_event(online(1, 11), BETWEEN, now=50.0) == []
    assert watch.next_due == 52.0
    assert watch.due(BETWEEN, now=51.999) == []  # not yet: still pending
    assert watch.next_due == 52.0
    caught_up = TableCounts(round_in_play=False, loaded=True, shoe_id="S1", dealt=11)  # both cards were resent
    assert watch.due(caught_up, now=52.0) == []
    assert watch.next_due is None


def test_more_cards_still_missing_after_the_grace_time_are_an_alarm_once() -> None:
    watch = ShoeWatch(grace_seconds=2.0)
    watch.on_event(online(1, 11), BETWEEN, now=50.0)
    one_resent = TableCounts(round_in_play=False, loaded=True, shoe_id="S1", dealt=10)
    [alarm] = watch.due(one_resent, now=52.5)
    assert alarm.kind == "shoe_count_mismatch"
    assert alarm.amounts == (("shoe_cards_drawn", 11), ("journal_cards", 10))
    assert "S1" in alarm.message
    assert watch.due(one_resent, now=60.0) == []


def test_another_shoe_than_the_journals_must_announce_itself_within_the_grace_time() -> None:
    watch = ShoeWatch(grace_seconds=2.0)
    assert watch.on_event(online(2, 3), BETWEEN, now=10.0) == []
    [alarm] = watch.due(BETWEEN, now=12.0)
    assert alarm.kind == "shoe_count_mismatch"
    assert "S2" in alarm.message and "never saw S2 loaded" in alarm.message
    assert alarm.amounts == (("shoe_cards_drawn", 3), ("journal_cards", 9))

    watch.on_event(online(2, 3), BETWEEN, now=20.0)
    loaded = TableCounts(round_in_play=False, loaded=True, shoe_id="S2", dealt=3)  # its SHOE_LOADED was resent
    assert watch.due(loaded, now=22.0) == []


def test_a_new_shoe_loaded_while_a_count_check_waits_is_no_alarm() -> None:
    watch = ShoeWatch(grace_seconds=2.0)
    watch.on_event(online(1, 11), BETWEEN, now=0.0)
    reshuffled = TableCounts(round_in_play=False, loaded=True, shoe_id="S2", dealt=0)
    assert watch.due(reshuffled, now=2.0) == []


def test_a_later_hello_replaces_the_check_and_offline_drops_it() -> None:
    watch = ShoeWatch(grace_seconds=2.0)
    watch.on_event(online(1, 11), BETWEEN, now=0.0)
    watch.on_event(online(1, 12), BETWEEN, now=1.0)
    assert watch.next_due == 3.0
    [alarm] = watch.due(BETWEEN, now=3.0)
    assert alarm.amounts == (("shoe_cards_drawn", 12), ("journal_cards", 9))

    watch.on_event(online(1, 11), BETWEEN, now=10.0)
    watch.on_event(ShoeOffline(reason="link closed", device="/dev/pts/3"), BETWEEN, now=11.0)
    assert watch.next_due is None and watch.due(BETWEEN, now=20.0) == []


def test_nothing_is_counted_before_the_first_shoe_is_loaded() -> None:
    watch = ShoeWatch()
    empty = TableCounts(round_in_play=False, loaded=False, shoe_id="", dealt=0)
    assert watch.on_event(online(4, 30), empty, now=0.0) == []
    assert watch.next_due is None


def test_the_counts_are_read_from_the_game_table() -> None:
    table = Table(profile("fr-casino"))
    assert TableCounts.of(table) == TableCounts(round_in_play=False, loaded=False, shoe_id="", dealt=0)
    table.apply(ShoeShuffled(shoe_id="S1"))
    for code in ("2C", "3C"):
        table.apply(DrawnInput(card=Card.parse(code)))
    assert TableCounts.of(table) == TableCounts(round_in_play=False, loaded=True, shoe_id="S1", dealt=2)
