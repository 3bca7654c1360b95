"""An error where no caller of ours can catch it (a library's event-loop callback, a thread) is one log line,
never a traceback: the shared handler of every entry point (table_runtime/loop_errors.py).

The error is the one aiomqtt meets when the broker dies under it: `loop.add_writer` on the fd of a socket
paho has closed already, `OSError: [Errno 9] Bad file descriptor`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from table_runtime.commands.run import serve
from table_runtime.config import ClockConfig, load_config
from table_runtime.loop_errors import log_thread_error, run_logged
from table_runtime.runtime.assembly import AssembledTable
from tests.deploy.support import demo_table

LOGGER = "table_runtime.loop_errors"


def closed_fd() -> int:
    """The number of a socket's fd just closed (as paho leaves it when the broker is gone), surely not open."""
    sock = socket.socket()
    fd = sock.fileno()
    sock.close()
    with pytest.raises(OSError):
        os.fstat(fd)
    return fd


def schedule_the_broken_callback(loop: asyncio.AbstractEventLoop, ran: asyncio.Event) -> None:
    """As aiomqtt does from paho's thread: ask the loop to watch a socket for writing, a moment too late."""

    loop.call_soon(loop.add_writer, closed_fd(), lambda: None)
    loop.call_soon(ran.set)


def one_line_records(caplog: pytest.LogCaptureFixture) -> list[str]:
    records = [record for record in caplog.records if record.name == LOGGER]
    assert records, "nothing logged"
    assert all(record.exc_info is None and "\n" not in record.getMessage() for record in records)
    return [record.getMessage() for record in records]


def test_an_add_writer_on_a_closed_socket_is_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> str:
        ran = asyncio.Event()
        schedule_the_broken_callback(asyncio.get_running_loop(), ran)
        await ran.wait()
        await asyncio.sleep(0)
        return "went on"

    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert run_logged(main()) == "went on"  # the loop runs on after the callback's error
    (line,) = one_line_records(caplog)
    assert line.startswith("event loop: Exception in callback BaseSelectorEventLoop.add_writer(")
    assert "OSError: [Errno 9] Bad file descriptor" in line


def test_a_thread_error_is_one_log_line(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threading, "excepthook", log_thread_error)

    def broken() -> None:
        raise KeyError("8 is not registered")

    thread = threading.Thread(target=broken, name="devices-socket")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        thread.start()
        thread.join()
    assert one_line_records(caplog) == ["thread devices-socket: KeyError: '8 is not registered'"]


async def test_table_runtime_run_logs_a_callback_error_in_one_line(tmp_path: Path,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    """`table-runtime run` (its serve()): the broken callback on its loop is one line and the table plays on."""
    config = load_config(demo_table(tmp_path), environ={}).replace(clock=ClockConfig(sync_wait_seconds=0))
    ran = asyncio.Event()
    tables: list[AssembledTable] = []

    def assembled(table: AssembledTable) -> None:
        tables.append(table)
        schedule_the_broken_callback(asyncio.get_running_loop(), ran)

    previous = asyncio.get_running_loop().get_exception_handler()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        server = asyncio.create_task(serve(config, clock_probe=lambda: None, on_assembled=assembled))
        try:
            async with asyncio.timeout(30):
                await ran.wait()
                await until(lambda: tables[0].controller.devices.get("shoe") == "online")  # and plays on
            tables[0].app.stop("test")
            assert await server == 0
        finally:
            server.cancel()
            asyncio.get_running_loop().set_exception_handler(previous)
    (line,) = one_line_records(caplog)
    assert "OSError: [Errno 9] Bad file descriptor" in line


async def until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.01)
