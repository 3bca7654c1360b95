"""The floor service's configuration: one TOML file, checked once (`load_config`); secrets from the environment.

::

    [floor]
    floor_id = "floor-a"                    # names its MQTT sessions and its replay replies
    dsn = "postgresql://floor@db.pit.local:5432/floor"   # no password here: FLOOR_PG_PASSWORD
    tables = ["T01", "T02"]                 # default: every table under the prefix
    partition = "1/2"                       # this process takes the tables whose hash falls in part 1 of 2
    batch_rows = 2000                       # rows per write, at most
    batch_ms = 50                           # wait at most this long to fill a write
    check_interval = 1.0                    # seconds between integrity passes
    gap_grace = 5.0                         # a gap this old is a floor alarm and is asked for again
    replay_retry = 10.0                     # seconds between replay requests for a gap still open
    replay_secret_env = "FLOOR_REPLAY_SECRET"   # the variable holding the tables' replay secret
    replay_max_gap = 100000                 # a gap of more rows is an alarm, not asked for (casino_floor/ingest.py)
    write_method = "copy"                   # or "unnest", "executemany" (casino_floor/store.py; bench/floor_store.py)

    [[brokers]]                             # one or more; the tables' prefix on each
    url = "mqtts://broker.pit.local:8883"
    prefix = "casino"
    ca_file = "/etc/floor/ca.pem"           # cert_file / key_file: a client certificate
    # user name and password: FLOOR_MQTT_USERNAME, FLOOR_MQTT_PASSWORD or FLOOR_MQTT_PASSWORD_FILE
    # (or username / password_file here)

    [pit]
    bind = "127.0.0.1:8090"
    token_env = "FLOOR_PIT_TOKEN"           # the variable holding the pit page's token
    allowed_hosts = ["pit.casino.local"]    # the names the page is reached by, besides loopback and the bind address

    [shifts]
    starts = [6, 14, 22]                    # UTC hours

    [ratings]
    retention_days = 365                    # rated sessions' months dropped this long after they end (docs/floor.md)

    [events]
    retention_days = 1825                   # journal rows' months dropped this long after they end (unset: kept)

    [head_keys]                             # each table's head key, by the environment variable holding it
    T01 = "FLOOR_HEAD_KEY_T01"              # a table listed counts only the rows its signed heads cover
    T02 = ["FLOOR_HEAD_KEY_T02", "FLOOR_HEAD_KEY_T02_NEXT"]   # two while its key is rotated
"""

from __future__ import annotations

import os
import tomllib
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from casino_floor.ingest import DEFAULT_REPLAY_MAX_GAP
from casino_floor.ratings import DEFAULT_RETENTION_DAYS
from casino_floor.shifts import Shifts
from table_runtime.errors import ConfigError
from table_runtime.feed.heads import MIN_KEY_BYTES
from table_runtime.feed.messages import DEFAULT_PREFIX, topic_filter
from table_runtime.feed.settings import BrokerAddress, Secret, credentials, parse_broker_url, tls_context

ENV_USERNAME = "FLOOR_MQTT_USERNAME"
ENV_PASSWORD = "FLOOR_MQTT_PASSWORD"
ENV_PASSWORD_FILE = "FLOOR_MQTT_PASSWORD_FILE"
ENV_PG_PASSWORD = "FLOOR_PG_PASSWORD"


@dataclass(frozen=True, slots=True)
class Broker:
    address: BrokerAddress
    prefix: str = DEFAULT_PREFIX
    username: str | None = None
    password: Secret | None = field(default=None, repr=False)
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None

    def tls(self) -> Any:
        return tls_context(self.address, self.ca_file, self.cert_file, self.key_file)


@dataclass(frozen=True, slots=True)
class Partition:
    """Part `index` (1-based) of `count`: a table belongs to the part its id's CRC32 falls in."""

    index: int = 1
    count: int = 1

    def owns(self, table_id: str) -> bool:
        return zlib.crc32(table_id.encode("utf-8")) % self.count == self.index - 1


@dataclass(frozen=True, slots=True)
class FloorConfig:
    dsn: str
    brokers: tuple[Broker, ...]
    floor_id: str = "floor"
    pg_password: Secret | None = field(default=None, repr=False)
    tables: tuple[str, ...] | None = None
    partition: Partition = field(default_factory=Partition)
    batch_rows: int = 2000
    batch_ms: int = 50
    check_interval: float = 1.0
    gap_grace: float = 5.0
    replay_retry: float = 10.0
    replay_secret: Secret | None = field(default=None, repr=False)
    pit_bind: str = "127.0.0.1:8090"
    pit_token: Secret | None = field(default=None, repr=False)
    pit_allowed_hosts: tuple[str, ...] = ()
    shifts: Shifts = field(default_factory=Shifts)
    write_method: str = "copy"
    ratings_retention_days: int = DEFAULT_RETENTION_DAYS
    events_retention_days: int | None = None  # None: the journal rows are kept for ever
    replay_max_gap: int = DEFAULT_REPLAY_MAX_GAP
    head_keys: Mapping[str, tuple[Secret, ...]] = field(default_factory=dict, repr=False)

    @property
    def head_key_bytes(self) -> dict[str, tuple[bytes, ...]]:
        """Each table's head keys as the MAC takes them (UTF-8)."""
        return {table: tuple(key.reveal().encode("utf-8") for key in keys) for table, keys in self.head_keys.items()}

    def follows(self, table_id: str) -> bool:
        return (self.tables is None or table_id in self.tables) and self.partition.owns(table_id)

    def filters(self, broker: Broker) -> list[str]:
        """The subscriptions on `broker`: one per topic and table listed, else the wildcard (never $share)."""
        # The head first: a retained state is read after it.
        names = ("head", "events", "state", "status", "ratings", "checkpoints")
        tables: list[str | None] = [t for t in self.tables if self.partition.owns(t)] if self.tables else [None]
        return [topic_filter(broker.prefix, table, name) for table in tables for name in names]  # type: ignore[arg-type]


