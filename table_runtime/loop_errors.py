"""An error raised where no caller of ours can catch it, as one log line instead of a traceback.

A library's callback run by the event loop can fail when a connection dies
under it: aiomqtt asks the loop to watch paho's socket for writing
(``loop.add_writer``) a moment after the broker went away and paho closed that
socket, and the loop's default handler prints ``Exception in callback ...``
with a traceback (``OSError: [Errno 9] Bad file descriptor``). Nothing is lost
(the feed's reconnect loop notices the broken connection by itself), so the
operator needs one line, not a stack. The same for a thread's uncaught error
(the simulated devices serve their socket and their pty from threads).

Every entry point installs them: the loop's handler in `table-runtime run` and
`demo`, `table-bench run` and `soak`, `table-floor run`; the thread's in
`table-sim devices`, which has no event loop (its socket server's failed
request too). One handler, shared, in the lowest layer all of them import.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


def one_line(text: str) -> str:
    return " ".join(text.split())


def log_uncaught(where: str, error: BaseException | None, *, level: int = logging.ERROR) -> None:
    """One line for an error none of our callers could catch: where it happened, its type and message."""
    detail = f": {type(error).__name__}: {error}" if error is not None else ""
    log.log(level, "%s", one_line(f"{where}{detail}"))


def log_loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's exception handler: its message and the exception, on one line at WARNING (the loop runs on)."""
    log_uncaught(f"event loop: {context.get('message', 'error')}", context.get("exception"), level=logging.WARNING)


def log_loop_errors() -> None:
    """Log the running loop's callback errors in one line each (call first thing in the entry point's coroutine)."""
    asyncio.get_running_loop().set_exception_handler(log_loop_error)


def run_logged(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)` with `log_loop_errors` installed before `main` starts."""

    async def logged() -> T:
        log_loop_errors()
        return await main

    return asyncio.run(logged())


def log_thread_error(args: threading.ExceptHookArgs) -> None:
    """For `threading.excepthook`: a thread's uncaught error in one line at ERROR."""
    if args.exc_type is SystemExit:
        return
    log_uncaught(f"thread {args.thread.name if args.thread is not None else '?'}", args.exc_value)
