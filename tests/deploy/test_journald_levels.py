"""Log lines reach journald at their level: `journalctl -p warning` shows the warnings and errors only.

When stderr is the journal stream systemd connected (JOURNAL_STREAM names its device and inode), each
line starts with its sd-daemon priority (``<4>`` warning, ``<6>`` info, ...), every line of a traceback
too; a terminal or a file gets the plain lines.
"""

from __future__ import annotations

import io
import logging
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from table_runtime.runtime.systemd import JournaldFormatter, log_handler, priority_of, stderr_is_journal

from .support import REPO, NotifyListener, demo_table

pytestmark = pytest.mark.timeout(120)
PRIORITY_OF_LEVEL = {"DEBUG": 7, "INFO": 6, "WARNING": 4, "ERROR": 3, "CRITICAL": 2}


def test_each_level_has_its_syslog_priority() -> None:
    assert [priority_of(level) for level in (5, logging.DEBUG, logging.INFO, 25, logging.WARNING, logging.ERROR,
                                             logging.CRITICAL)] == [7, 7, 6, 6, 4, 3, 2]


def test_every_line_of_a_record_carries_its_priority() -> None:
    stream = io.StringIO()
    logger = logging.getLogger("tests.journald")
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    handler = log_handler(stream, journal=True, fmt="%(levelname)s %(name)s: %(message)s")
    assert isinstance(handler.formatter, JournaldFormatter)
    logger.addHandler(handler)
    try:
        logger.info("started")
        logger.warning("shoe offline")
        try:
            raise ValueError("bad frame")
        except ValueError:
            logger.exception("reader failed")
    finally:
        logger.removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "<6>INFO tests.journald: started"
    assert lines[1] == "<4>WARNING tests.journald: shoe offline"
    assert lines[2] == "<3>ERROR tests.journald: reader failed"
    assert len(lines) > 4 and all(line.startswith("<3>") for line in lines[2:])  # the traceback at err too
    assert lines[-1] == "<3>ValueError: bad frame"
    plain = io.StringIO()
    plain_handler = log_handler(plain, journal=False, fmt="%(levelname)s %(message)s")
    plain_handler.emit(logging.LogRecord("x", logging.WARNING, __file__, 1, "plain", None, None))
    assert plain.getvalue() == "WARNING plain\n"


def test_stderr_is_the_journal_only_when_journal_stream_names_it(tmp_path: Path) -> None:
    with (tmp_path / "stderr").open("w") as stream:
        stat = os.fstat(stream.fileno())
        assert stderr_is_journal({"JOURNAL_STREAM": f"{stat.st_dev}:{stat.st_ino}"}, stream)
        assert not stderr_is_journal({"JOURNAL_STREAM": f"{stat.st_dev}:{stat.st_ino + 1}"}, stream)  # redirected
        assert not stderr_is_journal({}, stream)
        assert not stderr_is_journal({"JOURNAL_STREAM": "nonsense"}, stream)


def run_with_journal_stream(config: Path, log: Path, listener: NotifyListener | None = None) -> subprocess.Popen[str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("TABLE_", "NOTIFY_", "WATCHDOG_", "JOURNAL_STREAM"))}
    stderr = log.open("w")
    stat = os.fstat(stderr.fileno())
    env["JOURNAL_STREAM"] = f"{stat.st_dev}:{stat.st_ino}"
    if listener is not None:
        env["NOTIFY_SOCKET"] = listener.address
    try:
        return subprocess.Popen([sys.executable, "-m", "table_runtime", "run", "--config", str(config)], cwd=REPO,
                                env=env, stdout=subprocess.DEVNULL, stderr=stderr, text=True)
    finally:
        stderr.close()


def journal_lines(log: Path) -> list[tuple[int, str]]:
    lines = log.read_text(encoding="utf-8").splitlines()
    parsed = [re.fullmatch(r"<([0-7])>(.*)", line) for line in lines]
    assert all(parsed), [line for line, match in zip(lines, parsed, strict=True) if match is None]
    return [(int(match.group(1)), match.group(2)) for match in parsed if match is not None]


def test_a_running_table_logs_at_journald_levels(tmp_path: Path) -> None:
    listener = NotifyListener()
    log = tmp_path / "run.log"
    process = run_with_journal_stream(demo_table(tmp_path), log, listener)
    try:
        listener.next_with("READY")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        listener.close()
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    lines = journal_lines(log)
    assert lines, "nothing logged"
    for priority, text in lines:
        level = text.split(" ", 1)[0]
        assert PRIORITY_OF_LEVEL.get(level, priority) == priority, (priority, text)
    assert any(priority == 6 and "ready: table DEMO1" in text for priority, text in lines)
    # What `journalctl -p warning` would show: no INFO line among them.
    assert all(not text.startswith("INFO ") for priority, text in lines if priority <= 4)


def test_a_bad_configuration_is_logged_as_errors(tmp_path: Path) -> None:
    config = demo_table(tmp_path)
    config.write_text(config.read_text().replace("split = 19", "split = 99"), encoding="utf-8")
    log = tmp_path / "run.log"
    process = run_with_journal_stream(config, log)
    assert process.wait(timeout=60) == 2
    lines = journal_lines(log)
    assert {priority for priority, _ in lines} == {3}
    assert lines[1][1] == "  pins.split: 99: not a BCM GPIO number (0 to 27)"
