"""The floor's request that a table authenticate its installed program, with a verifier's seed, and the answer.

The floor publishes on ``{prefix}/tables/{tableId}/verify/request``::

    {"type": "VerifyRequest", "request_id": "<the floor's id>", "floor_id": "<floor>",
     "reply_to": "{prefix}/floor/{floor_id}/verify", "seed": "<hex, optional>", "mac": "<64 hex>"}

``mac`` is made as a replay request's (replay_messages.py `request_mac`: HMAC-SHA256 of the canonical JSON without
``mac``, under the secret the table and the floor share): MQTT does not say who published, the MAC is the floor's
identity. A request with a wrong MAC gets nothing but a log line. A signed one is checked in the table's process
of checks (runtime/program_watch.py), its result journaled as a `verification` row (published on ``events`` like
every row) and answered on ``reply_to`` with `VerifyDone` (the row's seq, the manifest's SHA-256, the HMAC under
the seed, the files not as released); one the table does not serve (a field malformed, a request id answered
already, more than `PER_HOUR` an hour) gets `VerifyRefused` naming why.
"""

from __future__ import annotations

import collections
import hmac
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import aiomqtt

from table_runtime.feed.messages import Topics, encode_payload
from table_runtime.feed.pipeline import publish_all
from table_runtime.feed.replay_messages import request_mac
from table_runtime.feed.request_tasks import RequestTasks

logger = logging.getLogger("table_runtime.feed.verify")

REQUEST_TYPE: Final = "VerifyRequest"
DONE_TYPE: Final = "VerifyDone"
REFUSED_TYPE: Final = "VerifyRefused"
REQUEST_FIELDS: Final = frozenset({"type", "request_id", "floor_id", "reply_to", "seed", "mac"})
MAX_SEED_BYTES: Final = 64
PER_HOUR: Final = 12  # checks a floor may ask for an hour (each reads the whole installation)
REMEMBERED_IDS: Final = 1000
ANSWERED: Final = ("intact", "files", "manifest_sha256", "seed", "hmac_sha256", "changed", "missing", "added",
                   "problem")  # of the `verification` row, in VerifyDone

Verify = Callable[..., Awaitable[dict[str, Any]]]  # ProgramWatch.verify(seed, by=..., request=...)


