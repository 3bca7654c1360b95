"""The end of a pipe to a process of the table's (the audit, a program check), read from the event loop."""

from __future__ import annotations

import asyncio
from multiprocessing.connection import Connection
from typing import Any


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
