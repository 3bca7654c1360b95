"""The player card readers' shell: read, pseudonymise, submit, then show (issue 23, "Who sits where").

Each reader (`PlayerCardReader`, drivers/ports.py) is followed in its own task of the link's group. A card read
becomes the player's pseudonym here, before anything else sees it (table_runtime/rating/pseudonym.py): the
controller, the journal, the feed and the display are given the pseudonym, never the number. Then:

- at the table's reader: the input `PlayerCardRead`, which the core holds until the dealer taps the player's box
  (core/player_cards.py);
- at a reader configured for one box: `PlayerSeated(box, player, source="card")` at once;
- at the table's reader, a badge of the staff registry (runtime/staff_desk.py) is an employee's, never a player's:
  a dealer's takes the table, a supervisor's stands for his next action; its number is never pseudonymised.

Each event is one step of the table (`TableController.step`: made in the writer's thread, in turn with the
other devices' steps). A read the decoder refused is a `player_card_unreadable` alarm (the player swipes again);
a reader gone is a `card_reader_offline` alarm, a warning line naming the reader and why, and the device
`player_cards` offline on the display until every reader reads again. A card read while the journal cannot be
written is lost (a warning line and the same alarm say so): the player swipes it again once the table plays again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Final, Self

from drivers.ports import (
    CardRead,
    CardReaderEvent,
    CardReaderOffline,
    CardReaderOnline,
    CardUnreadable,
    PlayerCardReader,
)
from table_runtime.core.player_cards import PlayerCardRead
from table_runtime.core.readers_online import ReadersOnline
from table_runtime.core.seating import CARD_SOURCE, PlayerSeated
from table_runtime.game.alarm_kinds import AlarmKind
from table_runtime.game.events import Alarm
from table_runtime.journal import JournalUnwritableError
from table_runtime.rating.pseudonym import pseudonym
from table_runtime.runtime.controller import TableController
from table_runtime.runtime.staff_desk import StaffDesk

DEVICE: Final = "player_cards"  # the name of the readers on the display's device list
RULE: Final = "TABLE.md Devices: a player card reader at the table identifies a rated player at a box"

log = logging.getLogger("table_runtime.devices")


@dataclass(frozen=True, slots=True)
class CardReaderAt:
    """A reader and the box it serves (None: the table's reader, whose cards the dealer places)."""

    reader: PlayerCardReader
    box: int | None = None


class PlayerCardLink:
    """Follows the player card readers for the life of an `async with`; `take` is one event's handling."""

    def __init__(self, controller: TableController, readers: Sequence[CardReaderAt], *, secret: bytes,
                 staff: StaffDesk | None = None) -> None:
        self.controller = controller
        self.staff = staff  # the staff registry: a badge read at the table's reader is an employee's (issue 34)
        self.readers = tuple(readers)
        self._secret = secret
        self._online = ReadersOnline(at.reader.name for at in self.readers)  # the device's status they make
        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> Self:
        async with contextlib.AsyncExitStack() as stack:
            for at in self.readers:
                await stack.enter_async_context(at.reader)
            self._stack = stack.pop_all()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        await self._stack.aclose()

    async def run(self) -> None:
        """Follow every reader until cancelled."""
        async with asyncio.TaskGroup() as tasks:
            for at in self.readers:
                tasks.create_task(self._follow(at))

    async def _follow(self, at: CardReaderAt) -> None:
        async for event in at.reader.reads():
            await self.controller.step(self.take, event, at.box)

    def take(self, event: CardReaderEvent, box: int | None) -> None:
        """One event of a reader serving `box` (None: the table's reader), as one change of the table."""
        controller = self.controller
        where = f"box{box}" if box is not None else "the table"
        if isinstance(event, CardRead):
            if box is None and self.staff is not None and self.staff.badge(event.number) is not None:
                return  # a badge, not a player's card: the desk took it (runtime/staff_desk.py)
            player = pseudonym(self._secret, event.number)
            item: PlayerSeated | PlayerCardRead = (
                PlayerSeated(box=box, player=player, by=f"card reader {event.reader}", source=CARD_SOURCE)
                if box is not None else PlayerCardRead(player=player, reader=event.reader))
            try:
                controller.submit_all([(item, "card")])
            except JournalUnwritableError as error:
                log.warning("player card reader %s: a card read at %s is lost (the journal cannot be written: %s); "
                            "the player swipes it again", event.reader, where, error)
                controller.raise_alarms([Alarm(  # shown at once, held until the journal takes it
                    kind=AlarmKind.PLAYER_CARD_UNREADABLE, box=box, rule=RULE,
                    message=f"player card reader {event.reader} ({where}): a card read is lost (the journal cannot "
                            f"be written); the player swipes it again once the table plays again")])
        elif isinstance(event, CardUnreadable):
            log.warning("player card reader %s: a card could not be read: %s", event.reader, event.reason)
            controller.raise_alarms([Alarm(
                kind=AlarmKind.PLAYER_CARD_UNREADABLE, box=box, rule=RULE,
                message=f"player card reader {event.reader} ({where}): the card could not be read ({event.reason}); "
                        f"the player swipes it again")])
        elif isinstance(event, CardReaderOffline):
            log.warning("player card reader %s offline: %s", event.reader, event.reason)
            controller.set_device(DEVICE, self._online.offline(event.reader))
            controller.raise_alarms([Alarm(
                kind=AlarmKind.CARD_READER_OFFLINE, box=box, rule=RULE,
                message=f"player card reader {event.reader} ({where}) offline: {event.reason}; players are rated "
                        f"anonymously by box until it reads again, or the dealer names them on the display")])
        elif isinstance(event, CardReaderOnline):
            log.info("player card reader %s online: %s", event.reader, event.device)
            controller.set_device(DEVICE, self._online.online(event.reader))