class VerifyRequestError(ValueError):
    """A request the table does not serve; `mac_ok`: whether it was the floor's (then it is told `reason`)."""

    def __init__(self, reason: str, *, mac_ok: bool, request_id: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.mac_ok = mac_ok
        self.request_id = request_id


@dataclass(frozen=True, slots=True)
class VerifyRequest:
    """A request whose MAC checked."""

    request_id: str
    floor_id: str
    reply_to: str
    seed: bytes | None


def request_topic(prefix: str, table_id: str) -> str:
    return f"{prefix}/tables/{table_id}/verify/request"


def reply_topic(prefix: str, floor_id: str) -> str:
    return f"{prefix}/floor/{floor_id}/verify"


def build_request(secret: bytes, *, prefix: str, request_id: str, floor_id: str,
                  seed: bytes | None = None) -> dict[str, Any]:
    """A signed request, as the floor publishes it on `request_topic`."""
    request: dict[str, Any] = {"type": REQUEST_TYPE, "request_id": request_id, "floor_id": floor_id,
                               "reply_to": reply_topic(prefix, floor_id)}
    if seed:
        request["seed"] = seed.hex()
    request["mac"] = request_mac(secret, request)
    return request


def check_request(secret: bytes, payload: object, *, prefix: str) -> VerifyRequest:
    """The request in `payload` if its MAC is right and its fields well formed; else `VerifyRequestError` (the MAC
    first: nothing but its verdict is said of a message the floor did not sign)."""
    if not isinstance(payload, Mapping) or payload.get("type") != REQUEST_TYPE:
        raise VerifyRequestError("not a VerifyRequest", mac_ok=False)
    mac = payload.get("mac")
    if not isinstance(mac, str) or len(mac) != 64:
        raise VerifyRequestError("no mac", mac_ok=False)
    try:
        expected = request_mac(secret, payload)
    except (TypeError, ValueError) as error:
        raise VerifyRequestError(f"not JSON: {error}", mac_ok=False) from error
    if not hmac.compare_digest(expected, mac):
        raise VerifyRequestError("wrong mac", mac_ok=False)
    request_id = payload.get("request_id")
    if not isinstance(request_id, str) or not request_id:
        raise VerifyRequestError("request_id must be a non-empty string", mac_ok=True)
    unknown = sorted(set(payload) - REQUEST_FIELDS)
    if unknown:
        raise VerifyRequestError(f"unknown fields {', '.join(unknown)}", mac_ok=True, request_id=request_id)
    floor_id = payload.get("floor_id")
    if not isinstance(floor_id, str) or not floor_id or any(char in floor_id for char in "+#/\0"):
        raise VerifyRequestError("floor_id must be a name usable in a topic", mac_ok=True, request_id=request_id)
    if payload.get("reply_to") != reply_topic(prefix, floor_id):
        raise VerifyRequestError(f"reply_to must be {reply_topic(prefix, floor_id)}", mac_ok=True,
                                 request_id=request_id)
    seed_text = payload.get("seed", "")
    try:
        seed = bytes.fromhex(seed_text) if isinstance(seed_text, str) else None
    except ValueError:
        seed = None
    if seed is None or len(seed) > MAX_SEED_BYTES:
        raise VerifyRequestError(f"seed must be hex, at most {MAX_SEED_BYTES} bytes", mac_ok=True,
                                 request_id=request_id)
    return VerifyRequest(request_id, floor_id, payload["reply_to"], seed or None)


def verify_done(request_id: str, result: Mapping[str, Any]) -> dict[str, Any]:
    """The answer: the `verification` row's seq and what it found."""
    return {"type": DONE_TYPE, "request_id": request_id, "seq": result.get("seq"),
            **{key: result.get(key) for key in ANSWERED}}


def verify_refused(request_id: str, reason: str) -> dict[str, Any]:
    return {"type": REFUSED_TYPE, "request_id": request_id, "reason": reason}


class VerifyResponder:
    """Serves one table's verify requests on the publisher's connection: checked, admitted, one at a time."""

    def __init__(self, secret: bytes, topics: Topics, verify: Verify, *, publish_timeout: float = 10.0,
                 per_hour: int = PER_HOUR, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._secret = secret
        self._topics = topics
        self._verify = verify
        self._timeout = publish_timeout
        self._per_hour = per_hour
        self._monotonic = monotonic
        self._accepted: collections.deque[float] = collections.deque()
        self._answered: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._tasks = RequestTasks()
        self.served = 0
        self.refused = 0
        self.ignored = 0

    @property
    def topic(self) -> str:
        return request_topic(self._topics.prefix, self._topics.table_id)

    def offer(self, client: aiomqtt.Client, payload: object) -> None:
        """A message on the request topic: checked and served in a task of its own."""
        self._tasks.start(self._handle(client, payload))

    async def close(self) -> None:
        """Stop serving (the connection is going): a check under way is the floor's to ask again."""
        await self._tasks.close()

    async def _handle(self, client: aiomqtt.Client, raw: object) -> None:
        try:
            await self._serve(client, raw)
        except (aiomqtt.MqttError, TimeoutError) as error:
            logger.warning("verify: answer on %s not delivered: %s", self.topic, error)

    async def _serve(self, client: aiomqtt.Client, raw: object) -> None:
        try:
            payload = json.loads(raw) if isinstance(raw, (bytes, bytearray, str)) else None
        except ValueError:
            payload = None
        try:
            request = check_request(self._secret, payload, prefix=self._topics.prefix)
        except VerifyRequestError as error:
            if not error.mac_ok:
                self.ignored += 1
                logger.warning("verify: message on %s ignored: %s", self.topic, error.reason)
                return
            assert isinstance(payload, Mapping)
            floor = payload.get("floor_id")
            if isinstance(floor, str) and floor and not any(char in floor for char in "+#/\0"):
                await self._send(client, reply_topic(self._topics.prefix, floor),
                                 verify_refused(error.request_id, error.reason))
            self.refused += 1
            return
        reason = self._admit(request)
        if reason is not None:
            self.refused += 1
            logger.warning("verify: request %s refused: %s", request.request_id, reason)
            await self._send(client, request.reply_to, verify_refused(request.request_id, reason))
            return
        result = await self._verify(request.seed, by="floor",
                                    request={"request_id": request.request_id, "floor_id": request.floor_id})
        await self._send(client, request.reply_to, verify_done(request.request_id, result))
        self.served += 1

    def _admit(self, request: VerifyRequest) -> str | None:
        if request.request_id in self._answered:
            return f"request_id {request.request_id} was already answered"
        now = self._monotonic()
        while self._accepted and now - self._accepted[0] >= 3600.0:
            self._accepted.popleft()
        if len(self._accepted) >= self._per_hour:
            return f"rate limit: at most {self._per_hour} checks an hour"
        self._accepted.append(now)
        self._answered[request.request_id] = None
        while len(self._answered) > REMEMBERED_IDS:
            self._answered.popitem(last=False)
        return None

    async def _send(self, client: aiomqtt.Client, topic: str, message: dict[str, Any]) -> None:
        await publish_all(client, None, [(topic, encode_payload(message), 1, False)], publish_timeout=self._timeout)
