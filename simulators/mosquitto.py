"""A real Mosquitto broker on a free loopback port, for tests, benches and demos.

`MosquittoBroker` owns one ``/usr/sbin/mosquitto`` process and the directory
holding its configuration. `stop()` then `start()` brings it back on the same
port, which is how tests simulate a broker outage.

By default the broker keeps nothing across a restart (``persistence false``):
whatever the table publishes must be re-sent from the journal. With
``persistence=True`` the broker also saves sessions and queued messages on a
clean stop, so a consumer with a persistent session (clean_session false, QoS 1)
misses nothing while it is itself disconnected, which is what the deployment
guide asks of surveillance consumers.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

MOSQUITTO = "/usr/sbin/mosquitto"


class BrokerError(RuntimeError):
    """The broker did not start, or stopped on its own."""


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """Server side of a TLS listener: PEM files; `require_certificate` asks clients for one."""

    ca_file: Path
    cert_file: Path
    key_file: Path
    require_certificate: bool = False


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class MosquittoBroker:
    """One Mosquitto process on 127.0.0.1; plain listener on `port`, TLS on `tls_port` if asked.

    Use as a context manager, or call `start()` / `stop()` (repeatedly: the
    ports and the configuration stay the same).
    """

    def __init__(
        self,
        *,
        port: int | None = None,
        password_file: Path | None = None,
        tls: TlsFiles | None = None,
        tls_port: int | None = None,
        persistence: bool = False,
        max_queued_messages: int = 0,
        max_inflight_messages: int | None = None,
        extra_config: tuple[str, ...] = (),
        executable: str = MOSQUITTO,
        directory: Path | None = None,
    ) -> None:
        self.port = port if port is not None else free_port()
        self.tls = tls
        self.tls_port = (tls_port if tls_port is not None else free_port()) if tls is not None else None
        self.password_file = password_file
        self.persistence = persistence
        self.max_queued_messages = max_queued_messages
        # QoS 1 messages sent to a client and not yet acknowledged (Mosquitto's default is 20; 0: no limit). A
        # consumer that acknowledges after its database commit needs more in flight (the floor: docs/floor.md).
        self.max_inflight_messages = max_inflight_messages
        self.extra_config = extra_config  # more lines, e.g. a bridge `connection` section (after the listeners)
        self.executable = executable
        self._own_directory = directory is None
        self.directory = Path(tempfile.mkdtemp(prefix="mosquitto-")) if directory is None else directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self.config_file = self.directory / "mosquitto.conf"
        self.log_file = self.directory / "mosquitto.log"
        self._process: subprocess.Popen[bytes] | None = None
        self._write_config()

    @property
    def url(self) -> str:
        """The plain listener as an ``mqtt://`` URL."""
        return f"mqtt://127.0.0.1:{self.port}"

    @property
    def tls_url(self) -> str:
        if self.tls_port is None:
            raise BrokerError("this broker has no TLS listener")
        return f"mqtts://127.0.0.1:{self.tls_port}"

    @property
    def pid(self) -> int | None:
        """The broker's process id while it runs (a bench reads its CPU time)."""
        return self._process.pid if self.running and self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def freeze(self) -> None:
        """Stop the process (SIGSTOP): its connections stay open and nothing is answered, as a hung broker."""
        if self._process is None:
            raise BrokerError("the broker is not running")
        self._process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        if self._process is not None:
            self._process.send_signal(signal.SIGCONT)

    def _write_config(self) -> None:
        lines = [
            # Run as whoever started us (mosquitto run as root otherwise drops to a user
            # that cannot read our temporary files).
            f"user {pwd.getpwuid(os.geteuid()).pw_name}",
            "per_listener_settings false",
            f"allow_anonymous {'false' if self.password_file else 'true'}",
            f"persistence {'true' if self.persistence else 'false'}",
            f"max_queued_messages {self.max_queued_messages}",
            *([f"max_inflight_messages {self.max_inflight_messages}"] if self.max_inflight_messages is not None
              else []),
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            "log_type notice",
        ]
        if self.persistence:
            lines += [f"persistence_location {self.directory}/", "autosave_interval 0"]
        if self.password_file is not None:
            lines.append(f"password_file {self.password_file}")
        lines.append(f"listener {self.port} 127.0.0.1")
        if self.tls is not None:
            lines += [
                f"listener {self.tls_port} 127.0.0.1",
                f"cafile {self.tls.ca_file}",
                f"certfile {self.tls.cert_file}",
                f"keyfile {self.tls.key_file}",
                f"require_certificate {'true' if self.tls.require_certificate else 'false'}",
            ]
        lines += self.extra_config
        self.config_file.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def start(self, timeout: float = 10.0) -> None:
        """Start the broker and wait until every listener accepts connections."""
        if self.running:
            return
        log = self.log_file.open("ab")
        try:
            self._process = subprocess.Popen(
                [self.executable, "-c", str(self.config_file)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        finally:
            log.close()
        ports = [self.port] + ([self.tls_port] if self.tls_port is not None else [])
        deadline = time.monotonic() + timeout
        for port in ports:
            while not _accepts(port):
                if self._process.poll() is not None:
                    raise BrokerError(f"mosquitto exited with {self._process.returncode}: {self.log_tail()}")
                if time.monotonic() > deadline:
                    self.kill()
                    raise BrokerError(f"mosquitto did not listen on {port} within {timeout}s: {self.log_tail()}")
                time.sleep(0.01)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop cleanly (SIGTERM: a persistent broker saves its state) and wait for the exit."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout)
        self._process = None

    def kill(self) -> None:
        """Stop at once (SIGKILL): nothing is saved."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            process.kill()
            process.wait(10.0)
        self._process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def log_tail(self, lines: int = 20) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_file.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
        return ""

    def close(self) -> None:
        """Stop and remove the directory this broker created."""
        self.stop()
        if self._own_directory:
            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> MosquittoBroker:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def _accepts(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.2)
        try:
            probe.connect(("127.0.0.1", port))
        except OSError:
            return False
        return True


def make_password_file(path: Path, users: dict[str, str], *, tool: str = "mosquitto_passwd") -> Path:
    """Write a Mosquitto password file with `mosquitto_passwd` (which must be on PATH)."""
    executable = shutil.which(tool)
    if executable is None:
        raise BrokerError(f"{tool} is not installed")
    path.write_text("", encoding="utf-8")
    for user, password in users.items():
        subprocess.run([executable, "-b", str(path), user, password], check=True, capture_output=True, timeout=30)
    os.chmod(path, 0o600)
    return path
