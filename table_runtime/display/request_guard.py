"""What the display checks before it reads a request: the address it is bound to, the Host a request names,
and the size and nesting of a screen's message.

- Bind: beyond loopback (``0.0.0.0``, a LAN address, a host name) the display serves the pit view to other
  machines, so it needs the pit token; without one it refuses to start (`check_bind`).
- Host: a page of another site can make the browser resolve its own name to 127.0.0.1 (DNS rebinding) and
  then talk to the display as if from this machine, with a matching Origin. The Host header still names
  that site, so every request (page, static files, API, WebSocket) whose Host is not a loopback name, the
  bound address or one listed in ``display.allowed_hosts`` gets 421 and one line (`HostAllowlist`).
- Commands: the arguments the display checks itself before the runtime sees them (`check_command_args`).
- Messages: a screen's message is at most `MESSAGE_MAX_BYTES` and nests at most `MESSAGE_MAX_DEPTH` arrays
  and objects, checked by scanning the brackets outside strings before `json.loads` (which recurses once
  per level and would raise RecursionError on a 30,000-deep array) (`parse_message`).
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from aiohttp import web

from table_runtime.errors import CardCodeError, ConfigError
from table_runtime.game.cards import Card

MESSAGE_MAX_BYTES = 64 * 1024  # a screen's command or recall request is well under 1 KiB
MESSAGE_MAX_DEPTH = 32  # arrays and objects inside each other: a command nests three
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
_SIGNIFICANT = re.compile(r'[\[\]{}"\\]')  # what changes the depth or whether we are inside a string

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def is_loopback_host(host: str) -> bool:
    """Whether a host name or address stays on this machine (``127.0.0.1``, ``::1``, ``localhost``)."""
    name = host.strip("[]").rstrip(".").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, pit_token: str | None) -> None:
    """Refuse a bind beyond loopback without the pit token: one `ConfigError` naming the key."""
    if pit_token is None and not is_loopback_host(host):
        raise ConfigError("display.pit_token", f"display.host {host or '0.0.0.0'!r} serves other machines: "
                                               "set the pit token (TABLE_PIT_TOKEN or display.pit_token_file) "
                                               "or bind 127.0.0.1")


def host_name(header: str) -> str:
    """The name part of a Host header, lower case, without the port (``[::1]:8080`` -> ``::1``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    if header.count(":") == 1:
        return header.split(":", 1)[0]
    return header.rstrip(".")


class HostAllowlist:
    """The names a request's Host may carry: loopback, the bound address, and the configured ones."""

    def __init__(self, bound: str, allowed: Iterable[str] = (), *, server: str = "display",
                 key: str = "display.allowed_hosts") -> None:
        self._refusal = f"is not this {server}'s name ({key} lists the others)"
        names = {host_name(name) for name in allowed}
        if bound and not is_loopback_host(bound) and bound not in ("0.0.0.0", "::"):
            names.add(host_name(bound if ":" not in bound else f"[{bound}]"))
        self.names = frozenset(names)

    def allows(self, header: str | None) -> bool:
        if not header:
            return False  # HTTP/1.1 requires Host; a browser always sends it
        name = host_name(header)
        return is_loopback_host(name) or name in self.names

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        header = request.headers.get("Host")
        if not self.allows(header):
            raise web.HTTPMisdirectedRequest(
                text=f"host {header!r} {self._refusal}")
        return await handler(request)


class MessageRefused(ValueError):
    """A screen's message the display does not parse: too large, too deep, not JSON."""


def nesting_depth(text: str, *, stop_above: int | None = None) -> int:
    """How deep arrays and objects nest in JSON `text`, counting only brackets outside strings.

    One linear pass over the characters that matter (brackets, quotes, backslashes), no recursion; on text
    that is not JSON it still returns a number, and `json.loads` refuses the text afterwards. With
    `stop_above`, the scan ends at the first level deeper than that (its depth is returned).
    """
    depth = deepest = 0
    in_string = False
    escaped_at = -1  # the position a backslash inside a string makes literal
    for match in _SIGNIFICANT.finditer(text):
        char, position = match.group(), match.start()
        if in_string:
            if position == escaped_at:
                continue
            if char == "\\":
                escaped_at = position + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if stop_above is not None and depth > stop_above:
                break
        elif char in "]}":
            depth -= 1
    return deepest


def parse_message(text: str) -> dict[str, Any]:
    """A screen's message as an object, or `MessageRefused` saying why (the reply the screen gets)."""
    if len(text) > MESSAGE_MAX_BYTES:
        raise MessageRefused(f"message too large: {len(text)} characters, at most {MESSAGE_MAX_BYTES}")
    if nesting_depth(text, stop_above=MESSAGE_MAX_DEPTH) > MESSAGE_MAX_DEPTH:
        raise MessageRefused(f"message nested too deep: at most {MESSAGE_MAX_DEPTH} arrays and objects inside "
                             "each other")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError) as error:  # RecursionError: a guard behind the depth check
        raise MessageRefused("not JSON") from error
    if not isinstance(message, dict):
        raise MessageRefused("expected an object")
    return message


def check_command_args(name: str, args: dict[str, Any]) -> str | None:
    """What is wrong with a command's arguments (None: nothing); MANUAL_CARD's card is normalised in place."""
    if name == "MANUAL_CARD":
        card = args.get("card")
        if not isinstance(card, str):
            return "MANUAL_CARD needs a card, e.g. QS"
        try:
            args["card"] = Card.parse(card).code
        except CardCodeError as error:
            return str(error)
    elif name == "ACK_ALARM":
        alarm = args.get("id")
        if not isinstance(alarm, int) or isinstance(alarm, bool):
            return "ACK_ALARM needs the alarm id"
    return None
