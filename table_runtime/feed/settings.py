"""Where and how the feed connects: broker URL, credentials, TLS, pacing.

Credentials come from a file or the environment, never from the URL, and never
appear in a repr or a log line: the password is a `Secret`.

Configuration keys (a ``[feed]`` table, or command-line options)::

    url = "mqtts://broker.pit.local:8883"   # mqtt:// (default port 1883) or mqtts:// (8883)
    fallback_urls = ["mqtts://broker2.pit.local:8883"]   # tried in order when `url` cannot be used
    failback_interval = 30.0                # seconds between two tries of `url` while on a fallback
    prefix = "casino"
    username = "table-t1"                   # or TABLE_MQTT_USERNAME
    password_file = "/etc/table/mqtt.pw"    # or TABLE_MQTT_PASSWORD / TABLE_MQTT_PASSWORD_FILE
    ca_file = "/etc/table/ca.pem"           # mqtts: trust this CA instead of the system's
    cert_file = "/etc/table/t1.pem"         # mqtts: client certificate ...
    key_file = "/etc/table/t1.key"          # ... and its key
    head_interval = 5.0                     # seconds between two retained ``head`` messages at most
    replay_secret_env = "TABLE_REPLAY_SECRET"  # the variable holding the floor's replay secret (absent: no replay)
    head_key_env = "TABLE_HEAD_KEY"         # the variable holding the table's own head key (absent: heads unsigned)
    rows_per_message = 1                    # above 1: pending rows sent as one ``events`` message of version 2
                                            # (``JournalRows``, feed/row_batches.py); 1 keeps version 1 messages
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from table_runtime.errors import ConfigError
from table_runtime.feed.messages import DEFAULT_PREFIX, Topics
from table_runtime.feed.replay_messages import MIN_SECRET_BYTES
from table_runtime.text_files import InputFileError, read_text

ENV_USERNAME = "TABLE_MQTT_USERNAME"
ENV_PASSWORD = "TABLE_MQTT_PASSWORD"
ENV_PASSWORD_FILE = "TABLE_MQTT_PASSWORD_FILE"
DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883}
MAX_ROWS_PER_MESSAGE = 1000  # of `rows_per_message`; a message's bytes are bounded too (feed/row_batches.py)


class Secret:
    """A string that never shows itself in repr, str or logs; `reveal()` to use it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    """A parsed broker URL: ``mqtt://host[:port]`` or ``mqtts://host[:port]``."""

    host: str
    port: int
    tls: bool

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def parse_broker_url(url: str, *, key: str = "feed.url") -> tuple[BrokerAddress, str | None]:
    """The address and the user name (if the URL has one) of a broker URL."""
    if not isinstance(url, str) or not url:
        raise ConfigError(key, "a broker URL like mqtt://127.0.0.1:1883 is required")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ConfigError(key, f"scheme must be mqtt:// or mqtts://, not {parts.scheme or 'none'}://")
    if parts.password is not None:
        raise ConfigError(key, f"no password in the URL: use a password file or {ENV_PASSWORD}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ConfigError(key, "a broker URL has no path, query or fragment")
    try:
        port = parts.port
    except ValueError as error:
        raise ConfigError(key, f"bad port: {error}") from error
    if not parts.hostname:
        raise ConfigError(key, "the URL names no host")
    host = parts.hostname
    return BrokerAddress(host, port if port is not None else DEFAULT_PORTS[scheme], scheme == "mqtts"), parts.username


@dataclass(frozen=True, slots=True)
class FeedSettings:
    """Everything the publisher needs, checked once; see the module docstring for the keys."""

    broker: BrokerAddress  # the preferred broker
    table_id: str
    fallbacks: tuple[BrokerAddress, ...] = ()  # tried in order while `broker` cannot be used (same credentials)
    failback_interval: float = 30.0  # while on a fallback, seconds between two tries of `broker`
    prefix: str = DEFAULT_PREFIX
    username: str | None = None
    password: Secret | None = field(default=None, repr=False)
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    client_id: str | None = None
    keepalive: int = 15
    batch_size: int = 500
    max_inflight: int = 100
    backoff_initial: float = 0.5
    backoff_max: float = 30.0
    poll_interval: float = 1.0
    publish_timeout: float = 10.0
    resend_on_connect: int = 1000
    cursor_key: str = "feed.mqtt.cursor"
    head_interval: float = 5.0
    replay_secret: Secret | None = field(default=None, repr=False)  # the floor's MAC key; None: no replay served
    head_key: Secret | None = field(default=None, repr=False)  # the table's own key signing its heads (feed/heads.py)
    rows_per_message: int = 1  # 1: version 1 ``events`` messages; more: ``JournalRows`` of up to so many rows

    def __post_init__(self) -> None:
        Topics(self.prefix, self.table_id)  # checks both
        if self.keepalive < 1:
            raise ConfigError("feed.keepalive", "must be at least 1 second")
        if self.resend_on_connect < 0:
            raise ConfigError("feed.resend_on_connect", "must be 0 or more")
        if self.max_inflight < 1:
            raise ConfigError("feed.max_inflight", "must be at least 1")
        if self.batch_size < 1:
            raise ConfigError("feed.batch_size", "must be at least 1")
        if not 1 <= self.rows_per_message <= MAX_ROWS_PER_MESSAGE:
            raise ConfigError("feed.rows_per_message", f"must be 1 to {MAX_ROWS_PER_MESSAGE} (1: one row a message, "
                                                       "version 1)")
        if not 0 < self.backoff_initial <= self.backoff_max:
            raise ConfigError("feed.backoff_initial", "must be positive and at most feed.backoff_max")
        if self.poll_interval <= 0:
            raise ConfigError("feed.poll_interval", "must be positive")
        if self.publish_timeout <= 0:
            raise ConfigError("feed.publish_timeout", "must be positive")
        if not 0 < self.head_interval <= 5.0:
            raise ConfigError("feed.head_interval", "must be positive and at most 5 seconds")
        if self.replay_secret is not None and len(self.replay_secret.reveal().encode()) < MIN_SECRET_BYTES:
            raise ConfigError("feed.replay_secret_env", f"the replay secret must be at least {MIN_SECRET_BYTES} bytes")
        if self.head_key is not None and len(self.head_key.reveal().encode()) < MIN_SECRET_BYTES:
            raise ConfigError("feed.head_key_env", f"the head key must be at least {MIN_SECRET_BYTES} bytes")
        if (self.cert_file is None) != (self.key_file is None):
            raise ConfigError("feed.cert_file", "a client certificate needs both cert_file and key_file")
        if (self.ca_file or self.cert_file) and not self.broker.tls:
            raise ConfigError("feed.url", "ca_file/cert_file given but the URL is not mqtts://")
        if (self.ca_file or self.cert_file) and not all(broker.tls for broker in self.fallbacks):
            raise ConfigError("feed.fallback_urls", "ca_file/cert_file given but a fallback URL is not mqtts://")
        if self.failback_interval <= 0:
            raise ConfigError("feed.failback_interval", "must be positive")

    @property
    def brokers(self) -> tuple[BrokerAddress, ...]:
        """Every broker the feed may use, the preferred first."""
        return (self.broker, *self.fallbacks)

    @property
    def topics(self) -> Topics:
        return Topics(self.prefix, self.table_id)

    @property
    def head_key_bytes(self) -> bytes | None:
        """The head key as the MAC takes it (UTF-8), None without one."""
        return None if self.head_key is None else self.head_key.reveal().encode("utf-8")

    @property
    def identifier(self) -> str:
        return self.client_id or f"table-{self.table_id}-feed"

    def tls_context(self, broker: BrokerAddress | None = None) -> ssl.SSLContext | None:
        """The TLS context for `broker` (default: the preferred) on mqtts:// (system CAs unless `ca_file`), None
        for mqtt://."""
        return tls_context(broker or self.broker, self.ca_file, self.cert_file, self.key_file)

    @classmethod
    def from_mapping(
        cls, mapping: Mapping[str, Any], *, table_id: str | None = None, environ: Mapping[str, str] | None = None
    ) -> FeedSettings:
        """Settings from a ``[feed]`` table; secrets from `environ` (default: the process environment)."""
        env = os.environ if environ is None else environ
        known = {
            "url", "table_id", "prefix", "username", "password_file", "ca_file", "cert_file", "key_file",
            "client_id", "keepalive", "batch_size", "max_inflight", "backoff_initial", "backoff_max", "poll_interval",
            "publish_timeout", "resend_on_connect", "cursor_key", "head_interval", "replay_secret_env", "head_key_env",
            "fallback_urls", "failback_interval", "rows_per_message",
        }  # fmt: skip
        for key in mapping:
            if key not in known:
                raise ConfigError(f"feed.{key}", "unknown key")
        broker, url_user = parse_broker_url(mapping.get("url", ""))
        table = table_id if table_id is not None else mapping.get("table_id")
        if not isinstance(table, str):
            raise ConfigError("feed.table_id", "a table id is required")
        username, password = credentials(mapping, url_user, env)
        kwargs: dict[str, Any] = {}
        for key, kind in (
            ("keepalive", int), ("batch_size", int), ("max_inflight", int), ("backoff_initial", float),
            ("backoff_max", float), ("poll_interval", float), ("publish_timeout", float), ("resend_on_connect", int),
            ("head_interval", float), ("failback_interval", float), ("rows_per_message", int),
        ):  # fmt: skip
            if key in mapping:
                value = mapping[key]
                if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and value % 1):
                    raise ConfigError(f"feed.{key}", f"must be a number{' of whole units' if kind is int else ''}")
                kwargs[key] = kind(value)
        for key in ("prefix", "client_id", "cursor_key"):
            if key in mapping:
                if not isinstance(mapping[key], str):
                    raise ConfigError(f"feed.{key}", "must be a string")
                kwargs[key] = mapping[key]
        for key in ("ca_file", "cert_file", "key_file"):
            if mapping.get(key) is not None:
                kwargs[key] = _existing_file(f"feed.{key}", mapping[key])
        if "replay_secret_env" in mapping:
            kwargs["replay_secret"] = replay_secret(mapping["replay_secret_env"], env, key="feed.replay_secret_env")
        if "head_key_env" in mapping:
            kwargs["head_key"] = replay_secret(mapping["head_key_env"], env, key="feed.head_key_env", what="head key")
        kwargs["fallbacks"] = fallback_brokers(mapping.get("fallback_urls", []), key="feed.fallback_urls")
        return cls(broker=broker, table_id=table, username=username, password=password, **kwargs)


