"""The pit page's server: the overview of every table, each table's live view, one WebSocket per screen.

Owns the aiohttp application and the connected screens. A screen asks either for
the overview (``/ws``) or for one table (``/ws?table=T1``); it gets the current
picture when it connects and the newest one after each `changed()`. Pictures
replace each other: a slow screen only ever gets the newest, built when it is
sent, so a burst of feed messages costs one overview per screen, and `changed`
never waits for a screen.

Everything here is read-only: the page sends nothing, and a message from a
screen is answered with a refusal. Access:
- the pit token (``?pit=<token>`` on the page, its WebSocket and the API) when one is configured;
  without one the server binds to a loopback address only (a non-loopback bind is refused);
- the Host header must be one of the allowed names (the loopback names, the bound address and
  `allowed_hosts`; the dealer display's own allowlist, table_runtime.display.request_guard): a page reached
  under another name (DNS rebinding) gets 421, and a foreign Origin 403.
"""

from __future__ import annotations

import functools
import hmac
import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol, Self

from aiohttp import WSMsgType, web

from table_runtime.display.request_guard import HostAllowlist, is_loopback_host
from table_runtime.display.server import STATIC_DIR as DISPLAY_STATIC_DIR
from table_runtime.display.web_common import Screen, ScreenServer, foreign_origin, page_url
from table_runtime.errors import ConfigError, TableError

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).parent / "static"
LANGUAGES = ("fr", "en")
TOKEN_MIN_LENGTH = 16
SEND_TIMEOUT_S = 5.0
KEEPALIVE_S = 5.0


class PitAccessError(TableError, PermissionError):
    """A request the pit page refuses: wrong or missing token, a Host or Origin not allowed."""


class PitSource(Protocol):
    """What the server reads: the floor as the pit page draws it (`FloorPicture`)."""

    def overview(self) -> dict[str, Any]: ...

    def snapshot(self, table_id: str) -> dict[str, Any] | None: ...


class _Screen(Screen):
    """One connected page (web_common.Screen): the overview (`table_id` None), or one table's view.

    At most ten pictures a second: a busy floor changes faster than a page can show, and each overview is drawn
    and encoded for every table; a change still reaches the page within a tenth of a second of the last."""

    picture_interval = 0.1

    def __init__(self, ws: web.WebSocketResponse, request: web.Request, table_id: str | None) -> None:
        super().__init__(ws, request)
        self.table_id = table_id


class PitServer(ScreenServer[_Screen]):
    """The pit page: serves it and pushes the overview, or one table's snapshot, to every screen.

    Use as ``async with PitServer(view, port=0, token=...) as server:``; call
    ``server.changed(table_id)`` after folding a feed message into `view`.
    """

    stopping = b"pit page stopping"

    def __init__(
        self,
        source: PitSource,
        *,
        host: str = "127.0.0.1",
        port: int = 8090,
        token: str | None = None,
        allowed_hosts: Iterable[str] = (),
        language: str = "fr",
        send_timeout: float = SEND_TIMEOUT_S,
        keepalive: float = KEEPALIVE_S,
    ) -> None:
        if language not in LANGUAGES:
            raise ConfigError("pit.language", f"{language!r} is not one of {', '.join(LANGUAGES)}")
        if token is not None and len(token) < TOKEN_MIN_LENGTH:
            raise ConfigError("pit.token", f"must be at least {TOKEN_MIN_LENGTH} characters")
        if token is None and not is_loopback_host(host):
            raise ConfigError("pit.host", f"{host!r} is not a loopback address: the pit page needs its token there")
        if not 0 <= port <= 65535:
            raise ConfigError("pit.port", f"{port} is not a TCP port")
        super().__init__(host, port, send_timeout=send_timeout, keepalive=keepalive, what="pit")
        self._source = source
        self._token = token
        self._language = language
        self._hosts = HostAllowlist(host, allowed_hosts, server="pit page", key="[pit] allowed_hosts")

    @property
    def url(self) -> str:
        """The overview's address, token included."""
        return page_url(self._host, self._port, f"?pit={self._token}" if self._token is not None else "")

    async def __aenter__(self) -> Self:
        app = web.Application(client_max_size=16 * 1024, middlewares=[self._hosts.middleware])
        app.router.add_get("/", self._page)
        app.router.add_get("/table/{table_id}", self._table_page)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/api/overview", self._api_overview)
        app.router.add_static("/static/", STATIC_DIR, append_version=False)
        # The table's live view draws the snapshot with the dealer display's own code, read-only.
        app.router.add_static("/display/", DISPLAY_STATIC_DIR, append_version=False)
        await self._start(app)
        log.info("pit page on %s", self.url.split("?")[0])
        return self

    def changed(self, table_id: str | None = None) -> None:
        """The view changed (for `table_id`, or for every table): the screens concerned get it soon."""
        for screen in self._screens:
            if table_id is None or screen.table_id is None or screen.table_id == table_id:
                screen.push_picture(functools.partial(self._picture, screen))

    # --- HTTP ---------------------------------------------------------------------------------

    def _check(self, request: web.Request) -> None:
        try:
            self._check_access(request)
        except PitAccessError as error:
            raise web.HTTPForbidden(text=str(error)) from error

    def _check_access(self, request: web.Request) -> None:
        origin = foreign_origin(request)
        if origin is not None:
            raise PitAccessError(f"origin {origin} is not this pit page")
        if self._token is None:
            return
        given = request.query.get("pit")
        if given is None:
            raise PitAccessError("the pit page needs its token (?pit=...)")
        if not hmac.compare_digest(given.encode(), self._token.encode()):
            raise PitAccessError("wrong pit token")

    async def _page(self, request: web.Request) -> web.StreamResponse:
        self._check(request)
        return web.FileResponse(STATIC_DIR / "index.html")

    async def _table_page(self, request: web.Request) -> web.StreamResponse:
        self._check(request)
        return web.FileResponse(STATIC_DIR / "table.html")

    async def _api_overview(self, request: web.Request) -> web.Response:
        self._check(request)
        return web.json_response(self._source.overview())

    # --- WebSocket ----------------------------------------------------------------------------

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        self._check(request)
        table_id = request.query.get("table") or None
        ws = web.WebSocketResponse(heartbeat=10.0, max_msg_size=4 * 1024)
        await ws.prepare(request)
        screen = _Screen(ws, request, table_id)
        hello = {"type": "hello", "language": self._language, "keepalive_s": self._keepalive, "table_id": table_id}
        screen.push_text(_encode(hello))
        screen.push_picture(functools.partial(self._picture, screen))
        await self._serve(screen, self._receive_loop)
        return ws

    def _picture(self, screen: _Screen) -> str:
        if screen.table_id is None:
            return _encode({"type": "overview", "overview": self._source.overview()})
        snapshot = self._source.snapshot(screen.table_id)
        return _encode({"type": "table", "table_id": screen.table_id, "snapshot": snapshot})

    async def _receive_loop(self, screen: _Screen) -> None:
        async for message in screen.ws:
            if message.type == WSMsgType.TEXT:
                screen.push_text(_encode({"type": "error", "message": "the pit page is read-only",
                                          "reason": "read_only"}))


def _encode(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)
