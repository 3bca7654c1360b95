"""A `table-runtime run` process whose shoe lives in the test's own process (a simulated shoe firmware on a pty).

Killing the runtime (SIGKILL) leaves the shoe, its retransmit buffer and its unacknowledged events alone,
as a power cut of the controller leaves a real shoe. The configuration is configs/demo.toml with the shoe
on that pty (the chip readers stay simulated in the runtime), the display on a free port and the data
directory where the test says.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table_runtime.journal import Journal, journal_path

REPO = Path(__file__).resolve().parents[2]
DEMO_CONFIG = REPO / "configs" / "demo.toml"


def external_shoe_config(directory: Path, *, data_dir: Path, shoe_link: Path, port: int) -> Path:
    """configs/demo.toml with the shoe on `shoe_link`, data in `data_dir`, the display on `port`."""
    text = DEMO_CONFIG.read_text(encoding="utf-8")
    text = re.sub(r'(?m)^data_dir = .*$', f'data_dir = "{data_dir}"', text)
    text = re.sub(r"(?m)^port = 8080$", f"port = {port}", text)
    text = re.sub(r'(?m)^shoe = .*$', f'shoe = "serial://{shoe_link}"', text)
    path = directory / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


class RuntimeProcess:
    """One `table-runtime run --config` process, its stderr in a file and its display's snapshot."""

    def __init__(self, config: Path, port: int, *, environment: dict[str, str] | None = None,
                 crash_at: tuple[str, int] | None = None) -> None:
        """`crash_at` (point, N): the run dies at the N-th step reaching the point (tests/e2e/crashing_run.py)."""
        self.port = port
        self.stderr_path = config.parent / f"run-{time.monotonic_ns()}.log"
        self._stderr = self.stderr_path.open("w", encoding="utf-8")
        env = {key: value for key, value in os.environ.items() if not key.startswith("TABLE_")}
        env.update(environment or {})
        command = ["-m", "table_runtime", "run"] if crash_at is None else [
            "-m", "tests.e2e.crashing_run", crash_at[0], str(crash_at[1])]
        self.process = subprocess.Popen([sys.executable, *command, "--config", str(config)],
                                        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=self._stderr)

    @property
    def log(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8")

    def snapshot(self) -> dict[str, Any] | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/snapshot", timeout=5) as response:
                body: dict[str, Any] = json.loads(response.read())
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return None
        return body

    def wait_for(self, what: str, condition: Callable[[dict[str, Any]], bool], seconds: float = 30.0
                 ) -> dict[str, Any]:
        """Poll the snapshot until `condition` holds; the process must stay alive."""
        deadline = time.monotonic() + seconds
        last = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the table exited ({self.process.returncode}) before {what}:\n{self.log}")
            last = self.snapshot()
            if last is not None and condition(last):
                return last
            time.sleep(0.05)
        raise AssertionError(f"no {what} within {seconds}s; last snapshot {last}\n{self.log}")

    def wait_exit(self, seconds: float = 30.0) -> int:
        code = self.process.wait(timeout=seconds)
        self._stderr.close()
        return code

    def terminate(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.wait_exit()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.wait_exit()


def loaded(snapshot: dict[str, Any]) -> bool:
    """The shoe is online and the journal's shoe is loaded."""
    return bool(snapshot["shoe"]["loaded"] and snapshot["devices"]["shoe"] == "online")


def dealt(count: int) -> Callable[[dict[str, Any]], bool]:
    """At least `count` cards dealt from the table's shoe."""
    return lambda snapshot: bool(snapshot["shoe"]["cards_dealt"] >= count)


def shoe_inputs(data_dir: Path) -> list[dict[str, Any]]:
    """The journal's inputs that came from the shoe, in order (read after the runtime stopped)."""
    with Journal.open(journal_path(data_dir)) as journal:
        return [entry.body for entry in journal.entries(kinds=("input",)) if entry.body.get("source") == "shoe"]


def wait_until(what: str, condition: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what} (within {seconds:g} s)")
        time.sleep(0.05)