def fallback_brokers(urls: object, *, key: str) -> tuple[BrokerAddress, ...]:
    """The fallback brokers of a list of URLs (no user name or password in them: the preferred URL's credentials
    serve every broker)."""
    if not isinstance(urls, (list, tuple)):
        raise ConfigError(key, "a list of broker URLs")
    brokers: list[BrokerAddress] = []
    for index, url in enumerate(urls):
        broker, user = parse_broker_url(url, key=f"{key}[{index}]")
        if user is not None:
            raise ConfigError(f"{key}[{index}]", "no user name in a fallback URL: the feed's credentials serve it")
        brokers.append(broker)
    return tuple(brokers)


def replay_secret(name: object, environ: Mapping[str, str], *, key: str, what: str = "replay secret") -> Secret:
    """The secret (the replay secret, a head key) held by the environment variable `name` (the configuration
    names it, never holds it)."""
    if not isinstance(name, str) or not name:
        raise ConfigError(key, "must name an environment variable")
    value = environ.get(name)
    if not value:
        raise ConfigError(key, f"the environment variable {name} (the {what}) is not set")
    if len(value.encode()) < MIN_SECRET_BYTES:
        raise ConfigError(key, f"the {what} in {name} must be at least {MIN_SECRET_BYTES} bytes")
    return Secret(value)


