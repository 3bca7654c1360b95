"""The electronic shoe: the real async serial driver of the `CardShoe` port (drivers.ports).

`SerialShoe` owns one shoe on a serial port (docs/protocols/shoe.md). It uses
**pyserial-asyncio-fast**, not pyserial in a thread: the transport registers
the port's file descriptor with the event loop (`add_reader`), so each byte the
shoe writes reaches the decoder in the loop's own callback, with no thread hop,
no polling and no lock; a card is decoded microseconds after it arrives.

Lifetime follows `async with` (aiomqtt-style): entering starts one owned task
that connects, identifies (§6), checks the protocol version and then watches
the link; leaving cancels it and ends `events()`. A lost link or a silent shoe
(no frame for `heartbeat_timeout`) yields `ShoeOffline` and a reconnect with
capped, jittered backoff; the next HELLO re-identifies the shoe and go-back-N
sequencing (§3) makes sure nothing it sent is lost or doubled. The driver does
not acknowledge an event when it arrives: the runtime calls `acknowledge(event)`
once the event is journaled, and `redeliver(event)` when the journal refused it
(§3, "When the host acknowledges"), so an event is never lost between the wire
and the disk. A shoe speaking
another protocol version is refused: `events()` raises `ShoeVersionError`.

This module is the port and the link's lifetime; what the bytes mean (framing,
sequencing, parsing, the ACK and RESEND they call for) is drivers/shoe_receiver.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Self

import serial
import serial_asyncio_fast

from drivers.ports import CardShoe
from drivers.shoe_line import BAUD_RATE, ShoeLine, bytes_waiting, port_of
from drivers.shoe_receiver import Received, ShoeReceiver, ShoeStatistics
from firmware_bridge.errors import DeviceError
from firmware_bridge.shoe import (
    SUPPORTED_VERSIONS,
    BufferGateChanged,
    CardDrawn,
    CutCardReached,
    DoorClosed,
    DoorOpened,
    GateChanged,
    Hello,
    HostCommand,
    Identify,
    Jam,
    JamCleared,
    MissedCards,
    SequencedShoeEvent,
    SetGate,
    ShoeEvent,
    ShoeIdentity,
    ShoeOffline,
    ShoeOnline,
    ShoeShuffled,
    ShoeVersionError,
    UnreadableCard,
    host_frame,
)

__all__ = [
    "BufferGateChanged",
    "CardDrawn",
    "CardShoe",
    "CutCardReached",
    "DoorClosed",
    "DoorOpened",
    "GateChanged",
    "Jam",
    "JamCleared",
    "MissedCards",
    "SerialShoe",
    "ShoeCommandError",
    "ShoeEvent",
    "ShoeIdentity",
    "ShoeOffline",
    "ShoeOnline",
    "ShoeShuffled",
    "ShoeStatistics",
    "ShoeVersionError",
    "UnreadableCard",
    "port_of",
]



_OPEN = object()


class ShoeCommandError(DeviceError, TimeoutError):
    """A command to the shoe (lock or unlock the gate) was not confirmed: the shoe is offline or silent."""


class _LinkDown(Exception):
    """The session ended; `reason` says why (becomes ShoeOffline.reason)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SerialShoe:
    """One electronic shoe on a serial port: connection, identify, sequencing, offline and reconnect."""

    def __init__(
        self,
        url: str,
        *,
        heartbeat_timeout: float = 2.0,
        identify_timeout: float = 2.0,
        identify_interval: float = 0.25,
        backoff_initial: float = 0.05,
        backoff_max: float = 2.0,
        command_timeout: float = 2.0,
        supported_versions: tuple[int, ...] = SUPPORTED_VERSIONS,
        jitter: random.Random | None = None,
    ) -> None:
        self.url = url
        self.port = port_of(url)
        self.heartbeat_timeout = heartbeat_timeout
        self.identify_timeout = identify_timeout
        self.identify_interval = identify_interval
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.command_timeout = command_timeout
        self.supported_versions = supported_versions
        self._receiver = ShoeReceiver(self.port, supported_versions)
        self.statistics = self._receiver.statistics
        self._jitter = jitter or random.Random()
        self._queue: asyncio.Queue[ShoeEvent | BaseException | None] = asyncio.Queue()
        self._final: BaseException | object | None = _OPEN  # the queue's last word: an error or None (closed)
        self._task: asyncio.Task[None] | None = None
        self._transport: asyncio.Transport | None = None
        self._hello: asyncio.Future[Hello] | None = None
        self._watchdog: asyncio.Timeout | None = None
        self._online = False
        self._identity: ShoeIdentity | None = None
        self._gate_locked: bool | None = None
        self._gate_seen = asyncio.Event()
        self._host_sequence = 0

    # -- the seam ------------------------------------------------------------------------

    @property
    def online(self) -> bool:
        return self._online

    @property
    def identity(self) -> ShoeIdentity | None:
        return self._identity

    @property
    def gate_locked(self) -> bool | None:
        """The card gate as the shoe last reported it; None before it said."""
        return self._gate_locked

    async def __aenter__(self) -> Self:
        self._task = asyncio.create_task(self._run(), name=f"shoe {self.port}")
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._close_transport()
        self._online = False
        self._queue.put_nowait(None)

    async def events(self) -> AsyncIterator[ShoeEvent]:
        while (event := await self._next_item()) is not None:
            yield event

    async def next_event(self) -> ShoeEvent:
        """The next event (tests and simple callers); raises like events(), DeviceError once closed."""
        event = await self._next_item()
        if event is None:
            raise DeviceError(f"shoe on {self.port} is closed")
        return event

    async def _next_item(self) -> ShoeEvent | None:
        # Once the driver failed or closed, every later call says so at once instead of hanging.
        if self._queue.empty() and self._final is not _OPEN:
            if isinstance(self._final, BaseException):
                raise self._final
            return None
        item = await self._queue.get()
        if item is None or isinstance(item, BaseException):
            self._final = item
            if item is not None:
                raise item
        return item

    def acknowledge(self, event: SequencedShoeEvent) -> None:
        """The table journaled `event` (durably): ACK it, so the shoe forgets it and every event before it."""
        ack = self._receiver.acknowledge(event)
        if ack is not None:
            self._send(ack)

    def redeliver(self, event: SequencedShoeEvent) -> None:
        """The table could not journal `event`: it and the events queued after it are dropped and come again
        with the shoe's resend (it resends what is not acknowledged, §3), so nothing is lost."""
        taken_back = self._receiver.rewind(event)
        if not taken_back:
            return
        kept: list[ShoeEvent | BaseException | None] = []
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if not any(item is event for event in taken_back):
                kept.append(item)
        for item in kept:
            self._queue.put_nowait(item)

    async def lock_gate(self) -> None:
        await self._set_gate(True)

    async def unlock_gate(self) -> None:
        await self._set_gate(False)

    # -- connection loop -----------------------------------------------------------------

    async def _run(self) -> None:
        try:
            await self._connect_forever()
        except Exception as error:  # a bug or a bad port name: hand it to the consumer instead of hanging it
            self._online = False
            self._queue.put_nowait(error)

    async def _connect_forever(self) -> None:
        delay = self.backoff_initial
        reported_offline = False
        while True:
            try:
                await self._session()
                reason = "link closed"
            except _LinkDown as down:
                reason = down.reason
            except ShoeVersionError as refused:
                self._queue.put_nowait(refused)
                return
            except (OSError, serial.SerialException) as error:
                reason = f"cannot open {self.port}: {error}"
            finally:
                self._close_transport()
            if self._online:
                # It was up: report the loss at once and restart the backoff.
                self._online = False
                delay = self.backoff_initial
                self._queue.put_nowait(ShoeOffline(reason=reason, device=self.port))
            elif not reported_offline:
                self._queue.put_nowait(ShoeOffline(reason=reason, device=self.port))
            reported_offline = True
            await asyncio.sleep(delay * (0.5 + self._jitter.random()))
            delay = min(self.backoff_max, delay * 2)

    async def _session(self) -> None:
        loop = asyncio.get_running_loop()
        self._receiver.reset()
        link = ShoeLine(self._on_bytes)
        transport, _ = await serial_asyncio_fast.create_serial_connection(
            loop, lambda: link, self.port, baudrate=BAUD_RATE
        )
        self._transport = transport
        self.statistics.connections += 1
        hello = await self._identify()
        version = hello.protocol_version
        if version not in self.supported_versions:
            raise ShoeVersionError(version, self.supported_versions, self.port)
        self._identity = ShoeIdentity(
            protocol_version=version,
            firmware_version=hello.firmware_version,
            serial_number=hello.serial_number,
            boot_id=hello.boot_id,
        )
        since = self._receiver.identify(hello)
        self._online = True
        self._queue.put_nowait(
            ShoeOnline(identity=self._identity, shoe_id=hello.shoe_id, cards_drawn=hello.cards_drawn, device=self.port)
        )
        self._act_on(since)
        while True:
            try:
                async with asyncio.timeout(self.heartbeat_timeout) as watchdog:
                    self._watchdog = watchdog
                    error = await link.lost
                break
            except TimeoutError:
                if not bytes_waiting(self._transport):
                    raise _LinkDown(f"no heartbeat for {self.heartbeat_timeout:g} s") from None
                # The host stalled (the process stopped, a swap storm), not the shoe: its frames wait on the port
                # and the overdue watchdog fired before the loop read them. Read them, then judge again.
                await asyncio.sleep(0)
            finally:
                self._watchdog = None
        raise _LinkDown(f"device disconnected: {error}" if error else "device disconnected")

    async def _identify(self) -> Hello:
        """Send IDENTIFY until HELLO comes back (§6 step 1)."""
        self._hello = asyncio.get_running_loop().create_future()
        try:
            async with asyncio.timeout(self.identify_timeout):
                while True:
                    self._send(Identify())
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self.identify_interval):
                            return await asyncio.shield(self._hello)
        except TimeoutError:
            raise _LinkDown(f"no answer to IDENTIFY within {self.identify_timeout:g} s") from None
        finally:
            self._hello = None

    def _close_transport(self) -> None:
        transport, self._transport = self._transport, None
        if transport is not None and not transport.is_closing():
            transport.abort()  # not close(): flushing a vanished pty can block

    # -- bytes in ------------------------------------------------------------------------

    def _on_bytes(self, data: bytes) -> None:
        received = self._receiver.feed(data, awaiting_hello=self._hello is not None and not self._hello.done())
        if received.frames and self._watchdog is not None:
            self._watchdog.reschedule(asyncio.get_running_loop().time() + self.heartbeat_timeout)
        if received.hello is not None and self._hello is not None and not self._hello.done():
            if isinstance(received.hello, ShoeVersionError):
                self._hello.set_exception(received.hello)
            else:
                self._hello.set_result(received.hello)
        self._act_on(received)

    def _act_on(self, received: Received) -> None:
        if received.gate_locked is not None:
            self._set_gate_state(received.gate_locked)
        for event in received.events:
            self._queue.put_nowait(event)
        for command in received.commands:
            self._send(command)

    # -- commands out --------------------------------------------------------------------

    def _send(self, command: HostCommand) -> None:
        if self._transport is None or self._transport.is_closing():
            return
        self._host_sequence = (self._host_sequence + 1) % 65536
        self._transport.write(host_frame(command, self._host_sequence).to_bytes())

    def _set_gate_state(self, locked: bool) -> None:
        self._gate_locked = locked
        self._gate_seen.set()

    async def _set_gate(self, locked: bool) -> None:
        action = "lock" if locked else "unlock"
        try:
            async with asyncio.timeout(self.command_timeout):
                while self._gate_locked is not locked:
                    self._gate_seen.clear()
                    self._send(SetGate(locked))
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self.identify_interval):
                            await self._gate_seen.wait()
        except TimeoutError:
            state = "online" if self._online else "offline"
            raise ShoeCommandError(
                f"shoe on {self.port} did not confirm '{action} gate' within {self.command_timeout:g} s ({state})"
            ) from None
