"""A real PostgreSQL server in a temporary directory on a free loopback port, for tests, benches and demos.

`PostgresServer` runs ``initdb`` then ``pg_ctl start`` from the newest ``/usr/lib/postgresql/<ver>/bin`` (or
``PG_BIN``), with trust authentication on 127.0.0.1 only and fsync off (test data). PostgreSQL refuses to run
as root, so as root the cluster belongs to, and runs as, an unprivileged system user (``postgres`` if the
machine has one, else ``nobody``) through ``runuser``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

from simulators.mosquitto import free_port


class PostgresError(RuntimeError):
    """The server could not be set up or started."""


def find_bin() -> Path | None:
    """The directory holding initdb and pg_ctl, or None if PostgreSQL is not installed."""
    candidates = [os.environ["PG_BIN"]] if os.environ.get("PG_BIN") else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True)
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(str(Path(on_path).parent))
    for candidate in candidates:
        if (Path(candidate) / "initdb").is_file() and (Path(candidate) / "pg_ctl").is_file():
            return Path(candidate)
    return None


def _version(path: str) -> tuple[int, ...]:
    version = Path(path).parent.name
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def _unprivileged_user() -> str | None:
    """The user to run as (None: ourselves, when not root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise PostgresError("running as root and no 'postgres' or 'nobody' user to run PostgreSQL as")


class PostgresServer:
    """One PostgreSQL cluster; `dsn` for database ``postgres`` as superuser ``floor``."""

    def __init__(self, *, bin_dir: Path | None = None, port: int | None = None, directory: Path | None = None,
                 settings: Mapping[str, str] | None = None) -> None:
        found = bin_dir or find_bin()
        if found is None:
            raise PostgresError("no initdb found (install the postgresql package, or set PG_BIN)")
        self.bin_dir = found
        self.port = port if port is not None else free_port()
        self._own_directory = directory is None
        self.directory = Path(tempfile.mkdtemp(prefix="postgres-")) if directory is None else directory
        self.data = self.directory / "data"
        self.log_file = self.directory / "postgres.log"
        self.user = _unprivileged_user()
        self.settings = dict(settings or {})  # more postgresql.conf lines, e.g. wal_level = logical for the group
        self._initialized = False

    @property
    def dsn(self) -> str:
        return f"postgresql://floor@127.0.0.1:{self.port}/postgres"

    def dsn_for(self, database: str) -> str:
        return f"postgresql://floor@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str, timeout: float = 120.0) -> None:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=self.directory)
        if result.returncode != 0:
            raise PostgresError(f"{args[0]} failed ({result.returncode}): {(result.stderr or result.stdout)[-800:]}")

    def _initdb(self) -> None:
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.directory, entry.pw_uid, entry.pw_gid)
        os.chmod(self.directory, 0o700)
        self._run("initdb", "-D", str(self.data), "-U", "floor", "--auth=trust", "--encoding=UTF8",
                  "--locale=C", "--no-sync")
        with (self.data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write(f"\nlisten_addresses = '127.0.0.1'\nport = {self.port}\n"
                       f"unix_socket_directories = '{self.directory}'\n"
                       "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n")
            conf.writelines(f"{name} = {value}\n" for name, value in self.settings.items())
        self._initialized = True

    def start(self, timeout: float = 60.0) -> None:
        if not self._initialized:
            self._initdb()
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log_file), "-w", "-t", str(int(timeout)), "start",
                  timeout=timeout + 10)

    def stop(self, mode: str = "fast") -> None:
        if self._initialized:
            with contextlib.suppress(PostgresError, subprocess.TimeoutExpired):
                self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", timeout=60)

    def close(self) -> None:
        self.stop("immediate")
        if self._own_directory:
            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> PostgresServer:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
