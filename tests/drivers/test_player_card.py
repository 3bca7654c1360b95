"""The real player card reader driver reading the simulated reader's `input_event` records from a FIFO."""

from __future__ import annotations

import array
import asyncio
import fcntl
import os
import termios
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from drivers.player_card import EVIOCGRAB, READ_RECORDS, READS_PER_WAKE, EvdevCardReader
from drivers.ports import CardRead, CardReaderEvent, CardReaderOffline, CardReaderOnline, CardUnreadable
from firmware_bridge.key_events import LAYOUT_32, LAYOUT_64
from simulators.player_card import SimulatedCardReader, typed
from tests.polling import until

pytestmark = pytest.mark.timeout(30)


async def next_of(reads: AsyncIterator[CardReaderEvent]) -> CardReaderEvent:
    async with asyncio.timeout(5):
        return await anext(reads)


def test_the_grab_ioctl_is_linux_s_eviocgrab() -> None:
    assert EVIOCGRAB == 0x40044590  # _IOW('E', 0x90, int)


async def test_a_swiped_card_reaches_the_driver_as_its_number(tmp_path: Path) -> None:
    with SimulatedCardReader(tmp_path / "card-kbd") as card:
        card.swipe("0012345678")
        async with EvdevCardReader(card.path, name="table", retry_seconds=0.02) as reader:
            reads = reader.reads()
            online = await next_of(reads)
            assert isinstance(online, CardReaderOnline) and "FIFO, not grabbed" in online.device
            assert reader.online and not reader.grabbed
            read = await next_of(reads)  # swiped before the driver opened: it waited in the pipe
            assert isinstance(read, CardRead) and (read.reader, read.number) == ("table", "0012345678")
            assert "0012345678" not in repr(read)  # a log line of the read never prints the number
            card.swipe("6012345678901234", track=2)
            card.swipe("AB-77", track=1)
            assert [(await next_of(reads)).number for _ in range(2)] == ["6012345678901234", "AB-77"]  # type: ignore[union-attr]
            await reads.aclose()


async def test_a_garbled_read_is_an_item_and_the_next_card_reads(tmp_path: Path) -> None:
    with SimulatedCardReader(tmp_path / "card-kbd") as card:
        async with EvdevCardReader(card.path, max_keys=12, retry_seconds=0.02) as reader:
            reads = reader.reads()
            assert isinstance(await next_of(reads), CardReaderOnline)
            card.write(typed("1234567890123456789"))
            unreadable = await next_of(reads)
            assert isinstance(unreadable, CardUnreadable) and "no ENTER within 12 keys" in unreadable.reason
            card.write(typed("55")[:30])  # half a record first: the rest follows in another write
            card.write(typed("55")[30:])
            read = await next_of(reads)
            assert isinstance(read, CardRead) and read.number == "55"
            await reads.aclose()


async def test_the_32_bit_layout_is_read_when_configured(tmp_path: Path) -> None:
    with SimulatedCardReader(tmp_path / "card-kbd", layout=LAYOUT_32) as card:
        async with EvdevCardReader(card.path, layout=LAYOUT_32, retry_seconds=0.02) as reader:
            reads = reader.reads()
            assert "16-byte events" in (await next_of(reads)).device  # type: ignore[union-attr]
            card.swipe("9001")
            read = await next_of(reads)
            assert isinstance(read, CardRead) and read.number == "9001"
            await reads.aclose()
    assert LAYOUT_64.size == 24


async def test_unplugged_the_reader_is_offline_in_one_line_and_back_once_replugged(tmp_path: Path) -> None:
    path = tmp_path / "card-kbd"
    async with EvdevCardReader(path, retry_seconds=0.02) as reader:
        reads = reader.reads()
        missing = await next_of(reads)  # not plugged at the start
        assert isinstance(missing, CardReaderOffline) and missing.reason == f"{path}: no such device (unplugged?)"
        with SimulatedCardReader(path) as card:
            assert isinstance(await next_of(reads), CardReaderOnline)
            card.swipe("111")
            assert (await next_of(reads)).number == "111"  # type: ignore[union-attr]
            card.unplug()
            gone = await next_of(reads)
            assert isinstance(gone, CardReaderOffline) and "unplugged" in gone.reason and "\n" not in gone.reason
            assert not reader.online
            card.replug()
            assert isinstance(await next_of(reads), CardReaderOnline)
            card.swipe("222")
            assert (await next_of(reads)).number == "222"  # type: ignore[union-attr]
        await reads.aclose()


async def test_a_file_that_is_no_device_is_offline_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "plain-file"
    path.write_bytes(b"")
    async with EvdevCardReader(path, retry_seconds=0.02) as reader:
        reads = reader.reads()
        offline = await next_of(reads)
        assert isinstance(offline, CardReaderOffline)
        assert offline.reason == f"{path}: neither an input event device nor a FIFO"
        await reads.aclose()


