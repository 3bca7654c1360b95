"""A journal on a real small file system (a tmpfs) that fills up or turns read-only: the table stops play safely.

The write that fails names its cause in one line (`JournalUnwritableError`), the controller refuses the
input (the core is as the journal has it), holds the `journal_unwritable` alarm and what is raised meanwhile
in memory, and `retry_journal` writes them, in order, once space is freed; a restart on a full card says
"cannot write: disk full", never "not a journal".
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import cast

import pytest

from drivers.ports import CardShoe
from firmware_bridge.shoe import events as shoe_events
from table_runtime.core.inputs import CoreInput
from table_runtime.game import citations
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.cards import Card, parse_cards
from table_runtime.game.events import Alarm
from table_runtime.game.inputs import CardDrawn, ShoeShuffled
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, JournalUnwritableError, journal_path, verify_file
from table_runtime.journal.failures import cause_of
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.shoe_link import BURST_MAX, ShoeLink
from tests.small_disk import SmallDisk, small_disk

CARDS = parse_cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD") * 20


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[SmallDisk]:
    with small_disk(tmp_path / "card") as mounted:
        yield mounted


def controller_on(journal: Journal) -> TableController:
    return TableController(table_id="T", rules=profile("fr-casino"), limits=TableLimits(), journal=journal,
                           clock=lambda: 1_800_000_000.0)


def journaled_cards(journal: Journal) -> list[str]:
    return [entry.body["card"] for entry in journal.entries(kinds=("input",)) if entry.body["type"] == "CardDrawn"]


def draw_until_refused(controller: TableController) -> tuple[int, JournalUnwritableError]:
    """Draw cards until the journal refuses one; (cards journaled, the error). A bounded number of tries."""
    for index, card in enumerate(CARDS):
        try:
            controller.draw(CardDrawn(card=card), source="shoe")
        except JournalUnwritableError as error:
            return index, error
    raise AssertionError(f"{len(CARDS)} cards journaled on a full card")


def test_a_full_card_is_named_in_one_line_and_an_unwritable_error(disk: SmallDisk) -> None:
    with Journal.open(journal_path(disk.path)) as journal:
        journal.append("status", {"type": "Started"}, ts=1.0)
        disk.fill()
        with pytest.raises(JournalUnwritableError) as raised:
            for index in range(2000):
                journal.append("status", {"type": "Filler", "i": index, "pad": "x" * 500}, ts=1.0)
    error = raised.value
    assert error.cause == "disk full" and isinstance(error, OSError)
    assert str(error).startswith(f"{journal_path(disk.path)}: cannot write: disk full (")
    assert "\n" not in str(error) and "not a journal" not in str(error)
    disk.free()
    assert verify_file(journal_path(disk.path)).ok


def test_a_restart_on_a_still_full_card_names_the_cause_not_a_broken_journal(disk: SmallDisk) -> None:
    with Journal.open(journal_path(disk.path)) as journal:
        controller = controller_on(journal)
        controller.submit(ShoeShuffled(shoe_id="S1"))
        disk.fill()
        draw_until_refused(controller)
    with pytest.raises(JournalUnwritableError) as raised:  # opening, claiming or the start note: one of them
        with Journal.open(journal_path(disk.path)) as journal:
            controller_on(journal)
    assert "cannot write: disk full (" in str(raised.value) and "not a journal" not in str(raised.value)
    disk.free()
    with Journal.open(journal_path(disk.path)) as journal:
        assert controller_on(journal).table.shoe.shoe_id == "S1"


def test_play_stops_with_an_alarm_held_in_memory_and_resumes_with_nothing_lost(disk: SmallDisk) -> None:
    with Journal.open(journal_path(disk.path)) as journal:
        controller = controller_on(journal)
        controller.submit(ShoeShuffled(shoe_id="S1"))
        disk.fill()
        taken, error = draw_until_refused(controller)
        assert error.cause == "disk full"
        dealt = controller.table.shoe.dealt
        assert journaled_cards(journal) == [card.code for card in CARDS[:taken]]
        assert dealt == taken  # the refused card is not in the core either: it is as the journal has it
        shown = [alarm for alarm in controller.snapshot()["alarms"] if alarm["kind"] == AlarmKind.JOURNAL_UNWRITABLE]
        assert len(shown) == 1 and shown[0]["id"] < 0 and "cannot write: disk full" in shown[0]["message"]
        assert shown[0]["rule"] and shown[0]["box"] is None and shown[0]["amounts"] == {}
        # While it lasts: inputs refused at once (the core untouched), alarms and notes held, commands not done.
        with pytest.raises(JournalUnwritableError):
            controller.draw(CardDrawn(card=CARDS[taken]), source="shoe")
        assert controller.table.shoe.dealt == dealt
        held_id = controller.raise_alarm(Alarm(kind=AlarmKind.READER_OFFLINE, message="reader left offline",
                                               rule=citations.DEVICE_DISCONNECTED))
        assert held_id < 0 and held_id in controller.alarms
        controller.set_device("shoe", "online")
        reply = controller.press("NEXT", {}, role="dealer", source="display")
        assert reply["ok"] is False and "cannot write: disk full" in reply["message"]
        assert controller.retry_journal() is False and controller.outage is not None
        assert controller.outage.refused_inputs >= 1
        last_before = journal.last_seq

        disk.free()
        assert controller.retry_journal() is True and controller.outage is None
        rows = list(journal.entries(after_seq=last_before))
        assert [(row.kind, row.body["type"]) for row in rows] == [
            ("alarm", "Alarm"), ("alarm", "Alarm"), ("status", "DeviceStatus"), ("alarm_cleared", "AlarmCleared"),
            ("status", "JournalWritable")]
        outage_alarm, reader_alarm = rows[0], rows[1]
        assert outage_alarm.body["kind"] == AlarmKind.JOURNAL_UNWRITABLE and outage_alarm.body["id"] == outage_alarm.seq
        assert reader_alarm.body["id"] == reader_alarm.seq and reader_alarm.seq in controller.alarms
        assert rows[3].body == {"type": "AlarmCleared", "schema_version": 1, "id": outage_alarm.seq, "by": "journal"}
        assert rows[4].body["cause"] == "disk full" and rows[4].body["refused_inputs"] >= 1
        assert [alarm["kind"] for alarm in controller.alarms.active] == [AlarmKind.READER_OFFLINE]
        # Play goes on: the refused card, drawn again, is journaled once.
        controller.draw(CardDrawn(card=CARDS[taken]), source="shoe")
        assert journaled_cards(journal) == [card.code for card in CARDS[:taken + 1]]
    assert verify_file(journal_path(disk.path)).ok


def test_read_only_and_io_errors_are_causes_other_errors_are_not(tmp_path: Path) -> None:
    """A card remounted read-only cannot be made here while the journal holds it open (EBUSY): the error
    SQLite gives a read-only connection is classified instead, and an error that is no card's is left alone."""
    path = journal_path(tmp_path)
    Journal.open(path).close()
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        with pytest.raises(sqlite3.Error) as read_only:
            db.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
    assert cause_of(read_only.value) == "read-only"
    assert cause_of(OSError(errno.EIO, "Input/output error")) == "I/O error"
    assert cause_of(OSError(errno.ENOSPC, "No space left on device")) == "disk full"
    assert cause_of(sqlite3.OperationalError("no such table: entries")) is None


