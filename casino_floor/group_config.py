"""The group's configuration: one TOML file for `table-floor group setup|status` and `table-floor query --group`.

::

    [group]
    dsn = "postgresql://group@group-db.example:5432/group"    # the group's database; password: GROUP_PG_PASSWORD
    replication_password_env = "GROUP_REPLICATION_PASSWORD"  # the replicator's password, set at every casino

    [[group.casinos]]                       # one per casino's floor
    casino_id = "paris"                     # a-z, 0-9 and _, at most 40: names its rows and its subscription
    dsn = "postgresql://floor@paris-db.example:5432/floor"   # setup connects here (the floor database's owner)
    publisher = "host=paris-db.example port=5432 dbname=floor"   # what the group's subscription connects to
    password_env = "PARIS_PG_PASSWORD"      # the variable holding the password of `dsn` (none by default)

    [shifts]
    starts = [6, 14, 22]                    # UTC hours: the same shifts as the casinos' floors

No password stands in the file: each comes from the environment, and a password in a DSN is refused.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from casino_floor.config import read_toml
from casino_floor.shifts import Shifts
from table_runtime.errors import ConfigError
from table_runtime.feed.settings import Secret

ENV_GROUP_PASSWORD: Final = "GROUP_PG_PASSWORD"
CASINO_ID: Final = re.compile(r"^[a-z0-9_]{1,40}$")
_CONNINFO_KEYS: Final = frozenset({"host", "hostaddr", "port", "dbname", "sslmode", "sslrootcert", "sslcert",
                                   "sslkey", "connect_timeout", "application_name"})


@dataclass(frozen=True, slots=True)
class Casino:
    """One casino's floor database, as the group's setup reaches it and as the group's subscription does."""

    casino_id: str
    dsn: str
    publisher: str
    password: Secret | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class GroupConfig:
    dsn: str
    casinos: tuple[Casino, ...]
    password: Secret | None = field(default=None, repr=False)
    replication_password: Secret | None = field(default=None, repr=False)
    shifts: Shifts = field(default_factory=Shifts)

    def casino(self, casino_id: str) -> Casino:
        for casino in self.casinos:
            if casino.casino_id == casino_id:
                return casino
        raise ConfigError("group.casinos", f"no casino {casino_id!r} in the group's configuration")


def load_group_config(path: str | Path, *, environ: Mapping[str, str] | None = None) -> GroupConfig:
    return group_config_from_mapping(read_toml(path), environ=os.environ if environ is None else environ)


def _keys(section: str, mapping: Any, known: set[str]) -> Mapping[str, Any]:
    if not isinstance(mapping, Mapping):
        raise ConfigError(section, "must be a table")
    for key in mapping:
        if key not in known:
            raise ConfigError(f"{section}.{key}", "unknown key")
    return mapping


def _dsn(key: str, value: Any) -> str:
    if not isinstance(value, str) or urlsplit(value).scheme not in ("postgresql", "postgres"):
        raise ConfigError(key, "a PostgreSQL URL like postgresql://floor@127.0.0.1:5432/floor")
    if urlsplit(value).password is not None or "password=" in urlsplit(value).query:
        raise ConfigError(key, "no password in the DSN: name the variable holding it")
    return value


def _conninfo(key: str, value: Any) -> str:
    """A libpq connection string of `key=value` words, without user or password (setup adds them)."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(key, "a connection string like 'host=db.example port=5432 dbname=floor'")
    for word in value.split():
        name, equals, setting = word.partition("=")
        if not equals or not setting or name not in _CONNINFO_KEYS:
            raise ConfigError(key, f"{word!r}: one of {', '.join(sorted(_CONNINFO_KEYS))} as key=value (the user "
                                   "and the password are the replicator's, added by setup)")
    return value


def _secret(key: str, name: Any, environ: Mapping[str, str]) -> Secret | None:
    if name is None:
        return None
    if not isinstance(name, str) or not name:
        raise ConfigError(key, "the name of an environment variable")
    return Secret(environ[name]) if environ.get(name) else None


def group_config_from_mapping(data: Mapping[str, Any], *, environ: Mapping[str, str]) -> GroupConfig:
    _keys("config", data, {"group", "shifts"})
    group = _keys("group", data.get("group", {}), {"dsn", "replication_password_env", "casinos"})
    entries = group.get("casinos", [])
    if not isinstance(entries, list) or not entries:
        raise ConfigError("group.casinos", "one [[group.casinos]] table per casino's floor")
    casinos: list[Casino] = []
    for index, entry in enumerate(entries):
        key = f"group.casinos[{index}]"
        entry = _keys(key, entry, {"casino_id", "dsn", "publisher", "password_env"})
        casino_id = entry.get("casino_id")
        if not isinstance(casino_id, str) or not CASINO_ID.match(casino_id):
            raise ConfigError(f"{key}.casino_id", "a-z, 0-9 and _ only, 1 to 40 characters")
        if any(casino.casino_id == casino_id for casino in casinos):
            raise ConfigError(f"{key}.casino_id", f"{casino_id!r} is listed twice")
        casinos.append(Casino(casino_id=casino_id, dsn=_dsn(f"{key}.dsn", entry.get("dsn")),
                              publisher=_conninfo(f"{key}.publisher", entry.get("publisher")),
                              password=_secret(f"{key}.password_env", entry.get("password_env"), environ)))
    shifts = _keys("shifts", data.get("shifts", {}), {"starts"})
    if not isinstance(shifts.get("starts", []), list):
        raise ConfigError("shifts.starts", "a list of hours 0..23 (UTC)")
    return GroupConfig(
        dsn=_dsn("group.dsn", group.get("dsn")), casinos=tuple(casinos),
        password=Secret(environ[ENV_GROUP_PASSWORD]) if environ.get(ENV_GROUP_PASSWORD) else None,
        replication_password=_secret("group.replication_password_env",
                                     group.get("replication_password_env", "GROUP_REPLICATION_PASSWORD"), environ),
        shifts=Shifts(tuple(shifts["starts"])) if "starts" in shifts else Shifts())