def credentials(
    mapping: Mapping[str, Any], url_user: str | None, environ: Mapping[str, str], *, key: str = "feed",
    env: tuple[str, str, str] = (ENV_USERNAME, ENV_PASSWORD, ENV_PASSWORD_FILE),
) -> tuple[str | None, Secret | None]:
    """User name and password: environment first, then the configuration (a file for the password).

    `key` is the section errors name (``feed``; the floor's ``brokers[0]``); `env` the variables' names for
    the user name, the password and the password file (the table's; the floor has its own)."""
    env_username, env_password, env_password_file = env
    username = environ.get(env_username) or mapping.get("username") or url_user
    if username is not None and not isinstance(username, str):
        raise ConfigError(f"{key}.username", "must be a string")
    password: Secret | None = None
    if environ.get(env_password):
        password = Secret(environ[env_password])
    else:
        source_key, source = (
            (env_password_file, environ.get(env_password_file))
            if environ.get(env_password_file)
            else (f"{key}.password_file", mapping.get("password_file"))
        )
        if source is not None:
            path = _existing_file(source_key, source)
            try:
                text = read_text(path)
            except InputFileError as error:
                raise ConfigError(source_key, f"the password file {error}") from error
            password = Secret(text.rstrip("\r\n"))
    if password is not None and username is None:
        raise ConfigError(f"{key}.username", "a password is configured but no user name")
    return username, password


def _existing_file(key: str, value: Any) -> Path:
    if not isinstance(value, (str, os.PathLike)):
        raise ConfigError(key, "must be a file path")
    path = Path(value)
    if not path.is_file():
        raise ConfigError(key, f"{path}: no such file")
    return path


def tls_context(
    broker: BrokerAddress, ca_file: Path | None, cert_file: Path | None, key_file: Path | None
) -> ssl.SSLContext | None:
    if not broker.tls:
        return None
    try:
        context = ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
        if cert_file is not None:
            context.load_cert_chain(str(cert_file), str(key_file) if key_file else None)
    except (OSError, ssl.SSLError) as error:
        raise ConfigError("feed.ca_file" if cert_file is None else "feed.cert_file", f"TLS: {error}") from error
    return context
