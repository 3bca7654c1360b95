"""Helpers for the service's tests: a demo table configuration in a temporary directory, an sd_notify listener."""

from __future__ import annotations

import queue
import re
import socket
import threading
import time
import uuid
from pathlib import Path

from simulators.mosquitto import free_port

REPO = Path(__file__).resolve().parents[2]
DEMO_CONFIG = REPO / "configs" / "demo.toml"


def demo_table(tmp_path: Path, *, extra: str = "", mqtt_url: str | None = None) -> Path:
    """configs/demo.toml with its data in tmp_path, the display on a free port, `extra` TOML appended."""
    text = DEMO_CONFIG.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^data_dir = .*$", f'data_dir = "{tmp_path / "data"}"', text)
    text = re.sub(r"(?m)^port = 8080$", f"port = {free_port()}", text)
    if mqtt_url is not None:
        text = re.sub(r'(?m)^prefix = "casino"$', f'url = "{mqtt_url}"\nprefix = "casino"', text)
    path = tmp_path / "table.toml"
    path.write_text(text + extra, encoding="utf-8")
    return path


class NotifyListener:
    """A unix datagram socket standing in for systemd's notify socket; records each message with its time."""

    def __init__(self, *, abstract: bool = True, directory: Path | None = None) -> None:
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract:
            name = f"table-runtime-test-{uuid.uuid4().hex}"
            self.socket.bind(b"\0" + name.encode())
            self.address = "@" + name
        else:
            assert directory is not None
            path = directory / "notify.sock"
            self.socket.bind(str(path))
            self.address = str(path)
        self.socket.settimeout(0.2)
        self.messages: queue.Queue[tuple[float, dict[str, str]]] = queue.Queue()
        self.received: list[tuple[float, dict[str, str]]] = []
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._receive, daemon=True)
        self._thread.start()

    def _receive(self) -> None:
        while not self._closed.is_set():
            try:
                data = self.socket.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            fields = dict(line.split("=", 1) for line in data.decode().splitlines())
            self.messages.put((time.monotonic(), fields))

    def next_with(self, key: str, timeout: float = 30.0) -> tuple[float, dict[str, str]]:
        """Wait for the next message carrying `key` (every message on the way is kept in `received`)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no {key}= within {timeout}s; got {[m for _, m in self.received]}")
            try:
                item = self.messages.get(timeout=remaining)
            except queue.Empty:
                continue
            self.received.append(item)
            if key in item[1]:
                return item

    def drain(self) -> list[tuple[float, dict[str, str]]]:
        while True:
            try:
                self.received.append(self.messages.get_nowait())
            except queue.Empty:
                return self.received

    def close(self) -> None:
        self._closed.set()
        self._thread.join(timeout=5)
        self.socket.close()