class RecordingShoe:
    """The shoe's side of ack after commit: which events were acknowledged and which handed back to resend."""

    def __init__(self) -> None:
        self.acknowledged: list[int] = []
        self.redelivered: list[int] = []

    def acknowledge(self, event: shoe_events.SequencedShoeEvent) -> None:
        self.acknowledged.append(event.sequence)

    def redeliver(self, event: shoe_events.SequencedShoeEvent) -> None:
        self.redelivered.append(event.sequence)


def test_during_an_outage_no_shoe_event_is_acknowledged_and_a_storm_count_is_journaled_after(disk: SmallDisk) -> None:
    """A jam during an outage is handed back, not acknowledged while its alarm is only in memory; a storm alarm's
    count added during the outage is journaled once the journal takes rows again (a restart sees it)."""
    antenna = Alarm(kind=AlarmKind.ANTENNA_FAULT, box=1, message="antenna box1 open circuit",
                    rule="table check, docs/rules.md « What the table catches »: a reader or antenna fault")
    recording = RecordingShoe()
    with Journal.open(journal_path(disk.path)) as journal:
        controller = controller_on(journal)
        link = ShoeLink(controller, cast(CardShoe, recording))
        link.marks.boot_id = 42  # as the shoe's HELLO says
        controller.submit(ShoeShuffled(shoe_id="S1"))
        [antenna_id] = controller.raise_alarms([antenna])
        disk.fill()
        draw_until_refused(controller)

        async def jam(sequence: int) -> None:
            await link.take([shoe_events.Jam(sequence=sequence)])

        asyncio.run(jam(7))
        assert recording.redelivered == [7] and recording.acknowledged == []
        assert not controller.alarms.active_of_kind(AlarmKind.SHOE_JAM)  # nothing shown that is not journaled
        controller.raise_alarms([antenna, antenna])  # held: two more on the open alarm
        assert controller.alarms.get(antenna_id).count == 3  # type: ignore[union-attr]

        disk.free()
        assert controller.retry_journal() is True
        asyncio.run(jam(7))  # the shoe's resend
        assert recording.acknowledged == [7]
        [jammed] = controller.alarms.active_of_kind(AlarmKind.SHOE_JAM)
        assert [entry.body.get("origin", {}).get("sequence") for entry in journal.entries(kinds=("alarm",))
                if entry.seq == jammed] == [7]
        asyncio.run(jam(7))  # resent again after a lost ACK: journaled already, acknowledged, not raised twice
        assert recording.acknowledged == [7, 7] and len(controller.alarms.active_of_kind(AlarmKind.SHOE_JAM)) == 1
    with Journal.open(journal_path(disk.path)) as journal:
        restarted = controller_on(journal)
        assert restarted.alarms.get(antenna_id).count == 3  # type: ignore[union-attr]


