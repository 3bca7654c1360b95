"""The host's side of sequencing (docs/protocols/shoe.md §3, §6): pure go-back-N bookkeeping.

`Sequencer` is told about HELLO, HEARTBEAT and every sequenced frame and answers
with a `Decision`: deliver the event or not, what to acknowledge, whether to
ask for a resend, and whether events were lost for good (`MissedCards`).
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.shoe.events import MissedCards
from firmware_bridge.shoe.framing import SEQUENCE_MODULUS, Frame
from firmware_bridge.shoe.messages import Hello

_HALF = SEQUENCE_MODULUS // 2


def sequence_distance(later: int, earlier: int) -> int:
    """How far `later` is ahead of `earlier`, modulo 65536, as -32768..32767."""
    difference = (later - earlier) % SEQUENCE_MODULUS
    return difference - SEQUENCE_MODULUS if difference >= _HALF else difference


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """What the host does about one frame, HELLO or heartbeat."""

    deliver: bool = False
    acknowledge: int | None = None  # send ACK(acknowledge)
    resend_from: int | None = None  # send RESEND(resend_from)
    missed: MissedCards | None = None  # raise this alarm before delivering


class Sequencer:
    """Which shoe events were seen: expected sequence number per shoe boot, duplicates and gaps counted."""

    def __init__(self) -> None:
        self.boot_id: int | None = None
        self.expected: int | None = None
        self.duplicates = 0
        self.out_of_order = 0
        self.missed = 0
        self._resend_asked_at: int | None = None

    @property
    def last_delivered(self) -> int | None:
        return None if self.expected is None else (self.expected - 1) % SEQUENCE_MODULUS

    def on_hello(self, hello: Hello) -> Decision:
        """The shoe (re)identified itself: keep or restart the count (§6 step 3)."""
        self._resend_asked_at = None
        missed: MissedCards | None = None
        if hello.boot_id != self.boot_id or self.expected is None:
            # First contact or the shoe rebooted: take everything it still holds.
            self.boot_id = hello.boot_id
            self.expected = hello.oldest_held
        else:
            lost = sequence_distance(hello.oldest_held, self.expected)
            if lost > 0:
                missed = self._lose(lost)
        return Decision(missed=missed, resend_from=self._ask_if_behind(hello.next_sequence, force=True))

    def on_heartbeat(self, next_sequence: int) -> Decision:
        """A heartbeat names the next sequence number: ask again for anything missing."""
        return Decision(resend_from=self._ask_if_behind(next_sequence, force=True))

    def on_frame(self, frame: Frame) -> Decision:
        """A sequenced frame arrived with a good CRC (§3)."""
        if self.expected is None:
            return Decision()  # before HELLO nothing can be placed; the shoe will resend
        distance = sequence_distance(frame.sequence, self.expected)
        if distance == 0:
            return self._accept(frame.sequence)
        if distance < 0:
            self.duplicates += 1
            return Decision(acknowledge=self.last_delivered)
        if frame.is_retransmit:
            # The shoe resent from the oldest it holds and that is past what we miss.
            missed = self._lose(distance)
            accepted = self._accept(frame.sequence)
            return Decision(deliver=True, acknowledge=accepted.acknowledge, missed=missed)
        self.out_of_order += 1
        return Decision(resend_from=self._ask_if_behind(frame.sequence + 1, force=False))

    def _accept(self, sequence: int) -> Decision:
        self.expected = (sequence + 1) % SEQUENCE_MODULUS
        self._resend_asked_at = None
        return Decision(deliver=True, acknowledge=sequence)

    def _lose(self, count: int) -> MissedCards:
        assert self.expected is not None
        first = self.expected
        self.expected = (self.expected + count) % SEQUENCE_MODULUS
        self.missed += count
        self._resend_asked_at = None
        return MissedCards(first_sequence=first, count=count)

    def _ask_if_behind(self, next_sequence: int, *, force: bool) -> int | None:
        if self.expected is None or sequence_distance(next_sequence, self.expected) <= 0:
            return None
        if not force and self._resend_asked_at == self.expected:
            return None  # once per gap; heartbeats ask again
        self._resend_asked_at = self.expected
        return self.expected