async def test_a_character_device_is_grabbed_and_one_that_refuses_the_grab_is_offline() -> None:
    """/dev/null is a character device but no input device: the grab (EVIOCGRAB) is tried and refused."""
    async with EvdevCardReader("/dev/null", retry_seconds=0.02) as reader:
        reads = reader.reads()
        offline = await next_of(reads)
        assert isinstance(offline, CardReaderOffline) and offline.reason.startswith("/dev/null: ")
        assert "ioctl" in offline.reason and not reader.online
        await reads.aclose()


async def test_every_card_after_stray_bytes_is_read_and_the_one_lost_is_unreadable(tmp_path: Path) -> None:
    """16 stray bytes in the FIFO: the card they fall before is refused (an alarm at the table), each later card
    reads as swiped; before, every later card was dropped with the reader online and no alarm."""
    with SimulatedCardReader(tmp_path / "card-kbd") as card:
        async with EvdevCardReader(card.path, retry_seconds=0.02) as reader:
            reads = reader.reads()
            assert isinstance(await next_of(reads), CardReaderOnline)
            card.swipe("1001")
            card.stray(16)
            for number in ("2002", "3003", "4004", "5005"):
                card.swipe(number)
            assert (await next_of(reads)).number == "1001"  # type: ignore[union-attr]
            lost = await next_of(reads)
            assert isinstance(lost, CardUnreadable) and "lost their alignment" in lost.reason
            assert [(await next_of(reads)).number for _ in range(3)] == ["3003", "4004", "5005"]  # type: ignore[union-attr]
            assert reader.online
            await reads.aclose()


async def test_records_of_the_other_size_in_a_fifo_are_detected(tmp_path: Path) -> None:
    with SimulatedCardReader(tmp_path / "card-kbd", layout=LAYOUT_32) as card:
        async with EvdevCardReader(card.path, layout=LAYOUT_64, retry_seconds=0.02) as reader:
            reads = reader.reads()
            assert isinstance(await next_of(reads), CardReaderOnline)
            for number in ("11", "22", "33"):
                card.swipe(number)
            lost = await next_of(reads)
            assert isinstance(lost, CardUnreadable) and "as 16-byte records" in lost.reason
            assert [(await next_of(reads)).number for _ in range(2)] == ["22", "33"]  # type: ignore[union-attr]
            await reads.aclose()


async def test_a_shift_never_released_changes_no_later_card(tmp_path: Path) -> None:
    with SimulatedCardReader(tmp_path / "card-kbd") as card:
        async with EvdevCardReader(card.path, retry_seconds=0.02) as reader:
            reads = reader.reads()
            assert isinstance(await next_of(reads), CardReaderOnline)
            card.stick_shift()
            card.swipe("1234")
            card.swipe("5678")
            refused = await next_of(reads)
            assert isinstance(refused, CardUnreadable) and "SHIFT still held" in refused.reason  # not !@#$
            read = await next_of(reads)
            assert isinstance(read, CardRead) and read.number == "5678"  # not %^&*
            await reads.aclose()


def waiting_in(fifo: Path) -> int:
    """The bytes a FIFO holds unread (FIONREAD)."""
    waiting = array.array("i", [0])
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        fcntl.ioctl(fd, termios.FIONREAD, waiting)
    finally:
        os.close(fd)
    return waiting[0]


async def test_one_wake_up_of_the_loop_reads_a_bounded_part_of_an_endless_card(tmp_path: Path) -> None:
    """A reader typing without end fills the pipe: one wake-up takes at most READS_PER_WAKE reads of READ_RECORDS
    records and leaves the rest to the next (the loop runs between); the over-long card is one refusal, and the card
    swiped after a pause reads."""
    now = [1000.0]
    with SimulatedCardReader(tmp_path / "card-kbd") as card:
        async with EvdevCardReader(card.path, retry_seconds=0.02, clock=lambda: now[0]) as reader:
            reads = reader.reads()
            assert isinstance(await next_of(reads), CardReaderOnline)
            endless = typed("7" * 3000, enter=False)[: 60 * 1024 // 24 * 24]  # most of a 64 KiB pipe
            card.write(endless)
            reader._readable()  # the loop's callback, once, before the loop runs it
            assert waiting_in(card.path) == len(endless) - READS_PER_WAKE * READ_RECORDS * 24
            refused = await next_of(reads)
            assert isinstance(refused, CardUnreadable) and "no ENTER within 64 keys" in refused.reason
            await until(lambda: waiting_in(card.path) == 0, "the rest of the endless card read by the loop")
            now[0] += 3.0  # the next card comes after a pause: not the end of the endless one
            card.swipe("42")
            read = await next_of(reads)
            assert isinstance(read, CardRead) and read.number == "42"
            await reads.aclose()
