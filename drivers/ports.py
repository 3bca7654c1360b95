"""The ports: what the table needs from each device, and the events and values they give.

The runtime codes against these `typing.Protocol` classes; the concrete drivers
(`drivers.shoe.SerialShoe`, `drivers.chip_reader.UsbChipReader`,
`drivers.dealer_panel.GpioDealerPanel`) and the simulated devices implement
them. This module imports no third-party library (a test checks it), so a
module that only needs a device's type imports neither pyserial, pyusb nor
gpiozero.

The shoe's events are `firmware_bridge.shoe.events` (re-exported here): the
protocol decodes straight to them, and they carry card codes, not the game's
cards.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

from firmware_bridge.rfid import AntennaStatus, Tag
from firmware_bridge.shoe.events import (
    BufferGateChanged,
    CardDrawn,
    CutCardReached,
    DoorClosed,
    DoorOpened,
    GateChanged,
    Jam,
    JamCleared,
    MissedCards,
    SequencedShoeEvent,
    ShoeEvent,
    ShoeIdentity,
    ShoeOffline,
    ShoeOnline,
    ShoeShuffled,
    UnreadableCard,
)

__all__ = [
    "BufferGateChanged",
    "CardDrawn",
    "CardRead",
    "CardReaderEvent",
    "CardReaderOffline",
    "CardReaderOnline",
    "CardShoe",
    "CardUnreadable",
    "ChipReader",
    "ChipsScanned",
    "CutCardReached",
    "DealerPanel",
    "DoorClosed",
    "DoorOpened",
    "GateChanged",
    "Jam",
    "JamCleared",
    "MissedCards",
    "PanelCommand",
    "PlayerCardReader",
    "ReaderEvent",
    "ReaderOffline",
    "ReaderOnline",
    "SequencedShoeEvent",
    "ShoeEvent",
    "ShoeIdentity",
    "ShoeOffline",
    "ShoeOnline",
    "ShoeShuffled",
    "Tower",
    "UnreadableCard",
    "ZoneReading",
]


# -- the shoe ----------------------------------------------------------------------------------


class CardShoe(Protocol):
    """What the runtime needs from a shoe, real or simulated."""

    @property
    def online(self) -> bool: ...

    @property
    def identity(self) -> ShoeIdentity | None: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    def events(self) -> AsyncIterator[ShoeEvent]:
        """Every event, in order, until the shoe is closed; raises ShoeVersionError if the shoe is refused."""
        ...

    def acknowledge(self, event: SequencedShoeEvent) -> None:
        """The table has journaled `event` and what it caused (committed, durable): the shoe may forget it and
        every event before it. Until then the shoe holds it and resends it (ack after commit, docs/journal.md)."""
        ...

    def redeliver(self, event: SequencedShoeEvent) -> None:
        """The table could not journal `event`: take it and the events after it back; the shoe's resend of them
        is delivered again (the journal is retried with each resend; nothing is lost)."""
        ...

    async def lock_gate(self) -> None:
        """Lock the card gate (between rounds); returns once the shoe confirms it."""
        ...

    async def unlock_gate(self) -> None:
        """Unlock the card gate; returns once the shoe confirms it."""
        ...


# -- the chip readers --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ZoneReading:
    """What the antenna under one zone saw in one inventory."""

    zone: str
    tags: tuple[Tag, ...]
    status: AntennaStatus = AntennaStatus.OK
    detail: str = ""  # why a reading is not complete, in the driver's words (its antenna or output, the reason)

    @property
    def complete(self) -> bool:
        """True when a chip missing from `tags` was really not seen (antenna healthy, not truncated)."""
        return self.status == AntennaStatus.OK


@dataclass(frozen=True, slots=True, kw_only=True)
class ChipsScanned:
    """One inventory of every zone of a reader."""

    reader: str
    at: float
    readings: tuple[ZoneReading, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderOnline:
    reader: str
    at: float
    serial: str
    firmware: str
    protocol: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderOffline:
    """The reader is gone (unplugged, silent, refused): its zones are not being read."""

    reader: str
    at: float
    zones: tuple[str, ...]
    reason: str


ReaderEvent = ChipsScanned | ReaderOnline | ReaderOffline


class ChipReader(Protocol):
    """A source of chip readings per zone, alive for an `async with`."""

    @property
    def name(self) -> str: ...

    @property
    def zones(self) -> tuple[str, ...]: ...

    @property
    def online(self) -> bool: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None: ...

    async def next_event(self) -> ReaderEvent:
        """The next event; the caller bounds the wait with `asyncio.timeout`."""
        ...

    def events(self) -> AsyncIterator[ReaderEvent]: ...


# -- the dealer panel --------------------------------------------------------------------------


class PanelCommand(enum.StrEnum):
    """What the dealer asked for; the display's touch buttons send the same names."""

    DEAL = "DEAL"  # NO MORE BETS
    NEXT = "NEXT"
    DOUBLE = "DOUBLE"
    SPLIT = "SPLIT"
    UNDO = "UNDO"
    CONFIRM = "CONFIRM"
    VOID = "VOID"
    SURRENDER = "SURRENDER"  # « abandon » (the amended regulation); an optional button, wired where offered


class Tower(enum.StrEnum):
    """The tower light: one colour at a time."""

    OFF = "off"
    PLAY = "green"  # a round is running
    WAITING = "amber"  # waiting for the dealer (confirm, correct, enter a card)
    ALARM = "red"


@runtime_checkable
class DealerPanel(Protocol):
    """The dealer's buttons and the lamps, tower and buzzer the table drives."""

    async def __aenter__(self) -> DealerPanel: ...

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None: ...

    def commands(self) -> AsyncIterator[PanelCommand]:
        """Commands in the order the dealer gave them; ends when the panel closes."""
        ...

    def show_turn(self, box: int | None) -> None:
        """Light the lamp of `box` (1-based), all others off; None: all off."""

    def set_tower(self, state: Tower) -> None:
        """The tower colour when no alarm is on (an alarm keeps it red until `alarm_off`)."""

    def alarm_on(self) -> None:
        """Tower red and the buzzer pattern."""

    def alarm_off(self) -> None:
        """Buzzer quiet, tower back to the last `set_tower` state."""


# -- the player card readers -------------------------------------------------------------------
# A USB card reader at the table (or at a box) types the number of a rated player's card as a keyboard would
# (docs/protocols/player_card.md). The number leaves the port as read: the runtime turns it into the player's
# pseudonym before anything is journaled (table_runtime/rating/pseudonym.py).


@dataclass(frozen=True, slots=True, kw_only=True)
class CardRead:
    """A card read in full at reader `reader`: the number it carries (never journaled as such)."""

    reader: str
    at: float
    number: str = field(repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class CardUnreadable:
    """A read refused (an unknown key, no ENTER, no number): the player swipes again."""

    reader: str
    at: float
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CardReaderOnline:
    reader: str
    at: float
    device: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CardReaderOffline:
    """The reader is gone (unplugged, never there, not ours to read): no card is read until it is back."""

    reader: str
    at: float
    reason: str


CardReaderEvent = CardRead | CardUnreadable | CardReaderOnline | CardReaderOffline


class PlayerCardReader(Protocol):
    """A player card reader, alive for an `async with`: its reads and its comings and goings, in order."""

    @property
    def name(self) -> str: ...

    @property
    def online(self) -> bool: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None: ...

    def reads(self) -> AsyncIterator[CardReaderEvent]:
        """Every read and every change online/offline until cancelled; looks for a reader gone by itself."""
        ...