def read_toml(path: str | Path) -> dict[str, Any]:
    """The TOML file at `path` (the floor's or the group's configuration); a `ConfigError` when it cannot be read."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError("config", f"{path}: {error.strerror or error}") from error
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError("config", f"{path}: not TOML: {error}") from error


def load_config(path: str | Path, *, environ: Mapping[str, str] | None = None) -> FloorConfig:
    """Read and check the TOML file at `path`; a `ConfigError` names the key at fault."""
    return config_from_mapping(read_toml(path), environ=os.environ if environ is None else environ)


def _section(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise ConfigError(key, "must be a table")
    return value


def _check_keys(section: str, mapping: Mapping[str, Any], known: set[str]) -> None:
    for key in mapping:
        if key not in known:
            raise ConfigError(f"{section}.{key}", "unknown key")


def _number(key: str, value: Any, *, whole: bool = False, minimum: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and value % 1) or value <= minimum:
        raise ConfigError(key, f"must be a {'whole ' if whole else ''}number above {minimum:g}")
    return value


def _file(key: str, value: Any) -> Path:
    if not isinstance(value, str) or not Path(value).is_file():
        raise ConfigError(key, f"{value}: no such file")
    return Path(value)


def _secret_from_env(key: str, name: Any, environ: Mapping[str, str]) -> Secret | None:
    if not isinstance(name, str) or not name:
        raise ConfigError(key, "the name of an environment variable")
    return Secret(environ[name]) if environ.get(name) else None


def config_from_mapping(data: Mapping[str, Any], *, environ: Mapping[str, str]) -> FloorConfig:
    _check_keys("config", data, {"floor", "brokers", "pit", "shifts", "ratings", "events", "head_keys"})
    floor = _section(data, "floor")
    _check_keys("floor", floor, {"floor_id", "dsn", "tables", "partition", "batch_rows", "batch_ms", "check_interval",
                                 "gap_grace", "replay_retry", "replay_secret_env", "write_method",
                                 "replay_max_gap"})
    kwargs: dict[str, Any] = {}
    dsn = floor.get("dsn")
    if not isinstance(dsn, str) or urlsplit(dsn).scheme not in ("postgresql", "postgres"):
        raise ConfigError("floor.dsn", "a PostgreSQL URL like postgresql://floor@127.0.0.1:5432/floor")
    if urlsplit(dsn).password is not None or "password=" in urlsplit(dsn).query:
        raise ConfigError("floor.dsn", f"no password in the DSN: set {ENV_PG_PASSWORD}")
    if environ.get(ENV_PG_PASSWORD):
        kwargs["pg_password"] = Secret(environ[ENV_PG_PASSWORD])
    if "floor_id" in floor:
        if not isinstance(floor["floor_id"], str) or not floor["floor_id"].replace("-", "").replace("_", "").isalnum():
            raise ConfigError("floor.floor_id", "letters, digits, - and _ only")
        kwargs["floor_id"] = floor["floor_id"]
    if "tables" in floor:
        tables = floor["tables"]
        if not isinstance(tables, list) or not tables or not all(isinstance(t, str) and t for t in tables):
            raise ConfigError("floor.tables", "a non-empty list of table ids (leave it out to follow every table)")
        for table in tables:
            topic_filter(DEFAULT_PREFIX, table, "events")  # checks the id
        kwargs["tables"] = tuple(tables)
    if "write_method" in floor:
        if floor["write_method"] not in ("unnest", "copy", "executemany"):
            raise ConfigError("floor.write_method", "one of unnest, copy, executemany")
        kwargs["write_method"] = floor["write_method"]
    if "partition" in floor:
        kwargs["partition"] = parse_partition(floor["partition"])
    for key, whole in (("batch_rows", True), ("batch_ms", True), ("check_interval", False), ("gap_grace", False),
                       ("replay_retry", False), ("replay_max_gap", True)):
        if key in floor:
            value = _number(f"floor.{key}", floor[key], whole=whole)
            kwargs[key] = int(value) if whole else float(value)
    kwargs["replay_secret"] = _secret_from_env("floor.replay_secret_env",
                                               floor.get("replay_secret_env", "FLOOR_REPLAY_SECRET"), environ)
    brokers = data.get("brokers")
    if not isinstance(brokers, list) or not brokers:
        raise ConfigError("brokers", "at least one [[brokers]] table with a url")
    kwargs["brokers"] = tuple(_broker(index, entry, environ) for index, entry in enumerate(brokers))
    pit = _section(data, "pit")
    _check_keys("pit", pit, {"bind", "token_env", "allowed_hosts"})
    if "allowed_hosts" in pit:
        hosts = pit["allowed_hosts"]
        # A name or an address, never with a port: "pit.local", "10.0.0.5", "::1" or "[::1]", not "pit.local:8090".
        if not isinstance(hosts, list) or not all(isinstance(h, str) and h.strip("[]") and h.count(":") != 1
                                                  for h in hosts):
            raise ConfigError("pit.allowed_hosts", "a list of host names or addresses, without ports")
        kwargs["pit_allowed_hosts"] = tuple(h.strip("[]").lower() for h in hosts)
    if "bind" in pit:
        bind = pit["bind"]
        host, _, port = bind.rpartition(":") if isinstance(bind, str) else ("", "", "")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError("pit.bind", "host:port, like 127.0.0.1:8090")
        kwargs["pit_bind"] = bind
    kwargs["pit_token"] = _secret_from_env("pit.token_env", pit.get("token_env", "FLOOR_PIT_TOKEN"), environ)
    shifts = _section(data, "shifts")
    _check_keys("shifts", shifts, {"starts"})
    if "starts" in shifts:
        starts = shifts["starts"]
        kwargs["shifts"] = Shifts(tuple(starts) if isinstance(starts, list) else ())
    ratings = _section(data, "ratings")
    _check_keys("ratings", ratings, {"retention_days"})
    if "retention_days" in ratings:
        kwargs["ratings_retention_days"] = int(_number("ratings.retention_days", ratings["retention_days"],
                                                       whole=True))
    events = _section(data, "events")
    _check_keys("events", events, {"retention_days"})
    if "retention_days" in events:
        kwargs["events_retention_days"] = int(_number("events.retention_days", events["retention_days"], whole=True))
    kwargs["head_keys"] = _head_keys(_section(data, "head_keys"), environ)
    return FloorConfig(dsn=dsn, **kwargs)


def _head_keys(section: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, tuple[Secret, ...]]:
    """``[head_keys]``: table id -> the variable (or a list of them, while a key is rotated) holding its key."""
    keys: dict[str, tuple[Secret, ...]] = {}
    for table, names in section.items():
        key = f"head_keys.{table}"
        topic_filter(DEFAULT_PREFIX, table, "events")  # checks the id
        listed = names if isinstance(names, list) else [names]
        if not listed or not all(isinstance(name, str) and name for name in listed):
            raise ConfigError(key, "the name of an environment variable, or a list of them")
        found = []
        for name in listed:
            value = environ.get(name)
            if not value:
                raise ConfigError(key, f"the environment variable {name} (the table's head key) is not set")
            if len(value.encode()) < MIN_KEY_BYTES:
                raise ConfigError(key, f"the head key in {name} must be at least {MIN_KEY_BYTES} bytes")
            found.append(Secret(value))
        keys[table] = tuple(found)
    return keys


def parse_partition(value: Any) -> Partition:
    text = value if isinstance(value, str) else ""
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit()) or not 1 <= int(index) <= int(count):
        raise ConfigError("floor.partition", f"{value!r}: 'k/n' with 1 <= k <= n, like \"1/2\"")
    return Partition(int(index), int(count))


def _broker(index: int, entry: Any, environ: Mapping[str, str]) -> Broker:
    key = f"brokers[{index}]"
    if not isinstance(entry, Mapping):
        raise ConfigError(key, "must be a table")
    _check_keys(key, entry, {"url", "prefix", "username", "password_file", "ca_file", "cert_file", "key_file"})
    address, url_user = parse_broker_url(entry.get("url", ""), key=f"{key}.url")
    prefix = entry.get("prefix", DEFAULT_PREFIX)
    topic_filter(prefix if isinstance(prefix, str) else "", None, "events")
    username, password = credentials(entry, url_user, environ, key=key,
                                     env=(ENV_USERNAME, ENV_PASSWORD, ENV_PASSWORD_FILE))
    files = {name: _file(f"{key}.{name}", entry[name])
             for name in ("ca_file", "cert_file", "key_file") if name in entry}
    if files and not address.tls:
        raise ConfigError(f"{key}.url", "ca_file/cert_file given but the URL is not mqtts://")
    if ("cert_file" in files) != ("key_file" in files):
        raise ConfigError(f"{key}.cert_file", "a client certificate needs both cert_file and key_file")
    broker = Broker(address, prefix, username, password, **files)
    try:  # PEM files that load, a key that fits its certificate: checked here, not at each session
        broker.tls()
    except ConfigError as error:
        raise ConfigError(f"{key}.{'cert_file' if 'cert_file' in files else 'ca_file'}", error.message) from None
    return broker
