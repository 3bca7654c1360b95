"""The simulated shoe's firmware state (docs/protocols/shoe.md §3, §4): no I/O, no clock.

`ShoeFirmware` owns the cards in the shoe, the door, gate and jam states, the
event sequence numbers and the retransmit buffer. A version-2 firmware locks its
card gate while the buffer is full (§3, "A full buffer locks the gate"): no card
leaves that it could not resend, and BUFFER_GATE tells the host. Every action
returns the frames the firmware would put on the wire;
`simulators.shoe.SimulatedShoe` writes them to a pty and adds timers and faults.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from firmware_bridge.shoe import (
    PROTOCOL_VERSION,
    Ack,
    BufferGateChanged,
    CardDrawn,
    CutCardReached,
    DoorClosed,
    DoorOpened,
    Frame,
    GateChanged,
    Heartbeat,
    Hello,
    HostCommand,
    Identify,
    Jam,
    JamCleared,
    Resend,
    SequencedShoeEvent,
    SetGate,
    ShoeShuffled,
    ShoeStatus,
    UnreadableCard,
    sequence_distance,
    shoe_frame,
)
from table_runtime.errors import DeviceError
from table_runtime.game.cards import SUITS, Card, new_shoe

DECKS = 6
CUT_CARDS_BEHIND = 52  # about one deck stays behind the cut card
RETRANSMIT_BUFFER = 256
# §3: the gate locks when fewer than GATE_RESERVE slots are free (kept for what can still come while it is locked:
# a card's CUT_CARD_REACHED, the door, a jam, the host's gate) and unlocks once GATE_UNLOCK_FREE are free again
# (acknowledgements freed room; the margin keeps the gate from flapping at the edge).
GATE_RESERVE = 8
GATE_UNLOCK_FREE = 2 * GATE_RESERVE
BUFFER_GATE_SINCE = 2  # the protocol version that added the rule
SEQUENCE_MODULUS = 1 << 16


class SimulatedShoeError(DeviceError):
    """The simulated dealer did something the physical shoe would not allow."""


class ShoeEmptyError(SimulatedShoeError, LookupError):
    """No card left in the shoe."""


class GateLockedError(SimulatedShoeError, PermissionError):
    """The card gate is locked: no card can leave until the host unlocks it, or acknowledges enough events to
    free room in the resend buffer (the message says which)."""


def shuffled_shoe(seed: int, shoe_number: int, decks: int = DECKS) -> list[Card]:
    """The cards of shoe `shoe_number` of `seed`, in draw order: the same on every run and machine."""
    cards = new_shoe(decks)
    random.Random(f"shoe:{seed}:{shoe_number}").shuffle(cards)
    return cards


def raw_code(card: Card) -> int:
    """The simulated reader's raw code: suit 1..4 in the high nibble, rank 1..13 in the low."""
    return ((SUITS.index(card.suit) + 1) << 4) | ("A23456789TJQK".index(card.rank) + 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class FirmwareIdentity:
    """What the firmware says in HELLO."""

    serial_number: str = "SIM-SHOE-0001"
    firmware_version: str = "sim-1.0"
    protocol_version: int = PROTOCOL_VERSION


class ShoeFirmware:
    """One boot of the shoe firmware: its cards, states, sequence numbers and unacknowledged events."""

    def __init__(
        self,
        *,
        seed: int = 0,
        shoe_number: int = 1,
        cards_already_drawn: int = 0,
        stack: Sequence[Card] | None = None,
        decks: int = DECKS,
        cut_cards_behind: int = CUT_CARDS_BEHIND,
        identity: FirmwareIdentity | None = None,
        boot_id: int = 1,
        buffer_size: int = RETRANSMIT_BUFFER,
    ) -> None:
        self.seed = seed
        self.decks = decks
        self.cut_cards_behind = cut_cards_behind
        self.identity = identity or FirmwareIdentity()
        self.boot_id = boot_id
        self.next_sequence = 0
        self.door_open = False
        self.gate_locked = False
        self.jammed = False
        self.sent_events: list[SequencedShoeEvent] = []
        self._held: deque[SequencedShoeEvent] = deque(maxlen=buffer_size)
        self.buffer_gate = self.identity.protocol_version >= BUFFER_GATE_SINCE  # a version-1 shoe overflows
        if self.buffer_gate and buffer_size < GATE_UNLOCK_FREE:
            raise ValueError(f"buffer_size={buffer_size}: a version-2 shoe's buffer holds at least "
                             f"{GATE_UNLOCK_FREE} events (its gate locks with {GATE_RESERVE} free)")
        self.buffer_locked = False  # the gate locked because the buffer is full
        self.shoe_number = shoe_number
        self.stacked = stack is not None
        self._cards: list[Card] = list(stack) if stack is not None else shuffled_shoe(seed, shoe_number, decks)
        if not 0 <= cards_already_drawn <= len(self._cards):
            raise ValueError(f"cards_already_drawn={cards_already_drawn} but the shoe holds {len(self._cards)}")
        self.cards_drawn = cards_already_drawn

    # -- the shoe as the dealer sees it ------------------------------------------------

    @property
    def shoe_id(self) -> int:
        return self.shoe_number

    @property
    def cards_left(self) -> int:
        return len(self._cards) - self.cards_drawn

    @property
    def cut_position(self) -> int:
        """Cards that leave before the cut card; 0 when the shoe is too short to hold one."""
        return max(0, len(self._cards) - self.cut_cards_behind)

    @property
    def remaining(self) -> tuple[Card, ...]:
        return tuple(self._cards[self.cards_drawn :])

    def announce(self) -> list[Frame]:
        """Report the current shoe as loaded (a new shoe, or the first boot of one)."""
        return self._with_buffer_gate([
            self._emit(
                ShoeShuffled(
                    sequence=self.next_sequence,
                    shoe_id=self.shoe_id,
                    decks=self.decks if not self.stacked else 0,
                    cards=len(self._cards),
                    cut_position=self.cut_position,
                    stacked=self.stacked,
                )
            )
        ])

    def draw(self, *, unreadable: bool = False) -> tuple[Card, list[Frame]]:
        """The dealer pulls the next card: the card, and the frames that report it."""
        if self.gate_locked:
            raise GateLockedError("the card gate is locked by the host")
        if self.buffer_locked:
            raise GateLockedError(f"the card gate is locked: the resend buffer is full ({self.unacknowledged} of "
                                  f"{self.capacity} events unacknowledged); it unlocks when the host acknowledges")
        if self.cards_left == 0:
            raise ShoeEmptyError(f"shoe {self.shoe_id} is empty after {self.cards_drawn} cards")
        card = self._cards[self.cards_drawn]
        self.cards_drawn += 1
        number = self.cards_drawn
        if unreadable:
            frames = [self._emit(UnreadableCard(sequence=self.next_sequence, card_number=number))]
        else:
            event = CardDrawn(sequence=self.next_sequence, code=card.code, card_number=number, raw_code=raw_code(card))
            frames = [self._emit(event)]
        if number == self.cut_position:
            cut = CutCardReached(sequence=self.next_sequence, shoe_id=self.shoe_id, card_number=number)
            frames.append(self._emit(cut))
        return card, frames + self._buffer_gate_changes()

    def shuffle(self) -> list[Frame]:
        """The next seeded shoe: shuffled from (seed, shoe_number + 1)."""
        self.shoe_number += 1
        self.stacked = False
        self._cards = shuffled_shoe(self.seed, self.shoe_number, self.decks)
        self.cards_drawn = 0
        return self.announce()

    def load_stack(self, cards: Sequence[Card]) -> list[Frame]:
        """A prearranged shoe: `cards` come out in this order."""
        if not cards:
            raise ValueError("a stacked shoe needs at least one card")
        self.shoe_number += 1
        self.stacked = True
        self._cards = list(cards)
        self.cards_drawn = 0
        return self.announce()

    def set_door(self, is_open: bool) -> list[Frame]:
        if is_open == self.door_open:
            return []
        self.door_open = is_open
        event = DoorOpened if is_open else DoorClosed
        return self._with_buffer_gate([self._emit(event(sequence=self.next_sequence))])

    def set_jam(self, jammed: bool) -> list[Frame]:
        if jammed == self.jammed:
            return []
        self.jammed = jammed
        event = Jam if jammed else JamCleared
        return self._with_buffer_gate([self._emit(event(sequence=self.next_sequence))])

    # -- the link ----------------------------------------------------------------------

    @property
    def oldest_held(self) -> int:
        return self._held[0].sequence if self._held else self.next_sequence

    @property
    def unacknowledged(self) -> int:
        return len(self._held)

    @property
    def capacity(self) -> int:
        """How many events the resend buffer holds."""
        return self._held.maxlen or 0

    def buffer_gate_status(self) -> list[Frame]:
        """BUFFER_GATE as it stands (sent after every heartbeat, §3); nothing from a version-1 shoe."""
        if not self.buffer_gate:
            return []
        return [shoe_frame(BufferGateChanged(locked=self.buffer_locked, held=self.unacknowledged,
                                             capacity=self.capacity))]

    def _buffer_gate_changes(self) -> list[Frame]:
        """Lock the gate when fewer than GATE_RESERVE slots are free, unlock once GATE_UNLOCK_FREE are: the
        BUFFER_GATE that says so, if the state changed."""
        free = self.capacity - self.unacknowledged
        locked = free < GATE_RESERVE if not self.buffer_locked else free < GATE_UNLOCK_FREE
        if not self.buffer_gate or locked == self.buffer_locked:
            return []
        self.buffer_locked = locked
        return self.buffer_gate_status()

    def _with_buffer_gate(self, frames: list[Frame]) -> list[Frame]:
        return frames + self._buffer_gate_changes()

    def hello(self) -> Frame:
        return shoe_frame(
            Hello(
                protocol_version=self.identity.protocol_version,
                boot_id=self.boot_id,
                next_sequence=self.next_sequence,
                oldest_held=self.oldest_held,
                shoe_id=self.shoe_id,
                cards_drawn=self.cards_drawn,
                firmware_version=self.identity.firmware_version,
                serial_number=self.identity.serial_number,
            )
        )

    def heartbeat(self) -> Frame:
        status = (
            (ShoeStatus.DOOR_OPEN if self.door_open else 0)
            | (ShoeStatus.GATE_LOCKED if self.gate_locked else 0)
            | (ShoeStatus.JAMMED if self.jammed else 0)
            | (ShoeStatus.BUFFER_FULL if self.buffer_locked else 0)
        )
        return shoe_frame(Heartbeat(next_sequence=self.next_sequence, status=status, cards_drawn=self.cards_drawn))

    def handle(self, command: HostCommand) -> list[Frame]:
        """A command from the host (§5): the frames the firmware answers with."""
        match command:
            case Identify():
                return [self.hello()]
            case Ack(sequence=acked):
                while self._held and sequence_distance(acked, self._held[0].sequence) >= 0:
                    self._held.popleft()
                return self._buffer_gate_changes()
            case Resend(from_sequence=start):
                return self.resend(start)
            case SetGate(locked=locked):
                if locked == self.gate_locked:
                    return []
                self.gate_locked = locked
                return self._with_buffer_gate([self._emit(GateChanged(sequence=self.next_sequence, locked=locked))])
        return []

    def resend(self, start: int | None = None) -> list[Frame]:
        """Every held event from `start` (default: the oldest) on, flagged RETRANSMIT (§3)."""
        return [
            shoe_frame(event, retransmit=True)
            for event in self._held
            if start is None or sequence_distance(event.sequence, start) >= 0
        ]

    def forget(self, sequence: int) -> None:
        """Drop one event from the retransmit buffer, as if it had overflowed (for the LOSE fault)."""
        self._held = deque((e for e in self._held if e.sequence != sequence), maxlen=self._held.maxlen)

    def _emit(self, event: SequencedShoeEvent) -> Frame:
        self.next_sequence = (self.next_sequence + 1) % SEQUENCE_MODULUS
        self._held.append(event)
        self.sent_events.append(event)
        return shoe_frame(event)
