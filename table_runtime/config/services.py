"""The sections of what the table talks to and waits for: `[mqtt]` (the feed), `[display]`, `[metrics]`, `[clock]`."""

from __future__ import annotations

import ipaddress
import re
from typing import Any
from urllib.parse import urlsplit

from table_runtime.config.model import (
    ENV_MQTT_PASSWORD,
    ENV_PIT_TOKEN,
    ENV_SUPERVISOR_PIN,
    LANGUAGES,
    ClockConfig,
    DisplayConfig,
    JournalConfig,
    MetricsConfig,
    MqttConfig,
    SeanceConfig,
)
from table_runtime.config.reader import Reader, kind_of
from table_runtime.feed.replay_messages import MIN_SECRET_BYTES
from table_runtime.feed.settings import MAX_ROWS_PER_MESSAGE

_TOPIC_PREFIX = re.compile(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*")
_HOST_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?")


def redacted_url(url: str) -> str:
    """`url` without the password it may carry (``mqtt://user:***@host``), for a problem or a log line."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return parts._replace(netloc=f"{parts.username}:***@{host}").geturl()


def read_mqtt(reader: Reader, document: dict[str, Any], table_id: str) -> MqttConfig:
    prefix = "mqtt"
    table = reader.table(document, "mqtt", "", allowed={"url", "fallback_urls", "failback_interval", "prefix",
                                                        "username", "password_file", "ca_file", "cert_file",
                                                        "key_file", "client_id", "replay_secret_env", "head_key_env",
                                                        "rows_per_message"})
    url = reader.value(table, "url", prefix, str, "") or None
    if url is not None:
        _check_broker_url(reader, "mqtt.url", url)
    fallback_urls: list[str] = reader.value(table, "fallback_urls", prefix, list, [])
    for index, fallback in enumerate(fallback_urls):
        key = f"mqtt.fallback_urls[{index}]"
        if not isinstance(fallback, str):
            reader.problem(key, f"expected a broker URL, not {kind_of(fallback)}")
            continue
        _check_broker_url(reader, key, fallback)
        if urlsplit(fallback).username is not None:
            reader.problem(key, "no user name in a fallback URL: mqtt.username serves every broker")
    if fallback_urls and url is None:
        reader.problem("mqtt.fallback_urls", "fallback brokers without mqtt.url (the preferred broker)")
    failback_interval = reader.value(table, "failback_interval", prefix, float, 30.0)
    if failback_interval <= 0:
        reader.problem("mqtt.failback_interval", f"{failback_interval}: seconds, above 0")
    topic_prefix = reader.value(table, "prefix", prefix, str, "casino")
    if not _TOPIC_PREFIX.fullmatch(topic_prefix):
        reader.problem("mqtt.prefix", f"{topic_prefix!r}: topic levels of letters, digits, '-', '_' and '/'")
    ca_file = reader.path(table, "ca_file", prefix, must_exist=True)
    cert_file = reader.path(table, "cert_file", prefix, must_exist=True)
    key_file = reader.path(table, "key_file", prefix, must_exist=True)
    if (cert_file is None) != (key_file is None):
        reader.problem("mqtt.key_file" if key_file is None else "mqtt.cert_file",
                       "a client certificate needs both cert_file and key_file")
    if url is not None and urlsplit(url).scheme == "mqtt" and (ca_file or cert_file):
        reader.problem("mqtt.url", "TLS files are set but the URL is mqtt://; use mqtts://")
    for index, fallback in enumerate(fallback_urls):
        if isinstance(fallback, str) and urlsplit(fallback).scheme == "mqtt" and (ca_file or cert_file):
            reader.problem(f"mqtt.fallback_urls[{index}]", "TLS files are set but the URL is mqtt://; use mqtts://")
    replay_env = reader.value(table, "replay_secret_env", prefix, str, "") or None
    replay_secret = reader.environ.get(replay_env) if replay_env is not None else None
    if replay_env is not None and len((replay_secret or "").encode()) < MIN_SECRET_BYTES:
        reader.problem("mqtt.replay_secret_env", f"{replay_env}: the replay secret is not in the environment "
                                                 f"(or shorter than {MIN_SECRET_BYTES} bytes)")
    head_env = reader.value(table, "head_key_env", prefix, str, "") or None
    head_key = reader.environ.get(head_env) if head_env is not None else None
    if head_env is not None and len((head_key or "").encode()) < MIN_SECRET_BYTES:
        reader.problem("mqtt.head_key_env", f"{head_env}: the table's head key is not in the environment "
                                            f"(or shorter than {MIN_SECRET_BYTES} bytes)")
    rows_per_message = reader.value(table, "rows_per_message", prefix, int, 1)
    if not 1 <= rows_per_message <= MAX_ROWS_PER_MESSAGE:
        reader.problem("mqtt.rows_per_message", f"{rows_per_message}: 1 to {MAX_ROWS_PER_MESSAGE} rows an events "
                                                "message (1: version 1, what every consumer reads)")
    return MqttConfig(
        rows_per_message=rows_per_message,
        url=url,
        fallback_urls=tuple(item for item in fallback_urls if isinstance(item, str)),
        failback_interval=failback_interval,
        replay_secret=replay_secret,
        head_key=head_key,
        prefix=topic_prefix,
        username=reader.value(table, "username", prefix, str, "") or None,
        password=reader.secret(table, "password_file", prefix, ENV_MQTT_PASSWORD),
        ca_file=ca_file,
        cert_file=cert_file,
        key_file=key_file,
        client_id=reader.value(table, "client_id", prefix, str, "") or f"table-{table_id}",
    )


def _check_broker_url(reader: Reader, key: str, url: str) -> None:
    parts = urlsplit(url)
    shown = redacted_url(url)  # a problem line is printed and logged: never the password
    if parts.password is not None:
        reader.problem(key, f"{shown}: no password in the URL; put it in the file mqtt.password_file "
                            f"or in {ENV_MQTT_PASSWORD}")
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        reader.problem(key, f"{shown!r}: mqtt://host[:port] or mqtts://host[:port]")
    else:
        try:
            parts.port  # noqa: B018 - raises on a bad port
        except ValueError as error:
            reader.problem(key, f"{shown!r}: {error}")


def read_display(reader: Reader, document: dict[str, Any]) -> DisplayConfig:
    prefix = "display"
    table = reader.table(document, "display", "", allowed={"host", "port", "language", "supervisor_pin_file",
                                                           "pit_token_file", "allowed_hosts"})
    host = reader.value(table, "host", prefix, str, "127.0.0.1")
    port = reader.value(table, "port", prefix, int, 8080)
    if not 0 <= port <= 65535:
        reader.problem("display.port", f"{port}: a TCP port is 0 to 65535")
    language = reader.value(table, "language", prefix, str, "fr")
    if language not in LANGUAGES:
        reader.problem("display.language", f"{language!r} is not one of {', '.join(LANGUAGES)}")
    pin = reader.secret(table, "supervisor_pin_file", prefix, ENV_SUPERVISOR_PIN)
    if pin is not None and not (pin.isdigit() and 4 <= len(pin) <= 8):
        source = ENV_SUPERVISOR_PIN if reader.environ.get(ENV_SUPERVISOR_PIN) else "display.supervisor_pin_file"
        reader.problem(source, "the supervisor PIN is 4 to 8 digits")
    token = reader.secret(table, "pit_token_file", prefix, ENV_PIT_TOKEN)
    if token is not None and len(token) < 16:
        source = ENV_PIT_TOKEN if reader.environ.get(ENV_PIT_TOKEN) else "display.pit_token_file"
        reader.problem(source, "the pit token is at least 16 characters")
    if token is None and not _is_loopback(host):
        reader.problem("display.host", f"{host!r} serves the display to other machines: that needs the pit token "
                                       f"({ENV_PIT_TOKEN} or display.pit_token_file), else bind 127.0.0.1")
    return DisplayConfig(host=host, port=port, language=language, supervisor_pin=pin, pit_token=token,
                         allowed_hosts=_allowed_hosts(reader, table))


def _allowed_hosts(reader: Reader, table: dict[str, Any]) -> tuple[str, ...]:
    """``display.allowed_hosts``: the names (or addresses) the page is opened by, besides loopback and `host`."""
    value = table.get("allowed_hosts", [])
    if not isinstance(value, list):
        reader.problem("display.allowed_hosts", f"expected an array of host names, not {kind_of(value)}")
        return ()
    names: list[str] = []
    for index, name in enumerate(value):
        if not isinstance(name, str) or not (_HOST_NAME.fullmatch(name) or _is_address(name)):
            reader.problem(f"display.allowed_hosts[{index}]", f"{name!r}: a host name or an IP address, no port")
        else:
            names.append(name.lower())
    return tuple(names)


def _is_loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return False
    return True


def read_metrics(reader: Reader, document: dict[str, Any]) -> MetricsConfig:
    prefix = "metrics"
    if prefix not in document:
        return MetricsConfig()
    table = reader.table(document, prefix, "", allowed={"host", "port"})
    host = reader.value(table, "host", prefix, str, "127.0.0.1")
    port = reader.required(table, "port", prefix, int)
    if port is not None and not 0 <= port <= 65535:
        reader.problem("metrics.port", f"{port}: a TCP port is 0 to 65535")
    display = document.get("display", {})
    if port and isinstance(display, dict) and port == display.get("port", DisplayConfig().port):
        reader.problem("metrics.port", f"{port} is also display.port")
    return MetricsConfig(host=host, port=port)


def read_journal(reader: Reader, document: dict[str, Any]) -> JournalConfig:
    table = reader.table(document, "journal", "", allowed={"checkpoint_rows", "retry_seconds"})
    rows = reader.value(table, "checkpoint_rows", "journal", int, JournalConfig().checkpoint_rows)
    if not 100 <= rows <= 1_000_000:
        reader.problem("journal.checkpoint_rows", f"{rows}: 100 to 1000000 rows between two checkpoints")
        rows = JournalConfig().checkpoint_rows
    retry = reader.value(table, "retry_seconds", "journal", float, JournalConfig().retry_seconds)
    if not 0.05 <= retry <= 60:
        reader.problem("journal.retry_seconds", f"{retry}: 0.05 to 60 seconds between two tries of a journal that "
                                                "cannot be written")
        retry = JournalConfig().retry_seconds
    return JournalConfig(checkpoint_rows=rows, retry_seconds=retry)


def read_seance(reader: Reader, document: dict[str, Any]) -> SeanceConfig:
    table = reader.table(document, "seance", "", allowed={"required"})
    return SeanceConfig(required=reader.value(table, "required", "seance", bool, SeanceConfig().required))


def read_clock(reader: Reader, document: dict[str, Any]) -> ClockConfig:
    table = reader.table(document, "clock", "", allowed={"sync_wait_seconds"})
    wait = reader.value(table, "sync_wait_seconds", "clock", float, ClockConfig().sync_wait_seconds)
    if not 0 <= wait <= 3600:
        reader.problem("clock.sync_wait_seconds", f"{wait}: 0 (do not wait) to 3600 seconds")
        wait = ClockConfig().sync_wait_seconds
    return ClockConfig(sync_wait_seconds=wait)
