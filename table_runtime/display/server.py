"""The dealer display server: the page, its static files and one WebSocket per screen.

Owns the aiohttp application and the connected screens. Every screen gets the
current snapshot when it connects and each published snapshot after that; a slow
screen only ever gets the newest one (snapshots replace each other, nothing
queues up behind a stalled tablet), and `publish` never waits for a screen.

Roles are decided here, on the server, never trusted from the page:
- dealer: a connection from this machine (the kiosk browser) without a token;
- supervisor: a dealer connection sending VOID, or ACK_ALARM with a PIN, with the right PIN (the
  runtime acknowledges the serious alarms, alarms.SUPERVISOR_ACK_KINDS, only from the supervisor);
- pit: any connection carrying the pit token (`/?pit=<token>`); read-only.
Anything else is refused with 403. The server binds to 127.0.0.1 unless told
otherwise (beyond loopback only with a pit token). What is checked before a request
is read (its Host, a message's size and nesting) is in request_guard.py; when a
recall may run, in recall_gate.py. The WebSocket protocol is in docs/display.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import json
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from table_runtime.display.backend import (
    ALL_COMMANDS,
    RECALL_MAX_ROUNDS,
    SUPERVISOR_COMMANDS,
    DisplayBackend,
    Role,
)
from table_runtime.display.pin_guard import PIN_ATTEMPTS as PIN_ATTEMPTS
from table_runtime.display.pin_guard import PIN_LOCKOUT_S as PIN_LOCKOUT_S
from table_runtime.display.pin_guard import PinAttempts, SupervisorPin
from table_runtime.display.recall_gate import RecallClient, RecallGate, RecallRefused
from table_runtime.display.request_guard import (
    HostAllowlist,
    MessageRefused,
    check_bind,
    check_command_args,
    is_loopback_host,
    parse_message,
)
from table_runtime.errors import ConfigError, TableError

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).parent / "static"
LANGUAGES = ("fr", "en")
SEND_TIMEOUT_S = 5.0  # default: a screen that cannot take one message in this long is dropped
COMMAND_TIMEOUT_S = 10.0  # the runtime answers commands at once; past this the page hears "no answer"
RECALL_DEFAULT_ROUNDS = 10
API_CLIENTS_KEPT = 256  # addresses of /api/recall remembered for its rate limit
KEEPALIVE_S = 5.0  # an idle screen still hears from us this often, so it can tell a frozen controller
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


class DisplayAccessError(TableError, PermissionError):
    """A request the display refuses: wrong or missing pit token, foreign origin."""


@dataclass(eq=False)
class _Screen:
    """One connected page: its role and what is waiting to be sent to it."""

    ws: web.WebSocketResponse
    request: web.Request
    role: Role
    pin: PinAttempts  # this screen's wrong supervisor PINs (pin_guard.py)
    messages: deque[str] = field(default_factory=deque)  # replies, sent in order
    snapshot: str | None = None  # newest snapshot not yet sent; a newer one replaces it
    recall: RecallClient = field(default_factory=RecallClient)
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)

    def push_snapshot(self, text: str) -> None:
        self.snapshot = text
        self.wakeup.set()

    def push_message(self, message: dict[str, Any]) -> None:
        self.push_text(json.dumps(message, separators=(",", ":")))

    def push_text(self, text: str) -> None:
        self.messages.append(text)
        self.wakeup.set()


class DisplayServer:
    """The dealer display: serves the page and pushes snapshots to every connected screen.

    Use as ``async with DisplayServer(backend, port=0) as server:``; then
    ``await server.publish(snapshot)`` after every change of the table.
    """

    def __init__(
        self,
        backend: DisplayBackend,
        *,
        host: str = "127.0.0.1",
        port: int = 8080,
        language: str = "fr",
        supervisor_pin: str | None = None,
        pit_token: str | None = None,
        allowed_hosts: Iterable[str] = (),
        send_timeout: float = SEND_TIMEOUT_S,
        keepalive: float = KEEPALIVE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if language not in LANGUAGES:
            raise ConfigError("display.language", f"{language!r} is not one of {', '.join(LANGUAGES)}")
        if supervisor_pin is not None and not (supervisor_pin.isdigit() and len(supervisor_pin) >= 4):
            raise ConfigError("display.supervisor_pin", "must be at least 4 digits")
        if pit_token is not None and len(pit_token) < 8:
            raise ConfigError("display.pit_token", "must be at least 8 characters")
        if not 0 <= port <= 65535:
            raise ConfigError("display.port", f"{port} is not a TCP port")
        check_bind(host, pit_token)
        self._backend = backend
        self._host = host
        self._requested_port = port
        self._language = language
        self._supervisor_pin = supervisor_pin
        self._pit_token = pit_token
        self._send_timeout = send_timeout
        self._keepalive = keepalive
        self._clock = clock
        self._pin = SupervisorPin(supervisor_pin, clock=clock, security_alarm=backend.security_alarm)
        self._hosts = HostAllowlist(host, allowed_hosts)
        self.recall_gate = RecallGate(backend.recall, clock=clock)
        self._api_clients: dict[str, RecallClient] = {}
        self._screen_numbers = itertools.count(1)
        self._screens: set[_Screen] = set()
        self._runner: web.AppRunner | None = None
        self._port = port

    @property
    def port(self) -> int:
        """The bound TCP port (the one picked by the system when created with port=0)."""
        return self._port

    @property
    def url(self) -> str:
        """The dealer page's address (on this machine when bound to every interface)."""
        host = "127.0.0.1" if self._host in ("", "0.0.0.0", "::") else self._host
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self._port}/"

    @property
    def screens(self) -> int:
        """How many pages are connected right now."""
        return len(self._screens)

    async def __aenter__(self) -> Self:
        app = web.Application(client_max_size=64 * 1024, middlewares=[self._hosts.middleware])
        app.router.add_get("/", self._page)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/api/snapshot", self._api_snapshot)
        app.router.add_get("/api/recall", self._api_recall)
        app.router.add_static("/static/", STATIC_DIR, append_version=False)
        app.on_response_prepare.append(self._headers)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, self._host, self._requested_port)
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        self._port = int(runner.addresses[0][1])
        log.info("dealer display on %s", self.url)
        if not is_loopback_host(self._host):
            log.warning("the display listens beyond this machine on %s:%d: the pit view is open to whoever has "
                        "its token (firewall the port to the pit's network)", self._host or "0.0.0.0", self._port)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        runner, self._runner = self._runner, None
        for screen in list(self._screens):
            transport = screen.request.transport
            if transport is None:
                continue
            if transport.get_write_buffer_size() > 0:
                transport.abort()  # a stalled screen cannot take a close frame
                continue
            with contextlib.suppress(OSError, RuntimeError):  # TimeoutError is an OSError
                async with asyncio.timeout(1.0):
                    await screen.ws.close(code=1001, message=b"display stopping")
        if runner is not None:
            await runner.cleanup()

    async def publish(self, snapshot: dict[str, Any]) -> None:
        """Send `snapshot` to every connected page; returns at once, a slow page gets only the newest."""
        text = _snapshot_message(snapshot)
        for screen in self._screens:
            screen.push_snapshot(text)

    # --- HTTP ---------------------------------------------------------------------------------

    async def _headers(self, request: web.Request, response: web.StreamResponse) -> None:
        response.headers.setdefault("Cache-Control", "no-cache")
        response.headers.setdefault("Content-Security-Policy", _CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")

    async def _page(self, request: web.Request) -> web.StreamResponse:
        self._role_of(request)
        return web.FileResponse(STATIC_DIR / "index.html")

    async def _api_snapshot(self, request: web.Request) -> web.Response:
        self._role_of(request)
        return web.json_response(self._backend.snapshot())

    async def _api_recall(self, request: web.Request) -> web.Response:
        role = self._role_of(request)
        address = request.remote or ""
        client = self._api_clients.pop(address, None) or RecallClient()
        self._api_clients[address] = client  # newest last; the oldest forgotten first
        while len(self._api_clients) > API_CLIENTS_KEPT:
            del self._api_clients[next(iter(self._api_clients))]
        last = _recall_count(request.query.get("last"))
        try:
            text = await self.recall_gate.recall(client, last, dealer=role != "pit")
        except RecallRefused as refused:
            raise web.HTTPTooManyRequests(text=str(refused)) from refused
        return web.Response(text=text, content_type="application/json")

    def _role_of(self, request: web.Request) -> Role:
        """The role of a request, or 403. The pit token wins; else only this machine is the dealer."""
        try:
            return self._check_access(request)
        except DisplayAccessError as error:
            raise web.HTTPForbidden(text=str(error)) from error

    def _check_access(self, request: web.Request) -> Role:
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            raise DisplayAccessError(f"origin {origin} is not this display")
        token = request.query.get("pit")
        if token is not None:
            if self._pit_token is not None and hmac.compare_digest(token.encode(), self._pit_token.encode()):
                return "pit"
            raise DisplayAccessError("wrong pit token")
        if request.remote is not None and is_loopback_host(request.remote):
            return "dealer"
        raise DisplayAccessError("the dealer screen is local only; the pit view needs its token")

    # --- WebSocket ----------------------------------------------------------------------------

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        role = self._role_of(request)
        # Past max_msg_size aiohttp closes the connection; up to it a message too large gets an error reply.
        ws = web.WebSocketResponse(heartbeat=10.0, max_msg_size=1024 * 1024)
        await ws.prepare(request)
        screen = _Screen(ws, request, role, PinAttempts(f"screen {next(self._screen_numbers)} ({request.remote})"))
        screen.push_message(
            {
                "type": "hello",
                "role": role,
                "language": self._language,
                "supervisor": self._supervisor_pin is not None and role == "dealer",
                "keepalive_s": self._keepalive,
            }
        )
        # No await between reading the snapshot and joining: no publish can slip in between.
        screen.push_snapshot(_snapshot_message(self._backend.snapshot()))
        self._screens.add(screen)
        try:
            async with asyncio.TaskGroup() as group:
                sender = group.create_task(self._send_loop(screen))
                await self._receive_loop(screen)
                sender.cancel()
        finally:
            self._screens.discard(screen)
        return ws

    async def _send_loop(self, screen: _Screen) -> None:
        while not screen.ws.closed:
            try:
                async with asyncio.timeout(self._keepalive):
                    await screen.wakeup.wait()
            except TimeoutError:
                screen.push_message({"type": "keepalive"})
            screen.wakeup.clear()
            try:
                while screen.messages:
                    async with asyncio.timeout(self._send_timeout):
                        await screen.ws.send_str(screen.messages.popleft())
                if screen.snapshot is not None:
                    text, screen.snapshot = screen.snapshot, None
                    async with asyncio.timeout(self._send_timeout):
                        await screen.ws.send_str(text)
            except (TimeoutError, ConnectionError, RuntimeError) as error:
                # RuntimeError: aiohttp refuses to send on a closing socket.
                log.info("dropping a display screen: %r", error)
                # No close handshake: a stalled peer reads nothing, and a graceful close would wait
                # for the unsent bytes forever. Aborting ends the receive loop; the page reconnects.
                transport = screen.request.transport
                if transport is not None:
                    transport.abort()
                return

    async def _receive_loop(self, screen: _Screen) -> None:
        async for message in screen.ws:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                request = parse_message(message.data)
            except MessageRefused as refused:
                screen.push_message({"type": "error", "message": str(refused)})
                continue
            kind = request.get("type")
            if kind == "command":
                reply = await self._command(screen, request)
                screen.push_message({"type": "result", "request": request.get("request"), **reply})
            elif kind == "recall":
                screen.push_text(await self._recall(screen, request))
            else:
                screen.push_message({"type": "error", "message": f"unknown message type {kind!r}"})

    async def _recall(self, screen: _Screen, request: dict[str, Any]) -> str:
        """The reply's text: the rounds, encoded off the loop (recall_gate.py), or why there are none."""
        envelope: dict[str, Any] = {"type": "recall", "request": request.get("request")}
        try:
            return await self.recall_gate.recall(screen.recall, _recall_count(request.get("last")),
                                                 dealer=screen.role != "pit", envelope=envelope)
        except RecallRefused as refused:
            reply = {**envelope, "rounds": [], "message": str(refused), "reason": refused.reason}
        except Exception as error:
            log.exception("display: the backend failed to recall rounds")
            reply = {**envelope, "rounds": [], "message": f"recall failed: {error!r}", "reason": "recall_failed"}
        return json.dumps(reply, separators=(",", ":"))

    async def _command(self, screen: _Screen, request: dict[str, Any]) -> dict[str, Any]:
        """Check a command from a page and hand it to the runtime; every refusal says why."""
        role, name = screen.role, request.get("name")
        args = request.get("args") or {}
        base = {"name": name}
        if role == "pit":
            return {**base, "ok": False, "message": "pit view is read-only", "reason": "read_only"}
        if not isinstance(name, str) or name not in ALL_COMMANDS:
            return {**base, "ok": False, "message": f"unknown command {name!r}", "reason": "unknown_command"}
        if not isinstance(args, dict):
            return {**base, "ok": False, "message": "args must be an object", "reason": "bad_args"}
        problem = check_command_args(name, args)
        if problem is not None:
            return {**base, "ok": False, "message": problem, "reason": "bad_args"}
        acting: Role = "dealer"
        # ACK_ALARM carries the PIN when the alarm needs the supervisor (the snapshot says which); the
        # runtime refuses such an alarm from the dealer, so a page that leaves the PIN out changes nothing.
        if name in SUPERVISOR_COMMANDS or (name == "ACK_ALARM" and "pin" in request):
            refusal = self._pin.check(name, request.get("pin"), screen.pin)
            if refusal is not None:
                return {**base, "ok": False, **refusal}
            acting = "supervisor"
        try:
            async with asyncio.timeout(COMMAND_TIMEOUT_S):
                result = await self._backend.command(name, args, role=acting)
        except TimeoutError:
            return {**base, "ok": False, "message": "no answer from the table", "reason": "no_answer"}
        except TableError as error:
            return {**base, "ok": False, "message": str(error)}
        except Exception as error:
            # A bug in the runtime must not cut the dealer's screen off; it is logged in full.
            log.exception("display: the backend failed on %s", name)
            return {**base, "ok": False, "message": f"the table could not apply {name}: {error!r}", "reason": "failed"}
        return {**base, "ok": bool(result.get("ok")), "message": str(result.get("message", ""))}


def _recall_count(value: object) -> int:
    try:
        count = int(str(value)) if value is not None else RECALL_DEFAULT_ROUNDS
    except ValueError:
        count = RECALL_DEFAULT_ROUNDS
    return max(1, min(RECALL_MAX_ROUNDS, count))


def _snapshot_message(snapshot: dict[str, Any]) -> str:
    return json.dumps({"type": "snapshot", "snapshot": snapshot}, separators=(",", ":"))
