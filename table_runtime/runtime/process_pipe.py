"""A process of the table's (the audit, a program check, the rating worker) from the event loop: started off the
loop and never left starting behind a cancellation, and the end of its pipe read on the loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

T = TypeVar("T")


async def start_off_the_loop(start: Callable[[], T], *, abandoned: Callable[[T], None] | None = None) -> T:
    """`start()` (a process's fork and exec) in a thread, its result. A cancellation meanwhile still waits for the
    start to end, hands what it made to `abandoned` (the caller never gets it to stop), then goes on: no thread
    forks after its caller is gone. A child forked then would hold every descriptor open in this process until it
    execs, the journal's writer claim among them (a restart on the same journal refused), and would never be
    stopped."""
    call = asyncio.ensure_future(asyncio.to_thread(start))
    try:
        return await asyncio.shield(call)
    except asyncio.CancelledError:
        await asyncio.wait([call])
        if abandoned is not None and not call.cancelled() and call.exception() is None:
            abandoned(call.result())
        raise


async def received(connection: Connection) -> Any | None:
    """The next object the process sent (None once it ended): waited for on the loop, read when it is there."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(connection.fileno(), readable)
    try:
        await ready
    finally:
        loop.remove_reader(connection.fileno())
    try:
        return connection.recv()
    except (EOFError, OSError):
        return None
