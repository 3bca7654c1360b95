"""What the dealer display and the pit page serve alike: the response headers, the Origin check, starting the
aiohttp site, and one screen's WebSocket from its first message to its close.

A screen gets its replies in order, then the newest picture: a newer picture replaces one not yet sent, so a
slow screen only ever gets the newest and nothing queues up behind a stalled tablet. An idle screen still
hears a keepalive every `keepalive` seconds; a screen that cannot take one message within `send_timeout` is
aborted without a close handshake (a stalled peer reads nothing, and a graceful close would wait for the
unsent bytes forever); the page reconnects. The display (server.py) and the pit page
(casino_floor.pit.server) each decide who may connect and what a screen's messages mean.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from types import TracebackType
from typing import Any, Generic, TypeVar
from urllib.parse import urlsplit

from aiohttp import web

log = logging.getLogger(__name__)

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

Picture = str | Callable[[], str]  # the text itself, or how to build it when it is sent


async def security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Every response: not cached, scripts and styles from this site only, no sniffing, no referrer."""
    response.headers.setdefault("Cache-Control", "no-cache")
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")


def page_url(host: str, port: int, query: str = "") -> str:
    """The page's address (on this machine when bound to every interface), `query` appended."""
    host = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{port}/{query}"


def foreign_origin(request: web.Request) -> str | None:
    """The request's Origin when it names another site than its Host (None: none sent, or this one)."""
    origin = request.headers.get("Origin")
    if origin is not None and urlsplit(origin).netloc != request.host:
        return origin
    return None


async def start_site(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serve `app` (with `security_headers`) on host:port; the runner and the bound port (port=0: picked)."""
    app.on_response_prepare.append(security_headers)
    runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError:
        await runner.cleanup()
        raise
    return runner, int(runner.addresses[0][1])


class Screen:
    """One connected page: its WebSocket and what waits to be sent to it.

    `picture_interval`: the least time between two pictures sent to it (0: each as soon as it is drawn, the
    dealer's display); the newest picture waits and replaces the older meanwhile."""

    picture_interval = 0.0

    def __init__(self, ws: web.WebSocketResponse, request: web.Request) -> None:
        self.ws = ws
        self.request = request
        self.messages: deque[str] = deque()  # replies, sent in order
        self.picture: Picture | None = None  # newest picture not yet sent; a newer one replaces it
        self.wakeup = asyncio.Event()

    def push_message(self, message: dict[str, Any]) -> None:
        self.push_text(json.dumps(message, separators=(",", ":")))

    def push_text(self, text: str) -> None:
        self.messages.append(text)
        self.wakeup.set()

    def push_picture(self, picture: Picture) -> None:
        self.picture = picture
        self.wakeup.set()

    def take_picture(self) -> str | None:
        picture, self.picture = self.picture, None
        return picture() if callable(picture) else picture

    def abort(self) -> None:
        """Drop the connection at once: ends the receive loop, the page reconnects."""
        transport = self.request.transport
        if transport is not None:
            transport.abort()


S = TypeVar("S", bound=Screen)


async def serve_screen(screen: S, screens: set[S], receive: Callable[[S], Awaitable[None]], *, keepalive: float,
                       send_timeout: float, what: str) -> None:
    """Keep `screen` in `screens` while `receive` reads its messages and its send loop writes to it."""
    screens.add(screen)
    try:
        async with asyncio.TaskGroup() as group:
            sender = group.create_task(_send_loop(screen, keepalive, send_timeout, what))
            await receive(screen)
            sender.cancel()
    finally:
        screens.discard(screen)


async def _send_loop(screen: Screen, keepalive: float, send_timeout: float, what: str) -> None:
    while not screen.ws.closed:
        try:
            async with asyncio.timeout(keepalive):
                await screen.wakeup.wait()
        except TimeoutError:
            screen.push_message({"type": "keepalive"})
        screen.wakeup.clear()
        try:
            while screen.messages:
                async with asyncio.timeout(send_timeout):
                    await screen.ws.send_str(screen.messages.popleft())
            text = screen.take_picture()
            if text is not None:
                async with asyncio.timeout(send_timeout):
                    await screen.ws.send_str(text)
                if screen.picture_interval > 0:
                    await asyncio.sleep(screen.picture_interval)  # pictures drawn meanwhile: only the newest
        except (TimeoutError, ConnectionError, RuntimeError) as error:
            # RuntimeError: aiohttp refuses to send on a closing socket.
            log.info("dropping a %s screen: %r", what, error)
            screen.abort()
            return


class ScreenServer(Generic[S]):
    """What both servers hold: the address to bind, the running site and the connected screens.

    A subclass builds its application in ``__aenter__`` and starts it with `_start`; ``__aexit__`` closes
    every screen with `stopping` and the site.
    """

    stopping = b"stopping"

    def __init__(self, host: str, port: int, *, send_timeout: float, keepalive: float, what: str) -> None:
        self._host = host
        self._requested_port = port
        self._port = port
        self._send_timeout = send_timeout
        self._keepalive = keepalive
        self._what = what
        self._screens: set[S] = set()
        self._runner: web.AppRunner | None = None

    @property
    def port(self) -> int:
        """The bound TCP port (the one the system picked when created with port=0)."""
        return self._port

    @property
    def screens(self) -> int:
        """How many pages are connected right now."""
        return len(self._screens)

    async def _start(self, app: web.Application) -> None:
        self._runner, self._port = await start_site(app, self._host, self._requested_port)

    async def _serve(self, screen: S, receive: Callable[[S], Awaitable[None]]) -> None:
        await serve_screen(screen, self._screens, receive, keepalive=self._keepalive,
                           send_timeout=self._send_timeout, what=self._what)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        runner, self._runner = self._runner, None
        await close_screens(self._screens, self.stopping)
        if runner is not None:
            await runner.cleanup()


async def close_screens(screens: Iterable[Screen], message: bytes) -> None:
    """Close every screen with 1001 and `message`; a stalled one (unsent bytes waiting) is aborted instead."""
    for screen in list(screens):
        transport = screen.request.transport
        if transport is None:
            continue
        if transport.get_write_buffer_size() > 0:
            transport.abort()  # a stalled screen cannot take a close frame
            continue
        with contextlib.suppress(OSError, RuntimeError):  # TimeoutError is an OSError
            async with asyncio.timeout(1.0):
                await screen.ws.close(code=1001, message=message)
