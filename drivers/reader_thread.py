"""A chip reader polled on a background thread: the lifecycle both chip reader drivers share.

`ReaderThread` owns what a `ChipReader` (drivers.ports) driven by blocking transfers needs around its
transport: the thread started by `async with` and joined on the way out, the asyncio queue the thread's events
reach through `loop.call_soon_threadsafe`, the online state and its `ReaderOnline`/`ReaderOffline` events (each
said once per change), and the loop that connects, scans every `scan_interval`, and on a failed line disconnects
and tries again every `reconnect_interval`. A driver (drivers/chip_reader.py: USB, drivers/feig_reader.py: FEIG
ISO-Host) subclasses it and gives only its transport: `_connect`, `_scan`, `_disconnect`, the errors that mean
the line failed and the error that only skips one scan.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import ClassVar, Generic, Protocol, Self, TypeVar

from drivers.ports import ChipsScanned, ReaderEvent, ReaderOffline, ReaderOnline

__all__ = ["ReaderThread", "ThreadSettings"]

class ThreadSettings(Protocol):
    """What the thread reads of a reader's settings."""

    @property
    def name(self) -> str: ...

    @property
    def zones(self) -> tuple[str, ...]: ...

    @property
    def scan_interval(self) -> float: ...

    @property
    def reconnect_interval(self) -> float: ...


SettingsT = TypeVar("SettingsT", bound=ThreadSettings)


class ReaderThread(ABC, Generic[SettingsT]):
    """A `ChipReader` whose transfers run on a thread: the thread, the queue, the online state, the retry loop."""

    thread_suffix: ClassVar[str]  # the thread's name is "<reader name>-<suffix>"
    line_errors: ClassVar[tuple[type[Exception], ...]]  # the line failed: offline, connect again
    skip_error: ClassVar[type[Exception]]  # a passing refusal: skip this scan, try the next

    def __init__(self, config: SettingsT, *, clock: Callable[[], float]) -> None:
        self.config = config
        self._clock = clock
        self._queue: asyncio.Queue[ReaderEvent] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._online: bool | None = None  # None: nothing reported yet

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def zones(self) -> tuple[str, ...]:
        return self.config.zones

    @property
    def online(self) -> bool:
        return bool(self._online)

    @property
    def join_timeout(self) -> float:
        """Seconds `__aexit__` waits for the thread: longer than the longest transfer it may be in."""
        return 5.0

    async def __aenter__(self) -> Self:
        self._loop = asyncio.get_running_loop()
        self._queue = asyncio.Queue()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"{self.name}-{self.thread_suffix}", daemon=True)
        self._thread.start()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, self.join_timeout)
            self._thread = None

    async def next_event(self) -> ReaderEvent:
        if self._queue is None:
            raise RuntimeError("use the reader inside `async with`")
        return await self._queue.get()

    async def events(self) -> AsyncIterator[ReaderEvent]:
        while True:
            yield await self.next_event()

    # -- the transport, given by each driver -----------------------------------------------------
    @abstractmethod
    def _connect(self) -> None:
        """Open the line and greet the reader (calling `_came_online`); raise on failure."""

    @abstractmethod
    def _scan(self) -> ChipsScanned:
        """One scan of every antenna."""

    @abstractmethod
    def _disconnect(self) -> None:
        """Close the line if it is open (called again when it is closed already)."""

    def _skipped(self, error: Exception) -> None:
        """A scan skipped on a passing refusal (`skip_error`); a driver may say so."""

    # -- the thread ------------------------------------------------------------------------------
    def _emit(self, event: ReaderEvent) -> None:
        assert self._loop is not None and self._queue is not None
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, event)
        except RuntimeError:  # the loop closed under us: nobody is listening any more
            self._stop.set()

    def _run(self) -> None:
        connected = False
        while not self._stop.is_set():
            if not connected:
                try:
                    self._connect()
                except self.line_errors as error:
                    self._disconnect()
                    self._went_offline(str(error))
                    self._stop.wait(self.config.reconnect_interval)
                    continue
                except Exception as error:  # a bug or a library surprise: said and retried, never a silent end
                    self._disconnect()
                    self._unexpected(error)
                    continue
                connected = True
            started = self._clock()
            try:
                event = self._scan()
            except self.skip_error as error:
                self._skipped(error)
                self._stop.wait(self.config.scan_interval)
                continue
            except self.line_errors as error:
                self._disconnect()
                connected = False
                self._went_offline(str(error))
                continue
            except Exception as error:  # a bug or a library surprise: said and retried, never a silent end
                self._disconnect()
                connected = False
                self._unexpected(error)
                continue
            self._emit(event)
            self._stop.wait(max(0.0, self.config.scan_interval - (self._clock() - started)))
        self._disconnect()

    def _came_online(self, *, serial: str, firmware: str, protocol: str) -> None:
        if self._online is not True:
            self._online = True
            self._emit(ReaderOnline(reader=self.name, at=self._clock(), serial=serial, firmware=firmware,
                                    protocol=protocol))

    def _unexpected(self, error: Exception) -> None:
        """The reader's thread met an exception nobody expected: offline with the reason, logged, retried."""
        log = logging.getLogger(type(self).__module__)  # the driver's logger, as before the thread was shared
        log.error("%s: unexpected %s in the reader thread; retrying", self.name, type(error).__name__,
                  exc_info=error)
        self._went_offline(f"unexpected {type(error).__name__}: {error}")
        self._stop.wait(self.config.reconnect_interval)

    def _went_offline(self, reason: str) -> None:
        if self._online is not False:
            self._online = False
            self._emit(ReaderOffline(reader=self.name, at=self._clock(), zones=self.zones, reason=reason))
