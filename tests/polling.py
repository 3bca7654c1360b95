"""Waiting in tests for what a real device, thread or broker does: poll a condition, bounded, named on failure."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(condition: Callable[[], bool], what: str, seconds: float = 10.0) -> None:
    """Return once `condition()` holds; fail naming `what` after `seconds`."""
    try:
        async with asyncio.timeout(seconds):
            while not condition():
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"never: {what} (within {seconds:g} s)") from None
