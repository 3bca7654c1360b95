"""What the service tells systemd: readiness, the watchdog, a status line; and log lines at journald's levels.

`Notifier` speaks the sd_notify protocol without libsystemd: one datagram per
message to the unix socket named by ``NOTIFY_SOCKET`` (a path, or an abstract
address when it starts with ``@``), each message ``KEY=value`` lines. Outside
systemd (no ``NOTIFY_SOCKET``) every call does nothing, so `run` behaves the
same from a terminal.

With ``Type=notify`` and ``WatchdogSec=`` in the unit (deploy/table-runtime.service):

- ``READY=1`` once the journal is replayed and every device is open;
- ``WATCHDOG=1`` every half ``WATCHDOG_USEC``, sent by a coroutine on the event
  loop (`keep_alive`): a loop blocked by a hung call sends nothing, and systemd
  kills and restarts the service;
- ``STATUS=`` one line for ``systemctl status`` (what the table is doing, or the
  configuration key that stopped it);
- ``STOPPING=1`` at SIGTERM; ``EXTEND_TIMEOUT_USEC=`` while start-up waits for the clock.

`JournaldFormatter` prefixes every line of a log record with its syslog
priority (``<4>`` for a warning, sd-daemon(3)), which journald reads when the
service's stderr is its stream (``JOURNAL_STREAM``), so ``journalctl -p warning``
shows the warnings and errors only.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
from collections.abc import Callable, Mapping
from typing import Any

log = logging.getLogger("table_runtime.systemd")

# sd-daemon(3) priorities, by Python logging level (the highest level not above the record's).
_PRIORITIES: tuple[tuple[int, int], ...] = (
    (logging.CRITICAL, 2),  # crit
    (logging.ERROR, 3),  # err
    (logging.WARNING, 4),  # warning
    (logging.INFO, 6),  # info
    (logging.DEBUG, 7),  # debug
)


def priority_of(level: int) -> int:
    """The syslog priority journald files a record of this logging level under."""
    for threshold, priority in _PRIORITIES:
        if level >= threshold:
            return priority
    return 7


class Notifier:
    """The sd_notify socket of this service, if systemd gave one; owns nothing else."""

    def __init__(self, environ: Mapping[str, str] | None = None, *, pid: int | None = None) -> None:
        environ = os.environ if environ is None else environ
        address = environ.get("NOTIFY_SOCKET", "")
        self.address: str | bytes | None = None
        if address.startswith("@"):
            self.address = b"\0" + address[1:].encode()  # Linux abstract namespace
        elif address.startswith("/"):
            self.address = address
        self.watchdog_seconds: float | None = None
        watchdog_usec = environ.get("WATCHDOG_USEC", "")
        watchdog_pid = environ.get("WATCHDOG_PID", "")
        for_us = not watchdog_pid or watchdog_pid == str(os.getpid() if pid is None else pid)
        if watchdog_usec.isdigit() and int(watchdog_usec) > 0 and for_us:
            self.watchdog_seconds = int(watchdog_usec) / 1_000_000
        self._status: str | None = None

    @property
    def enabled(self) -> bool:
        return self.address is not None

    @property
    def watchdog_interval(self) -> float | None:
        """How often `keep_alive` pings: half the watchdog timeout, as sd_watchdog_enabled(3) advises."""
        return None if self.watchdog_seconds is None else self.watchdog_seconds / 2

    def send(self, **fields: str | int) -> bool:
        """One notification (``send(READY=1, STATUS="...")``); False when there is no socket or it failed."""
        if self.address is None:
            return False
        # One line per field: a status never spans lines (a newline would start another field).
        message = "\n".join(f"{key}={' '.join(str(value).splitlines())}" for key, value in fields.items())
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto(message.encode("utf-8", "replace"), self.address)
        except OSError as error:  # systemd gone, or the socket closed: never fatal to the table
            log.debug("sd_notify to %r failed: %s", self.address, error)
            return False
        return True

    def status(self, text: str) -> None:
        """The one line `systemctl status` shows; sent only when it changed."""
        if text != self._status:
            self._status = text
            self.send(STATUS=text)

    def ready(self, status: str) -> None:
        self._status = status
        self.send(READY=1, STATUS=status)

    def stopping(self, status: str) -> None:
        self._status = status
        self.send(STOPPING=1, STATUS=status)

    def extend_start(self, seconds: float, status: str) -> None:
        """Start-up takes longer (waiting for the clock): `seconds` more before TimeoutStartSec= applies."""
        self._status = status
        self.send(EXTEND_TIMEOUT_USEC=int(seconds * 1_000_000), STATUS=status)

    async def keep_alive(self, status: Callable[[], str] | None = None) -> None:
        """Ping the watchdog from the event loop until cancelled; refresh the status line on the way.

        Runs on the loop on purpose: a loop that does not come back here (a call that hangs in it)
        stops the pings, and systemd restarts the service after ``WatchdogSec=``.
        """
        interval = self.watchdog_interval
        if interval is None:
            if status is None:
                return
            interval = 5.0  # no watchdog: still keep the status line current
        while True:
            if status is not None:
                self.status(status())
            if self.watchdog_seconds is not None:
                self.send(WATCHDOG=1)
            await asyncio.sleep(interval)


class JournaldFormatter(logging.Formatter):
    """Every line of the formatted record starts with ``<N>``, its syslog priority (tracebacks too)."""

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{priority_of(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines() or [""])


def stderr_is_journal(environ: Mapping[str, str] | None = None, stream: Any = None) -> bool:
    """Whether stderr is the journal stream systemd connected (``JOURNAL_STREAM=dev:inode``, systemd.exec(5))."""
    environ = os.environ if environ is None else environ
    device, _, inode = environ.get("JOURNAL_STREAM", "").partition(":")
    if not (device.isdigit() and inode.isdigit()):
        return False
    try:
        fileno = (stream if stream is not None else sys.stderr).fileno()
        stat = os.fstat(fileno)
    except (OSError, ValueError, AttributeError):
        return False
    return (stat.st_dev, stat.st_ino) == (int(device), int(inode))


def log_handler(stream: Any, *, journal: bool, fmt: str) -> logging.Handler:
    """A stderr handler; with `journal`, lines carry journald priorities instead of a level name."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JournaldFormatter(fmt) if journal else logging.Formatter(fmt, datefmt="%Y-%m-%d %H:%M:%S"))
    return handler
