"""Bytes from the shoe into its events, in order and once: framing, go-back-N sequencing, parsing.

The receiving half of the shoe driver (docs/protocols/shoe.md §2-§4, §6), with
no transport, no loop and no clock: `ShoeReceiver.feed(data)` takes the bytes
the serial port gave and returns a `Received`: the events to deliver (a
`MissedCards` before what follows a gap), the commands the host must answer
with (RESEND at once; ACK again for a duplicate, up to what the table has
acknowledged), a HELLO when one is awaited, the gate state the shoe reported.
A shoe whose resend buffer filled locks its gate and says so in BUFFER_GATE,
which it repeats with every heartbeat (§3, version 2): each change of that
state is one `BufferGateChanged` event, delivered at once (not sequenced, not
acknowledged: it must reach the table while the events before it cannot).
`drivers.shoe.SerialShoe` owns the port, the identify handshake and the
reconnects around it.

A delivered event is not acknowledged to the shoe on delivery: the table
acknowledges it (`acknowledge`) once its journal transaction is durable, so
the shoe keeps the event, and resends it, until then (§3, "When the host
acknowledges"). An event the table could not journal is handed back
(`rewind`) and held here, with every event after it, until the shoe resends
it (the shoe's own pace, 500 ms): then they are delivered again, in order. The
sequencer is not moved back, so a resend racing the hand-back is never taken
for a loss.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from firmware_bridge.shoe import (
    Ack,
    BufferGateChanged,
    Decision,
    Frame,
    FrameDecoder,
    GateChanged,
    Heartbeat,
    Hello,
    HostCommand,
    MalformedMessageError,
    MessageType,
    MissedCards,
    Resend,
    SequencedShoeEvent,
    Sequencer,
    ShoeEvent,
    ShoeStatus,
    ShoeVersionError,
    parse_shoe_frame,
)
from firmware_bridge.shoe.messages import protocol_version_of

__all__ = ["Received", "ShoeReceiver", "ShoeStatistics"]


@dataclass(slots=True)
class ShoeStatistics:
    """Counters since the driver started, for diagnosis and the bench."""

    connections: int = 0
    bytes_received: int = 0
    bytes_skipped: int = 0
    malformed_messages: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    missed: int = 0


@dataclass(slots=True)
class Received:
    """What one chunk of bytes gave, in the order it must be acted on."""

    frames: int = 0  # whole frames decoded (any frame proves the shoe alive)
    events: list[ShoeEvent] = field(default_factory=list)
    commands: list[HostCommand] = field(default_factory=list)
    hello: Hello | ShoeVersionError | None = None  # only while `feed(..., awaiting_hello=True)`
    gate_locked: bool | None = None  # the last gate state the shoe reported in the chunk


class ShoeReceiver:
    """One shoe's receive state across reconnects: the frame decoder, the sequencer, the counters."""

    def __init__(self, device: str, supported_versions: tuple[int, ...]) -> None:
        self.device = device
        self.supported_versions = supported_versions
        self.statistics = ShoeStatistics()
        self.identified = False
        self._sequencer = Sequencer()
        self._decoder = FrameDecoder()
        self.acknowledged: int | None = None  # the last sequence the table acknowledged (this boot of the shoe)
        self._unacknowledged: deque[SequencedShoeEvent] = deque()  # delivered, in order, not yet acknowledged
        self._taken_back: list[SequencedShoeEvent] = []  # handed back by the table, held until the shoe resends
        self.buffer_locked = False  # the gate as the shoe last said in BUFFER_GATE (§3): locked, its buffer full

    def reset(self) -> None:
        """A new connection: half a frame from before is dropped, nothing is placed before the next HELLO."""
        self._decoder.reset()
        self.identified = False

    def identify(self, hello: Hello) -> Received:
        """The shoe identified itself (§6): its frames are placed from now on; the gap since, if any, is said."""
        received = Received()
        if hello.boot_id != self._sequencer.boot_id:  # another boot: its sequence numbers are not ours
            self.acknowledged = None
            self._unacknowledged.clear()
            self._taken_back.clear()
        self._apply(self._sequencer.on_hello(hello), received)
        self.identified = True
        return received

    def feed(self, data: bytes, *, awaiting_hello: bool = False) -> Received:
        self.statistics.bytes_received += len(data)
        skipped = self._decoder.bytes_skipped
        frames = self._decoder.feed(data)
        self.statistics.bytes_skipped += self._decoder.bytes_skipped - skipped
        received = Received(frames=len(frames))
        acknowledge: int | None = None
        for frame in frames:
            if frame.message_type == MessageType.HELLO:
                if awaiting_hello and received.hello is None:
                    received.hello = self._hello(frame)
            elif not self.identified:
                continue  # nothing is placed before HELLO; the shoe resends
            elif frame.is_sequenced:
                decision = self._sequencer.on_frame(frame)
                self._count()
                if decision.missed is not None:
                    received.events.append(decision.missed)
                if decision.deliver:
                    self._deliver(frame, received)
                elif decision.acknowledge is not None:
                    self._resent(frame, received)
                    if self.acknowledged is not None:
                        acknowledge = self.acknowledged  # a duplicate: say again what the table kept, no more
                if decision.resend_from is not None:
                    received.commands.append(Resend(decision.resend_from))
            elif frame.message_type == MessageType.HEARTBEAT:
                self._heartbeat(frame, received)
            elif frame.message_type == MessageType.BUFFER_GATE:
                self._buffer_gate(frame, received)
        if acknowledge is not None:
            received.commands.append(Ack(acknowledge))  # cumulative: one per chunk is enough
        return received

    def acknowledge(self, event: SequencedShoeEvent) -> Ack | None:
        """The table kept `event` (journaled, durable): the ACK that lets the shoe forget it and all before it.
        None for an event this receiver did not deliver in the shoe's current boot (nothing to acknowledge)."""
        index = self._index_of(event)
        if index is None:
            return None
        for _ in range(index + 1):
            self._unacknowledged.popleft()
        self.acknowledged = event.sequence
        return Ack(event.sequence)

    def rewind(self, event: SequencedShoeEvent) -> list[SequencedShoeEvent]:
        """The table could not keep `event`: it and the events delivered after it are taken back (returned) and
        held, with whatever arrives meanwhile, until the shoe resends `event`; then they are delivered again.
        Nothing when `event` is not awaiting its ACK."""
        index = self._index_of(event)
        if index is None:
            return []
        taken_back = list(self._unacknowledged)[index:]
        for _ in taken_back:
            self._unacknowledged.pop()
        self._taken_back = taken_back + self._taken_back
        return taken_back

    def _resent(self, frame: Frame, received: Received) -> None:
        """A duplicate: if it is the shoe's resend of the first event taken back, deliver the held events again."""
        if self._taken_back and frame.sequence == self._taken_back[0].sequence:
            received.events.extend(self._taken_back)
            self._unacknowledged.extend(self._taken_back)
            self._taken_back = []

    def _index_of(self, event: SequencedShoeEvent) -> int | None:
        # By identity: an equal event of another boot of the shoe is not this one.
        return next((index for index, held in enumerate(self._unacknowledged) if held is event), None)

    def _hello(self, frame: Frame) -> Hello | ShoeVersionError | None:
        version = protocol_version_of(frame)
        if version is not None and version not in self.supported_versions:
            # §6: nothing else is trusted before the version check.
            return ShoeVersionError(version, self.supported_versions, self.device)
        try:
            message = parse_shoe_frame(frame)
        except MalformedMessageError:
            self.statistics.malformed_messages += 1
            return None
        return message if isinstance(message, Hello) else None

    def _heartbeat(self, frame: Frame, received: Received) -> None:
        try:
            message = parse_shoe_frame(frame)
        except MalformedMessageError:
            self.statistics.malformed_messages += 1
            return
        if isinstance(message, Heartbeat):
            received.gate_locked = bool(message.status & ShoeStatus.GATE_LOCKED)
            self._apply(self._sequencer.on_heartbeat(message.next_sequence), received)

    def _buffer_gate(self, frame: Frame, received: Received) -> None:
        """BUFFER_GATE (§3): an event when the state differs from the last one said (the shoe repeats it)."""
        try:
            message = parse_shoe_frame(frame)
        except MalformedMessageError:
            self.statistics.malformed_messages += 1
            return
        if isinstance(message, BufferGateChanged) and message.locked != self.buffer_locked:
            self.buffer_locked = message.locked
            received.events.append(message)

    def _deliver(self, frame: Frame, received: Received) -> None:
        try:
            event = parse_shoe_frame(frame)
        except MalformedMessageError:
            # The sequence number is accounted for; the event is lost and said so.
            self.statistics.malformed_messages += 1
            received.events.append(MissedCards(first_sequence=frame.sequence, count=1))
            return
        if isinstance(event, ShoeEvent):
            if isinstance(event, GateChanged):
                received.gate_locked = event.locked
            if self._taken_back and isinstance(event, SequencedShoeEvent):
                self._taken_back.append(event)  # behind the events taken back: in order or not at all
                return
            if isinstance(event, SequencedShoeEvent):
                self._unacknowledged.append(event)
            received.events.append(event)

    def _apply(self, decision: Decision, received: Received) -> None:
        if decision.missed is not None:
            received.events.append(decision.missed)
        if decision.resend_from is not None:
            received.commands.append(Resend(decision.resend_from))

    def _count(self) -> None:
        self.statistics.duplicates = self._sequencer.duplicates
        self.statistics.out_of_order = self._sequencer.out_of_order
        self.statistics.missed = self._sequencer.missed
