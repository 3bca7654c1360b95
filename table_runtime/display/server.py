"""The dealer display server: the page, its static files and one WebSocket per screen.

Owns the aiohttp application and the connected screens. Every screen gets the
current snapshot when it connects and each published snapshot after that; a slow
screen only ever gets the newest one (snapshots replace each other, nothing
queues up behind a stalled tablet), and `publish` never waits for a screen.

Roles are decided here, on the server, never trusted from the page:
- dealer: a connection from this machine (the kiosk browser) without a token;
- supervisor: a dealer connection sending VOID, or ACK_ALARM with a PIN, with the right PIN (the
  runtime acknowledges the serious alarms, alarms.SUPERVISOR_ACK_KINDS, only from the supervisor); its wrong
  guesses counted per source across screens and reconnections (pin_guard.py);
- pit: any connection carrying the pit token (`/?pit=<token>`); read-only.
Where a staff registry rules the table (`staff`, a `StaffBackend`): a dealer takes the table with his employee id
and his own PIN (a `login` message; or by badging at the table's reader) and leaves it (`logout`); every supervisor
action names its supervisor by his own PIN (`employee` and `pin`) or his badge swiped just before (`badge`), and a
shared supervisor PIN is refused; wrong PINs are counted per employee and per screen (staff_guard.py).
Anything else is refused with 403. The server binds to 127.0.0.1 unless told
otherwise (beyond loopback only with a pit token). What is checked before a request
is read (its Host, a message's size and nesting) is in request_guard.py; when a
recall may run, in recall_gate.py; what it serves as the pit page does (headers, a screen's
send loop) in web_common.py. The WebSocket protocol is in docs/display.md.
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import json
import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Self

from aiohttp import WSMsgType, web

from table_runtime.core.alarm_ledger import for_the_dealer
from table_runtime.core.staff_roles import StaffRole
from table_runtime.display.backend import (
    ALL_COMMANDS,
    RECALL_MAX_ROUNDS,
    SUPERVISOR_COMMANDS,
    DisplayBackend,
    Role,
    StaffBackend,
)
from table_runtime.display.pin_guard import PIN_ATTEMPTS as PIN_ATTEMPTS
from table_runtime.display.pin_guard import PIN_LOCKOUT_S as PIN_LOCKOUT_S
from table_runtime.display.pin_guard import SupervisorPin
from table_runtime.display.recall_gate import RecallClient, RecallGate, RecallRefused
from table_runtime.display.request_guard import (
    HostAllowlist,
    MessageRefused,
    check_bind,
    check_command_args,
    is_loopback_host,
    parse_message,
)
from table_runtime.display.staff_guard import StaffPins
from table_runtime.display.web_common import Screen, ScreenServer, foreign_origin, page_url
from table_runtime.errors import ConfigError, TableError

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).parent / "static"
LANGUAGES = ("fr", "en")
SEND_TIMEOUT_S = 5.0  # default: a screen that cannot take one message in this long is dropped
COMMAND_TIMEOUT_S = 10.0  # the runtime answers commands at once; past this the page hears "no answer"
RECALL_DEFAULT_ROUNDS = 10
API_CLIENTS_KEPT = 256  # addresses of /api/recall remembered for its rate limit
KEEPALIVE_S = 5.0  # an idle screen still hears from us this often, so it can tell a frozen controller


class DisplayAccessError(TableError, PermissionError):
    """A request the display refuses: wrong or missing pit token, foreign origin."""


class _Screen(Screen):
    """One connected page (web_common.Screen: what waits to be sent to it), with its role."""

    def __init__(self, ws: web.WebSocketResponse, request: web.Request, role: Role, name: str) -> None:
        super().__init__(ws, request)
        self.role = role
        self.name = name  # how the PIN's alarm and the log name the screen, e.g. "screen 3 (127.0.0.1)"
        self.address = request.remote  # whose wrong supervisor PINs it counts on (pin_guard.py)
        self.recall = RecallClient()


class DisplayServer(ScreenServer[_Screen]):
    """The dealer display: serves the page and pushes snapshots to every connected screen.

    Use as ``async with DisplayServer(backend, port=0) as server:``; then
    ``await server.publish(snapshot)`` after every change of the table.
    """

    stopping = b"display stopping"

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
        staff: StaffBackend | None = None,
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
        super().__init__(host, port, send_timeout=send_timeout, keepalive=keepalive, what="display")
        self._backend = backend
        self._language = language
        self._supervisor_pin = supervisor_pin
        self._pit_token = pit_token
        self._clock = clock
        self._pin = SupervisorPin(supervisor_pin, clock=clock, security_alarm=backend.security_alarm)
        self._staff = staff  # the staff registry rules the table (None: the shared supervisor PIN, no login)
        self._staff_pins = (StaffPins(staff.verify_pin, clock=clock, security_alarm=backend.security_alarm)
                            if staff is not None else None)
        self._hosts = HostAllowlist(host, allowed_hosts)
        self.recall_gate = RecallGate(backend.recall, clock=clock)
        self._api_clients: dict[str, RecallClient] = {}
        self._screen_numbers = itertools.count(1)

    @property
    def url(self) -> str:
        """The dealer page's address (on this machine when bound to every interface)."""
        return page_url(self._host, self._port)

    async def __aenter__(self) -> Self:
        app = web.Application(client_max_size=64 * 1024, middlewares=[self._hosts.middleware])
        app.router.add_get("/", self._page)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/api/snapshot", self._api_snapshot)
        app.router.add_get("/api/recall", self._api_recall)
        app.router.add_static("/static/", STATIC_DIR, append_version=False)
        await self._start(app)
        log.info("dealer display on %s", self.url)
        if not is_loopback_host(self._host):
            log.warning("the display listens beyond this machine on %s:%d: the pit view is open to whoever has "
                        "its token (firewall the port to the pit's network)", self._host or "0.0.0.0", self._port)
        return self

    async def publish(self, snapshot: dict[str, Any]) -> None:
        """Send `snapshot` to every connected page; returns at once, a slow page gets only the newest. The dealer's
        screens get it without the advice for the supervisor (`for_the_dealer`, core/alarm_ledger.py); the pit's,
        whole."""
        text = _snapshot_message(snapshot)
        dealer_view = for_the_dealer(snapshot)
        dealer = text if dealer_view is snapshot else _snapshot_message(dealer_view)
        for screen in self._screens:
            screen.push_picture(text if screen.role == "pit" else dealer)

    # --- HTTP ---------------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.StreamResponse:
        self._role_of(request)
        return web.FileResponse(STATIC_DIR / "index.html")

    async def _api_snapshot(self, request: web.Request) -> web.Response:
        role = self._role_of(request)
        snapshot = self._backend.snapshot()
        return web.json_response(snapshot if role == "pit" else for_the_dealer(snapshot))

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
        origin = foreign_origin(request)
        if origin is not None:
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
        screen = _Screen(ws, request, role, f"screen {next(self._screen_numbers)} ({request.remote})")
        screen.push_message(
            {
                "type": "hello",
                "role": role,
                "language": self._language,
                "supervisor": (self._supervisor_pin is not None or self._staff is not None) and role == "dealer",
                "keepalive_s": self._keepalive,
                **({"staff": True} if self._staff is not None else {}),  # the staff registry: logins, own PINs
            }
        )
        # No await between reading the snapshot and joining: no publish can slip in between.
        snapshot = self._backend.snapshot()
        screen.push_picture(_snapshot_message(snapshot if role == "pit" else for_the_dealer(snapshot)))
        await self._serve(screen, self._receive_loop)
        return ws

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
            elif kind == "ratings":
                screen.push_message(await self._ratings(screen, request))
            elif kind in ("login", "logout"):
                screen.push_message({"type": kind, "request": request.get("request"),
                                     **await self._shift(screen, kind, request)})
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

    async def _ratings(self, screen: _Screen, request: dict[str, Any]) -> dict[str, Any]:
        """The supervisor's view of the rated players and the advice (docs/rating.md): the pit's view sees it, a
        dealer's screen only with the supervisor's PIN (pin_guard.py: its wrong PINs count like VOID's)."""
        reply: dict[str, Any] = {"type": "ratings", "request": request.get("request")}
        if screen.role != "pit":
            if self._staff is not None:
                _, refusal = await self._supervisor("RATINGS", screen, request)
            else:
                refusal = await self._pin.check("RATINGS", request.get("pin"), address=screen.address,
                                                screen=screen.name)
            if refusal is not None:
                return {**reply, "ok": False, **refusal}
        dealers = {} if self._staff is None else {"dealers": await self._staff.dealer_work()}
        return {**reply, "ok": True, **self._backend.ratings(), **dealers}

    async def _supervisor(self, name: str, screen: _Screen, request: dict[str, Any]
                          ) -> tuple[str | None, dict[str, Any] | None]:
        """Where a staff registry rules the table: the supervisor who acts (his badge just swiped, or his employee
        id and own PIN), or why not. A PIN with no employee id is the shared supervisor PIN: refused."""
        assert self._staff is not None and self._staff_pins is not None
        if request.get("badge") is True:
            employee = self._staff.supervisor_badge()
            if employee is None:
                return None, {"message": f"{name}: no supervisor badged at the table's reader just before: badge "
                                         "again, or enter your employee id and PIN", "reason": "no_badge"}
        elif request.get("employee"):  # an empty id with a PIN is the shared supervisor PIN: refused below
            employee, refusal = await self._staff_pins.check(name, request.get("employee"), request.get("pin"),
                                                             address=screen.address, screen=screen.name)
            if employee is None:
                return None, refusal
        else:
            return None, {"message": f"{name} needs the supervisor's own badge or PIN: the shared supervisor PIN is "
                                     "not accepted", "reason": "needs_own_credential"}
        if not employee.may(StaffRole.SUPERVISOR):
            return None, {"message": f"{name}: {employee.employee_id} is not an active supervisor",
                          "reason": "needs_supervisor"}
        return employee.employee_id, None

    async def _shift(self, screen: _Screen, kind: str, request: dict[str, Any]) -> dict[str, Any]:
        """A dealer's login (his employee id and own PIN) or logout, where a staff registry rules the table."""
        if screen.role == "pit":
            return {"ok": False, "message": "pit view is read-only", "reason": "read_only"}
        if self._staff is None or self._staff_pins is None:
            return {"ok": False, "message": "no staff registry on this table", "reason": "no_staff"}
        if kind == "logout":
            return await self._staff.log_out()
        employee, refusal = await self._staff_pins.check("LOGIN", request.get("employee"), request.get("pin"),
                                                         address=screen.address, screen=screen.name)
        if employee is None:
            return {"ok": False, **(refusal or {})}
        if not employee.may(StaffRole.DEALER):
            return {"ok": False, "message": f"{employee.employee_id} is not an active dealer", "reason": "not_a_dealer"}
        return {**await self._staff.log_in(employee.employee_id, "pin"), "name": employee.name}

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
        employee: str | None = None
        # ACK_ALARM carries the PIN when the alarm needs the supervisor (the snapshot says which); the
        # runtime refuses such an alarm from the dealer, so a page that leaves the PIN out changes nothing.
        if name in SUPERVISOR_COMMANDS or (name == "ACK_ALARM" and {"pin", "employee", "badge"} & set(request)):
            if self._staff is not None:  # that supervisor's own badge or PIN, never the shared one
                employee, refusal = await self._supervisor(name, screen, request)
            else:
                refusal = await self._pin.check(name, request.get("pin"), address=screen.address,
                                                screen=screen.name)
            if refusal is not None:
                return {**base, "ok": False, **refusal}
            acting = "supervisor"
        try:
            async with asyncio.timeout(COMMAND_TIMEOUT_S):
                if employee is not None and self._staff is not None:
                    result = await self._staff.command_by(name, args, role=acting, employee=employee)
                else:
                    result = await self._backend.command(name, args, role=acting)
        except TimeoutError:
            return {**base, "ok": False, "message": "no answer from the table", "reason": "no_answer"}
        except TableError as error:
            return {**base, "ok": False, "message": str(error)}
        except Exception as error:
            # A bug in the runtime must not cut the dealer's screen off; it is logged in full.
            log.exception("display: the backend failed on %s", name)
            return {**base, "ok": False, "message": f"the table could not apply {name}: {error!r}", "reason": "failed"}
        reply = {**base, "ok": bool(result.get("ok")), "message": str(result.get("message", ""))}
        if result.get("reason"):  # why the table refused it (game/refusals.py): the page words it by this code
            reply["reason"] = str(result["reason"])
        return reply


def _recall_count(value: object) -> int:
    try:
        count = int(str(value)) if value is not None else RECALL_DEFAULT_ROUNDS
    except ValueError:
        count = RECALL_DEFAULT_ROUNDS
    return max(1, min(RECALL_MAX_ROUNDS, count))




def _snapshot_message(snapshot: dict[str, Any]) -> str:
    return json.dumps({"type": "snapshot", "snapshot": snapshot}, separators=(",", ":"))
