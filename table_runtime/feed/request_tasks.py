"""The tasks in which a table serves the floor's requests (replays, program checks), one per request, all
cancelled when the connection goes (what was not finished is the floor's to ask again)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class RequestTasks:
    """The requests being served on one connection."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, serving: Coroutine[Any, Any, None]) -> None:
        """Serve one request in a task of its own."""
        task = asyncio.create_task(serving)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """Cancel every request still being served, and wait for them."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
