"""A player card swiped at the simulated reader, read by the real driver from its FIFO, pseudonymised by the
runtime's card link and journaled: the journal's file never holds the card number (runtime/card_link.py)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from drivers.player_card import EvdevCardReader
from simulators.player_card import SimulatedCardReader, typed
from table_runtime.config import ConfigInvalidError, load_config
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.rules import TableLimits, profile
from table_runtime.journal import Journal, journal_path
from table_runtime.rating.pseudonym import pseudonym
from table_runtime.runtime.card_link import CardReaderAt, PlayerCardLink
from table_runtime.runtime.controller import TableController
from tests.polling import until
from tests.small_disk import small_disk

pytestmark = pytest.mark.timeout(60)

SECRET = b"the casino's own secret"
CARD = "6012345678901234"


def controller_on(journal: Journal) -> TableController:
    return TableController(table_id="T", rules=profile("fr-2020"), limits=TableLimits(), journal=journal,
                           clock=lambda: 1_700_000_000.0)


def files_holding(directory: Path, needle: bytes) -> list[Path]:
    """The files under `directory` whose bytes hold `needle`: the journal, its WAL, whatever SQLite keeps beside."""
    files = [path for path in directory.rglob("*") if path.is_file()]
    assert any(path.name == "journal.db" for path in files), files
    return [path for path in files if needle in path.read_bytes()]


@contextlib.asynccontextmanager
async def following(link: PlayerCardLink) -> AsyncIterator[PlayerCardLink]:
    async with link:
        task = asyncio.create_task(link.run())
        try:
            yield link
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def test_a_card_read_at_the_table_waits_for_its_box_and_the_journal_never_holds_its_number(
        tmp_path: Path) -> None:
    player = pseudonym(SECRET, CARD)
    with SimulatedCardReader(tmp_path / "table-kbd") as card, Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        reader = EvdevCardReader(card.path, name="table", retry_seconds=0.02)
        async with following(PlayerCardLink(controller, [CardReaderAt(reader)], secret=SECRET)):
            await until(lambda: controller.devices.get("player_cards") == "online", "the reader online")
            card.swipe(CARD, track=2)
            await until(lambda: "card_waiting" in controller.snapshot(), "the card waiting")  # durable: shown
            assert controller.snapshot()["card_waiting"] == {"player": player, "reader": "table"}
            reply = await controller.step(controller.press, "SEAT_CARD", {"box": 5}, role="dealer", source="display")
            assert reply["ok"], reply
            assert controller.snapshot()["seats"] == {"5": player}
    assert files_holding(tmp_path, CARD.encode()) == []
    with Journal.open(journal_path(tmp_path)) as journal:
        again = controller_on(journal)  # a restart: who sits where is the fold of the journal
        assert again.core.seats.players == {5: player} and again.core.card_waiting is None
        rows = [entry.body for entry in journal.entries(kinds=("input",))]
        assert [row["type"] for row in rows] == ["PlayerCardRead", "PlayerSeated"]
        assert rows[1]["seat_source"] == "card" and rows[1]["player"] == player


async def test_a_box_reader_seats_at_once_and_a_bad_read_or_an_unplug_is_an_alarm(tmp_path: Path) -> None:
    with SimulatedCardReader(tmp_path / "box3-kbd") as card, Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        reader = EvdevCardReader(card.path, name="box3", retry_seconds=0.02, max_keys=24)
        async with following(PlayerCardLink(controller, [CardReaderAt(reader, box=3)], secret=SECRET)):
            await until(lambda: controller.devices.get("player_cards") == "online", "the reader online")
            card.swipe("AB-77")
            await until(lambda: "3" in controller.snapshot()["seats"], "the player seated on box 3")
            assert controller.core.seats.players == {3: pseudonym(SECRET, "AB-77")}
            assert controller.core.card_waiting is None  # a box's reader places its card itself
            card.write(typed("1" * 30))
            await until(lambda: any(alarm["kind"] == AlarmKind.PLAYER_CARD_UNREADABLE
                                    for alarm in controller.snapshot()["alarms"]), "the unreadable card's alarm")
            card.unplug()
            await until(lambda: any(alarm["kind"] == AlarmKind.CARD_READER_OFFLINE
                                    for alarm in controller.snapshot()["alarms"]), "the reader's offline alarm")
            assert controller.snapshot()["devices"]["player_cards"] == "offline"  # the same step
            (offline,) = [alarm for alarm in controller.snapshot()["alarms"]
                          if alarm["kind"] == AlarmKind.CARD_READER_OFFLINE]
            assert offline["box"] == 3 and "box3 (box3) offline" in offline["message"]
            card.replug()
            await until(lambda: controller.devices.get("player_cards") == "online", "the reader back")


def test_a_reader_without_the_casino_secret_is_a_one_line_configuration_error(tmp_path: Path) -> None:
    demo = (Path(__file__).resolve().parents[2] / "configs" / "demo.toml").read_text(encoding="utf-8")
    source = tmp_path / "table.toml"
    source.write_text(re.sub(r'(?m)^data_dir = .*$', f'data_dir = "{tmp_path}"', demo)
                      + '\n[player_cards]\nreader = "/dev/input/by-id/usb-card-event-kbd"\n'
                        'secret_file = "secret"\nevent_size = 20\n[player_cards.boxes]\n9 = "x"\n',
                      encoding="utf-8")
    (tmp_path / "secret").write_text("", encoding="utf-8")
    with pytest.raises(ConfigInvalidError) as raised:
        load_config(source, environ={})
    problems = {problem.key: problem.message for problem in raised.value.problems}
    assert "the casino's secret is missing or empty" in problems["player_cards.secret_file"]
    assert "24 bytes on a 64-bit system" in problems["player_cards.event_size"]
    assert "not a box of the table" in problems["player_cards.boxes.9"]
    (tmp_path / "secret").write_text("sixteen bytes at least\n", encoding="utf-8")
    source.write_text(source.read_text(encoding="utf-8").replace("event_size = 20", "event_size = 16")
                      .replace('9 = "x"', '3 = "/dev/input/box3-kbd"'), encoding="utf-8")
    config = load_config(source, environ={}).player_cards
    assert config.secret == b"sixteen bytes at least" and config.event_size == 16
    assert [(name, str(path), box) for name, path, box in config.readers] == [
        ("table", "/dev/input/by-id/usb-card-event-kbd", None), ("box3", "/dev/input/box3-kbd", 3)]
    assert "sixteen" not in repr(config)


async def test_after_stray_bytes_the_lost_card_is_an_alarm_and_the_next_one_seats(tmp_path: Path) -> None:
    """The records out of alignment (16 stray bytes in the reader's stream): the card they fall before is an
    unreadable card's alarm, never a wrong player, and the next card seats its player."""
    with SimulatedCardReader(tmp_path / "box3-kbd") as card, Journal.open(journal_path(tmp_path)) as journal:
        controller = controller_on(journal)
        reader = EvdevCardReader(card.path, name="box3", retry_seconds=0.02)
        async with following(PlayerCardLink(controller, [CardReaderAt(reader, box=3)], secret=SECRET)):
            await until(lambda: controller.devices.get("player_cards") == "online", "the reader online")
            card.stray(16)
            card.swipe("AB-77")
            card.swipe(CARD)
            await until(lambda: controller.core.seats.players.get(3) == pseudonym(SECRET, CARD), "the next card seated")
            (lost,) = [alarm for alarm in controller.snapshot()["alarms"]
                       if alarm["kind"] == AlarmKind.PLAYER_CARD_UNREADABLE]
            assert lost["box"] == 3 and "lost their alignment" in lost["message"]
            rows = [entry.body for entry in journal.entries(kinds=("input",))]
            assert [row["player"] for row in rows] == [pseudonym(SECRET, CARD)]  # AB-77's misread never seated


async def test_a_card_read_while_the_journal_cannot_be_written_is_an_alarm(tmp_path: Path) -> None:
    """A full card: the read cannot be journaled, so it is lost; the dealer sees it (the alarm is shown at once and
    held until the journal takes rows again), not only the log."""
    with small_disk(tmp_path / "card") as disk, SimulatedCardReader(tmp_path / "box3-kbd") as card, \
            Journal.open(journal_path(disk.path)) as journal:
        controller = controller_on(journal)
        reader = EvdevCardReader(card.path, name="box3", retry_seconds=0.02)
        async with following(PlayerCardLink(controller, [CardReaderAt(reader, box=3)], secret=SECRET)):
            await until(lambda: controller.devices.get("player_cards") == "online", "the reader online")
            disk.fill()

            def lost() -> bool:
                return any(alarm["kind"] == AlarmKind.PLAYER_CARD_UNREADABLE and "is lost" in alarm["message"]
                           for alarm in controller.snapshot()["alarms"])

            for index in range(200):  # the journal takes a few rows into what SQLite already holds, then refuses
                player = pseudonym(SECRET, f"{index:04d}")
                card.swipe(f"{index:04d}")
                await until(lambda: lost() or controller.core.seats.players.get(3) == player,  # noqa: B023
                            "the card seated or lost")
                if lost():
                    break
            assert lost()
            disk.free()
