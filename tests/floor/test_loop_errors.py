"""`table-floor run`: an error in an event-loop callback (a library's, a socket closed under it) is one log line,
never a traceback on the service's output."""

from __future__ import annotations

import asyncio
import logging

import pytest

from casino_floor.cli import log_loop_error


async def test_an_error_in_a_loop_callback_is_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()
    loop.set_exception_handler(log_loop_error)
    done = asyncio.Event()

    def broken() -> None:
        done.set()
        raise KeyError("8 is not registered")

    try:
        with caplog.at_level(logging.WARNING, logger="casino_floor"):
            loop.call_soon(broken)
            await done.wait()
            await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(previous)
    (record,) = [r for r in caplog.records if r.name == "casino_floor"]
    assert record.exc_info is None and "\n" not in record.getMessage()
    assert "Exception in callback" in record.getMessage() and "KeyError: '8 is not registered'" in record.getMessage()