def test_a_small_row_fitting_after_a_refused_burst_does_not_end_the_outage(
        disk: SmallDisk, caplog: pytest.LogCaptureFixture) -> None:
    """A refused burst leaves its half-written frames in the write-ahead log: a small row fits there while the
    next burst does not. The outage goes on (alarm shown) until the file system has room for the table's rows,
    and the log says so when it starts, each minute it lasts and when it ends (not a line per refused input)."""
    now = [1_800_000_000.0]
    with Journal.open(journal_path(disk.path)) as journal:
        controller = controller_on(journal)
        controller.clock = lambda: now[0]
        controller.submit(ShoeShuffled(shoe_id="S1"))
        disk.fill(leave=32 * 1024)

        def burst(cards: Sequence[Card]) -> Iterator[tuple[CoreInput, str]]:
            for card in cards:  # each read after the one before was applied, as the shoe link does
                yield from controller.core.card_inputs(CardDrawn(card=card), "shoe")

        for start in range(0, len(CARDS), BURST_MAX):  # the most the shoe link journals in one step
            try:
                controller.submit_all(burst(CARDS[start:start + BURST_MAX]))
            except JournalUnwritableError:
                break
        assert controller.outage is not None
        taken = journal.last_seq
        journal.append("status", {"type": "Probe"}, ts=1.0)  # the premise: a small row still fits
        assert controller.retry_journal() is False  # ... which says nothing about the next burst
        shown = [alarm["kind"] for alarm in controller.snapshot()["alarms"]]
        assert shown == [AlarmKind.JOURNAL_UNWRITABLE]
        assert "bytes free; play resumes once" in str(controller.outage.error)
        assert [row.kind for row in journal.entries(after_seq=taken)] == ["status"]  # nothing half-written
        for _ in range(3):  # refused inputs, 30 s apart: one line a minute says the outage goes on
            now[0] += 30.0
            with pytest.raises(JournalUnwritableError):
                controller.submit_all(burst(CARDS[:1]))

        disk.free()
        assert controller.retry_journal() is True and controller.snapshot()["alarms"] == []
        rows = list(journal.entries(after_seq=taken + 1))
        assert [row.kind for row in rows] == ["alarm", "alarm_cleared", "status"]  # one transaction
        assert rows[1].body["id"] == rows[0].seq and rows[2].body["refused_inputs"] == 4
    lines = [record.getMessage() for record in caplog.records if record.name.endswith("runtime.controller")]
    assert len(lines) == 3, lines
    assert "cannot write: disk full" in lines[0] and "play stops" in lines[0]
    assert "0 bytes free; play resumes once" in lines[1] and "play still stopped after 60 s; " in lines[1]
    assert "takes rows again after 90.0 s; 4 inputs were refused meanwhile" in lines[2]


def test_a_refused_step_takes_none_of_the_shoe_events_after_it(disk: SmallDisk) -> None:
    """A burst [card, the driver's ShoeOffline, card]: the first card refused, the journal back before the second
    (the space freed just then): the second is not journaled ahead of the first (a resend of the first would then
    pass for journaled already, and be acknowledged without a row); the driver's own event is still taken."""
    recording = RecordingShoe()
    with Journal.open(journal_path(disk.path)) as journal:
        controller = controller_on(journal)

        def freed_before(point: str, events: Sequence[shoe_events.SequencedShoeEvent]) -> None:
            if point == "before-commit" and events[0].sequence == 6:
                disk.free()

        link = ShoeLink(controller, cast(CardShoe, recording), on_commit=freed_before)
        link.marks.boot_id = 42  # as the shoe's HELLO says
        controller.submit(ShoeShuffled(shoe_id="S1"))
        disk.fill()
        draw_until_refused(controller)
        first, second = (shoe_events.CardDrawn(sequence=sequence, code=code, card_number=sequence, raw_code=0)
                         for sequence, code in ((5, "2H"), (6, "3H")))
        offline = shoe_events.ShoeOffline(reason="unplugged", device="/dev/ttyACM0")

        async def take(burst: Sequence[shoe_events.ShoeEvent]) -> bool:
            return await link.take(burst)

        dealt = controller.table.shoe.dealt
        taken = asyncio.run(take([first, offline, second]))
        assert recording.redelivered == [5] and recording.acknowledged == []
        assert taken is False
        assert controller.table.shoe.dealt == dealt and controller.devices["shoe"] == "offline"

        disk.free()
        assert asyncio.run(take([first, second])) is True  # the shoe's resend, in order
        assert recording.acknowledged == [5, 6]
        assert journaled_cards(journal)[-2:] == ["2H", "3H"] and controller.table.shoe.dealt == dealt + 2
